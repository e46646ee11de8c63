"""The GPU check of rl_torch_engine (infra/gpu/README.md): parity with transformers,
log-prob / update / LoRA throughput, MFU and peak memory on one CUDA device. Needs
torch (and transformers for the parity rows); prints one summary table and writes
OUT_DIR/gpu-check.json. `--smoke` runs tiny sizes on whatever device there is, so
CI proves the script runs (test/gpu-check.test.ts).

  python3 infra/gpu/check.py OUT_DIR [--smoke] [--device auto|cpu|cuda] [--rows N] [--seconds S]
Exit status 1 when a parity row fails or a part or pass does not run, 0 otherwise."""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import traceback
from typing import Any, Callable, Dict, List, Optional

import torch

from parity import BF16_FLOOR, FP32_TOLERANCE, run_parity
from serve_check import run_serve_check
from sharding_check import run_sharding_check
from rl_torch_engine.bench import matmul_peak
from throughput import Sizes, card_peak, default_sizes, fraction, run_throughput


def versions() -> Dict[str, Optional[str]]:
    out: Dict[str, Optional[str]] = {"python": platform.python_version(), "torch": torch.__version__, "cuda": torch.version.cuda}
    for name in ("transformers", "peft"):
        try:
            out[name] = __import__(name).__version__
        except ImportError:
            out[name] = None
    return out


