"""Engine-side timing for the benches (test/bench/engines-bench.ts on CPU,
infra/gpu/check.py on a GPU): the matmul peak, the log-prob pass and the update
pass (forward + backward + AdamW) of a model, the analytic FLOPs of those
passes, and where a step spends its time by op.

  python -m rl_torch_engine.bench peak [--seconds S] [--shapes MxKxN,...] [--threads N]
  python -m rl_torch_engine.bench passes --model DIR --rows N --prompt P --response R [--seconds S] [--threads N] [--profile]
Each prints one JSON object on stdout (passes: in process, on the CPU, without the
child's frames)."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch

from .config import ModelSpec
from .model import CausalLM, load_model_dir
from .scoring import DEFAULT_MAX_TOKENS, Pair, blocks, score_pairs
from .training import OptimizerSpec, Trainer


@dataclass(frozen=True)
class Timing:
    first_ms: float  # the first call (allocation, autotuning) timed apart
    best_ms: float
    median_ms: float
    cpu_ms: float  # the least CPU time of a call, all threads of this process (host time only on CUDA)
    calls: int

    def as_dict(self) -> Dict[str, float]:
        return {"first_ms": self.first_ms, "best_ms": self.best_ms, "median_ms": self.median_ms, "cpu_ms": self.cpu_ms, "calls": self.calls}


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def measure(run: Callable[[], object], seconds: float, device: torch.device, min_calls: int = 3) -> Timing:
    """The first call apart, then calls for `seconds` (at least `min_calls`): the fastest (least
    disturbed on a shared machine) and the median."""
    _sync(device)
    t0 = time.perf_counter()
    run()
    _sync(device)
    first = time.perf_counter() - t0
    times: List[float] = []
    cpu: List[float] = []
    started = time.perf_counter()
    while time.perf_counter() - started < seconds or len(times) < min_calls:
        c = time.process_time()
        t = time.perf_counter()
        run()
        _sync(device)
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return Timing(1e3 * first, 1e3 * min(times), 1e3 * statistics.median(times), 1e3 * min(cpu), len(times))


def matmul_peak(shapes: Sequence[Tuple[int, int, int]], seconds: float, device: torch.device, dtype: torch.dtype = torch.float32) -> Dict[str, object]:
    """Best GFLOP/s of one [m,k] x [k,n] product per shape by wall time (and by CPU time), and the best of them."""
    rows = []
    for m, k, n in shapes:
        a = torch.randn(m, k, device=device, dtype=dtype)
        b = torch.randn(k, n, device=device, dtype=dtype)
        t = measure(lambda: torch.matmul(a, b), seconds, device)
        rows.append({"shape": [m, k, n], "gflops": 2 * m * k * n / t.best_ms / 1e6, "cpu_gflops": 2 * m * k * n / max(t.cpu_ms, 1e-6) / 1e6})
    best = max(rows, key=lambda r: float(r["gflops"]))  # type: ignore[arg-type]
    cpu_best = max(float(r["cpu_gflops"]) for r in rows)  # type: ignore[arg-type]
    return {"gflops": best["gflops"], "shape": best["shape"], "cpu_gflops": cpu_best, "shapes": rows, "dtype": str(dtype).replace("torch.", "")}


# The FLOP count of shared/policy/src/model/flops.ts (matmuls only: projections, QK^T and AV over
# the padded keys, the head on the scored columns); test/gpu-check.test.ts holds the two equal.
def forward_flops(spec: ModelSpec, rows: int, queries: int, keys: int, head_columns: int) -> int:
    d, f = spec.hidden_size, spec.intermediate_size
    q = spec.num_heads * spec.head_dim
    kv = spec.num_kv_heads * spec.head_dim
    projections = 2 * d * (q + 2 * kv + 2 * f) + 2 * q * d + 2 * f * d
    attention = 2 * 2 * keys * q
    return spec.num_layers * rows * queries * (projections + attention) + 2 * rows * head_columns * d * spec.vocab_size


def score_flops(spec: ModelSpec, rows: int, prompt_width: int, response_width: int) -> int:
    t = prompt_width + response_width
    return forward_flops(spec, rows, t, t, response_width)


def train_flops(spec: ModelSpec, rows: int, prompt_width: int, response_width: int) -> int:
    return 3 * score_flops(spec, rows, prompt_width, response_width)


def random_pairs(count: int, prompt: int, response: int, vocab: int, seed: int = 1) -> List[Pair]:
    """`count` pairs of exactly `prompt` and `response` random token ids (no padding, so the FLOPs are exact)."""
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, vocab, (count, prompt + response), generator=g).tolist()
    return [(row[:prompt], row[prompt:]) for row in ids]


class UpdatePass:
    """One optimizer step over `pairs` as the worker drives the engine (training.Trainer): per
    micro-batch of at most `max_tokens` padded tokens a forward that keeps the graph (log-probs and
    entropies), the gradient of a token-mean policy-gradient loss with fixed random advantages
    handed back (the worker computes the real loss in TypeScript, elementwise over the same leaves),
    backward; then clipping and AdamW (Trainer.step)."""

    def __init__(self, model: CausalLM, pairs: Sequence[Pair], max_tokens: int, lr: float = 1e-5, seed: int = 1) -> None:
        self.trainer = Trainer(model, OptimizerSpec(lr=lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01, max_grad_norm=1.0), max_tokens)
        self.batches = [pairs[start:end] for start, end in blocks(pairs, max_tokens)]
        tokens = sum(len(r) for _, r in pairs)
        g = torch.Generator().manual_seed(seed)
        self.grads = [-torch.randn(sum(len(r) for _, r in batch), generator=g) / tokens for batch in self.batches]

    def __call__(self) -> None:
        for batch, grad in zip(self.batches, self.grads):
            self.trainer.forward(batch, ("logprobs", "entropies"))
            self.trainer.backward({"logprobs": grad})
        self.trainer.step(None)


def time_passes(model: CausalLM, pairs: Sequence[Pair], seconds: float, score_tokens: int = DEFAULT_MAX_TOKENS, update_tokens: int = DEFAULT_MAX_TOKENS) -> Dict[str, Dict[str, float]]:
    """Timings of the log-prob pass (score_pairs, as the serve op runs it) and of the update pass over `pairs`."""
    device = model.model.embed_tokens.weight.device
    score = measure(lambda: score_pairs(model, pairs, max_tokens=score_tokens), seconds, device)
    update = measure(UpdatePass(model, pairs, update_tokens), seconds, device)
    return {"score": score.as_dict(), "update": update.as_dict()}


def profile_ops(run: Callable[[], object], device: torch.device, top: int = 12) -> List[Dict[str, Any]]:
    """The ops of one call of `run` that take the most self time (device time on CUDA), after a warm call."""
    from torch.profiler import ProfilerActivity, profile

    run()
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device.type == "cuda" else [])
    with profile(activities=activities) as prof:
        run()
        _sync(device)
    key = "self_device_time_total" if device.type == "cuda" else "self_cpu_time_total"
    timed = [(e.key, float(getattr(e, key, None) or getattr(e, "self_cuda_time_total", 0.0) or 0.0), e.count) for e in prof.key_averages()]
    total = sum(t for _, t, _ in timed) or 1.0
    timed.sort(key=lambda x: -x[1])
    return [{"op": k, "ms": t / 1e3, "share": t / total, "calls": c} for k, t, c in timed[:top]]


def _shape(text: str) -> Tuple[int, int, int]:
    m, k, n = (int(v) for v in text.lower().split("x"))
    return m, k, n


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rl_torch_engine.bench")
    parser.add_argument("command", choices=["peak", "passes"])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--threads", type=int, default=0, help="torch.set_num_threads (0: torch's default)")
    parser.add_argument("--shapes", default="1024x1024x1024")
    parser.add_argument("--model")
    parser.add_argument("--rows", type=int, default=32)
    parser.add_argument("--prompt", type=int, default=64)
    parser.add_argument("--response", type=int, default=64)
    parser.add_argument("--profile", action="store_true", help="passes: also the ops of one update step that take the most time")
    args = parser.parse_args(argv)
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    cpu = torch.device("cpu")
    out: Dict[str, object] = {"torch": torch.__version__, "threads": torch.get_num_threads()}
    if args.command == "peak":
        out["peak"] = matmul_peak([_shape(s) for s in args.shapes.split(",")], args.seconds, cpu)
    else:
        if not args.model:
            parser.error("passes: --model DIR is required")
        torch.manual_seed(1)
        model = load_model_dir(args.model, cpu)
        pairs = random_pairs(args.rows, args.prompt, args.response, model.spec.vocab_size)
        out.update(time_passes(model, pairs, args.seconds))
        if args.profile:
            out["profile_update"] = profile_ops(UpdatePass(model, pairs, DEFAULT_MAX_TOKENS), cpu)
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