def table(header: List[str], rows: List[List[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    line = lambda cells: " | ".join(c.ljust(w) for c, w in zip(cells, widths))  # noqa: E731
    return "\n".join([line(header), "-|-".join("-" * w for w in widths), *(line(r) for r in rows)])


def num(x: Any, fmt: str) -> str:
    return "-" if x is None else format(x, fmt)


def summary(report: Dict[str, Any]) -> str:
    env = report["environment"]
    parts = [
        f"rl_torch_engine GPU check ({'smoke' if report['smoke'] else 'full'}): {env['device_name']}; torch {env['torch']}, "
        f"transformers {env['transformers'] or 'not installed'}, peft {env['peft'] or 'not installed'}",
        f"peak: {report['peak']['assumption']}; measured {report['matmul']['dtype']} matmul {report['matmul']['gflops']:.0f} GFLOP/s "
        f"({'x'.join(map(str, report['matmul']['shape']))})",
    ]
    parity = report["parity"]
    if isinstance(parity, dict):
        parts.append(f"parity: FAILED to run: {parity['error']}")
    elif parity is None or isinstance(parity, str):
        parts.append(f"parity: {parity or 'skipped (transformers is not installed)'}")
    else:
        rows = [
            [
                r["architecture"],
                num(r["fp32_logprob_max_abs_diff"], ".2e"),
                num(r.get("bf16_logprob_max_abs_diff"), ".2e"),
                f"{num(r.get('bf16_ours_vs_fp32'), '.2e')} / {num(r.get('bf16_transformers_vs_fp32'), '.2e')}",
                "ok" if r["fp32_ok"] and r.get("bf16_ok", True) else "FAILED",
            ]
            for r in parity
        ]
        parts.append(
            f"parity with transformers, max |log-prob difference| (fp32 on the CPU, within {FP32_TOLERANCE:g}; bf16 as the engine runs on CUDA, "
            f"no further from transformers' fp32 than transformers' bf16 is, x2 or {BF16_FLOOR:g}):\n"
            + table(["architecture", "fp32", "bf16 vs transformers bf16", "bf16 vs fp32: ours / transformers", "verdict"], rows)
        )
    serve = report["serve"]
    if "error" in serve:
        parts.append(f"serve: FAILED to run: {serve['error']}")
    else:
        full, lora = serve["full_mean_logprob_by_step"], serve["lora_mean_logprob_by_step"]
        parts.append(
            f"serve (the engine as a child process on {serve['hello']['device']}): log-probs vs fp32 on the CPU max "
            f"{serve['logprob_max_abs_diff_vs_cpu_fp32']:.2e} (mean {serve['logprob_mean_abs_diff_vs_cpu_fp32']:.2e}), after training "
            f"{serve['trained_logprob_max_abs_diff_vs_cpu_fp32']:.2e}; mean log-prob over {len(full) - 1} steps {full[0]:.3f} -> {full[-1]:.3f} "
            f"(LoRA r=8: {lora[0]:.3f} -> {lora[-1]:.3f}); saved directory = weights op: {serve['saved_equals_weights_op']}; "
            f"LoRA reference = base: {serve['lora_reference_is_base_max_abs_diff']:.2e}; generate: greedy tokens equal to fp32 on the CPU "
            f"{100 * serve['generate']['greedy_tokens_equal_cpu_fp32']:.0f}%, reported log-probs vs teacher-forced {serve['generate']['logprob_vs_teacher_forced_max_abs_diff']:.2e}, "
            f"seeded sampling reproduces: {serve['generate']['seeded_sampling_reproduces']}; {'ok' if serve['ok'] else 'FAILED'}"
        )
    parts.append(sharding_line(report.get("sharding")))
    t = report["throughput"]
    if "error" in t:
        parts.append(f"throughput: FAILED to run: {t['error']}")
        parts.append(f"total {report['seconds']:.0f} s")
        return "\n\n".join(parts)
    s = t["sizes"]
    m = t["model"]
    parts.append(
        f"throughput: Qwen3 d={m['hidden_size']} x {m['num_hidden_layers']} layers, {m['num_attention_heads']}/{m['num_key_value_heads']} heads of "
        f"{m['head_dim']}, ff {m['intermediate_size']}, vocab {m['vocab_size']} ({t['parameters'] / 1e6:.0f}M parameters, random); "
        f"{s['rows']} sequences of {s['prompt']} + {s['response']} tokens; micro-batches of <= {s['score_tokens']} (log-prob) / "
        f"{s['update_tokens']} (update) tokens; FLOPs per token {t['flops']['score'] / t['tokens'] / 1e9:.3g} G (log-prob), "
        f"{t['flops']['update'] / t['tokens'] / 1e9:.3g} G (update; LoRA counts 2x the forward)\n"
        + table(["pass", "ms (first call)", "ms (best)", "ms (median)", "tokens/s", "TFLOP/s", "MFU", "peak memory GiB"], [pass_row(r) for r in t["rows"]])
    )
    for key, title in (("profile_update", ""), ("profile_update_compiled", ", torch.compile")):
        if key in t:
            parts.append(
                f"where one update micro-batch spends its time (self time per op{title}):\n"
                + table(["op", "ms", "share", "calls"], [[p["op"][:60], f"{p['ms']:.2f}", fraction(p["share"]), str(p["calls"])] for p in t[key]])
            )
    parts.append(f"total {report['seconds']:.0f} s")
    return "\n\n".join(parts)


def sharding_line(sharding: Any) -> str:
    if sharding is None or isinstance(sharding, str):
        return f"sharding: {sharding or 'not run'}"
    if "ran" not in sharding:
        return f"sharding: FAILED to run: {sharding['error']}"
    if sharding["skipped"] == sharding["ran"]:
        return f"sharding (FSDP2, two CPU processes over gloo): skipped: {'; '.join(sharding['skip_reasons'])}"
    verdicts = ", ".join(f"{name} {verdict}" for name, verdict in sharding["tests"])
    return f"sharding (FSDP2, two CPU processes over gloo, against one process): {verdicts}; {sharding['seconds']:.0f} s; {'ok' if sharding['ok'] else 'FAILED'}"


def pass_row(r: Dict[str, Any]) -> List[str]:
    if "error" in r:
        return [r["pass"], r["error"], "", "", "", "", "", ""]
    memory = num(r.get("peak_memory_gib"), ".2f")
    return [r["pass"], f"{r['first_ms']:.0f}", f"{r['best_ms']:.1f}", f"{r['median_ms']:.1f}", f"{r['tokens_per_s']:.0f}", f"{r['tflops']:.3g}", fraction(r["mfu"]), memory]


def attempt(part: Callable[[], Any]) -> Any:
    """A part of the check, or {"error": ...} when it fails: the other parts still run and report."""
    try:
        return part()
    except Exception as err:  # noqa: BLE001
        traceback.print_exc(file=sys.stderr)
        return {"error": f"{type(err).__name__}: {err}"}


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="infra/gpu/check.sh")
    parser.add_argument("out_dir")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, any device: proves the script runs")
    parser.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    parser.add_argument("--rows", type=int, help="sequences per step")
    parser.add_argument("--seconds", type=float, help="timed seconds per pass (at least 3 calls)")
    parser.add_argument("--update-tokens", type=int, help="token budget of an update micro-batch")
    parser.add_argument("--score-tokens", type=int, help="token budget of a log-prob micro-batch")
    parser.add_argument("--skip-parity", action="store_true", help="skip the parity rows")
    parser.add_argument("--skip-sharding", action="store_true", help="skip the FSDP2 sharding tests (two CPU processes over gloo)")
    parser.add_argument("--no-gradient-checkpointing", action="store_true", help="skip the update row with gradient checkpointing")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    name = ("cuda" if torch.cuda.is_available() else "cpu") if args.device == "auto" else args.device
    device = torch.device("cuda", torch.cuda.current_device()) if name == "cuda" else torch.device("cpu")
    base = default_sizes(args.smoke)
    sizes = Sizes(
        rows=args.rows or base.rows,
        prompt=base.prompt,
        response=base.response,
        score_tokens=args.score_tokens or base.score_tokens,
        update_tokens=args.update_tokens or base.update_tokens,
        seconds=base.seconds if args.seconds is None else args.seconds,
    )
    env = versions()
    env["device_name"] = torch.cuda.get_device_name(device) if device.type == "cuda" else f"CPU ({os.cpu_count()} cores, {torch.get_num_threads()} torch threads)"
    if device.type == "cuda":
        matmul = matmul_peak([(256, 256, 256)] if args.smoke else [(8192, 8192, 8192)], 0.0 if args.smoke else 1.0, device, torch.bfloat16)
    else:
        matmul = matmul_peak([(256, 256, 256)] if args.smoke else [(1024, 1024, 1024)], 0.0 if args.smoke else 1.0, device)
    peak = card_peak(device, matmul["gflops"] * 1e9)
    if peak["flops"] is None:
        peak["flops"] = matmul["gflops"] * 1e9
    report: Dict[str, Any] = {"smoke": args.smoke, "environment": env, "matmul": matmul, "peak": peak}
    report["parity"] = "skipped (--skip-parity)" if args.skip_parity else attempt(lambda: run_parity(device, args.smoke))
    report["serve"] = attempt(lambda: run_serve_check(device))
    report["throughput"] = attempt(lambda: run_throughput(device, args.smoke, sizes, peak, not args.no_gradient_checkpointing))
    report["sharding"] = "skipped (--skip-sharding)" if args.skip_sharding else attempt(run_sharding_check)
    report["seconds"] = time.perf_counter() - started
    os.makedirs(args.out_dir, exist_ok=True)
    with open(os.path.join(args.out_dir, "gpu-check.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=2)
    print(summary(report), flush=True)
    return 1 if failures(report) else 0


def failures(report: Dict[str, Any]) -> List[str]:
    """What failed: a parity row, a part that did not run, a pass that did not run."""
    parity, throughput = report["parity"], report["throughput"]
    parts = ("parity", "serve", "throughput", "sharding")
    out = [f"{part}: {report[part]['error']}" for part in parts if isinstance(report.get(part), dict) and "error" in report[part]]
    if "ok" in report["serve"] and not report["serve"]["ok"]:
        out.append("serve: a figure is out of bounds")
    if isinstance(parity, list):
        out += [f"parity: {r['architecture']}" for r in parity if not (r["fp32_ok"] and r.get("bf16_ok", True))]
    if "rows" in throughput:
        out += [f"{r['pass']}: {r['error']}" for r in throughput["rows"] if "error" in r]
    for f in out:
        print(f"FAILED {f}", file=sys.stderr)
    return out


if __name__ == "__main__":
    sys.exit(main())
