"""Throughput of rl_torch_engine on a Qwen3-0.6B-sized model with random weights:
the log-prob pass (score_pairs) and the update pass (training.Trainer's forward,
backward and AdamW step, rl_torch_engine.bench.UpdatePass) over sequences of one
length split into micro-batches by a token budget, full and with LoRA r=16
(rl_torch_engine.lora on every linear layer), each with its peak memory and its
model FLOP utilisation against the card's bf16 dense peak. FLOPs are
shared/policy/src/model/flops.ts's count (rl_torch_engine.bench)."""

from __future__ import annotations

import contextlib
import math
import sys
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional

import torch

from rl_torch_engine.bench import UpdatePass, measure, profile_ops, random_pairs, score_flops, train_flops
from rl_torch_engine.config import parse_hf_config
from rl_torch_engine.lora import apply_lora
from rl_torch_engine.generate import Sampling, generate
from rl_torch_engine.model import CausalLM, can_compile, compile_model
from rl_torch_engine.scoring import score_pairs

# Qwen/Qwen3-0.6B's config.json, the sizes that matter.
QWEN3_0_6B: Dict[str, Any] = {
    "architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "vocab_size": 151936, "hidden_size": 1024,
    "intermediate_size": 3072, "num_hidden_layers": 28, "num_attention_heads": 16, "num_key_value_heads": 8,
    "head_dim": 128, "max_position_embeddings": 40960, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0,
    "tie_word_embeddings": True, "hidden_act": "silu",
}
SMOKE_MODEL: Dict[str, Any] = {**QWEN3_0_6B, "vocab_size": 512, "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16}
LORA = {"r": 16, "lora_alpha": 32, "target_modules": "all-linear"}

# Dense bf16 tensor-core peaks (NVIDIA's datasheets, without sparsity), by a name fragment.
BF16_PEAKS = (("H100 PCIe", 756e12), ("H100 NVL", 835e12), ("H100", 989e12), ("H200", 989e12))


@dataclass(frozen=True)
class Sizes:
    rows: int
    prompt: int
    response: int
    score_tokens: int  # token budget of a log-prob micro-batch
    update_tokens: int  # token budget of an update micro-batch
    seconds: float


def card_peak(device: torch.device, measured_bf16: Optional[float]) -> Dict[str, Any]:
    """The FLOP/s that MFU is counted against, and where that figure comes from."""
    if device.type != "cuda":
        return {"flops": None, "assumption": "no CUDA device: MFU is counted against this machine's measured fp32 matmul peak"}
    name = torch.cuda.get_device_name(device)
    for fragment, peak in BF16_PEAKS:
        if fragment in name:
            return {"flops": peak, "assumption": f"{name}: {peak / 1e12:.0f} TFLOP/s dense bf16 (SXM datasheet figure for H100/H200)"}
    return {"flops": measured_bf16, "assumption": f"{name}: unknown card, MFU counted against the measured bf16 matmul peak"}


def random_model(config: Dict[str, Any], device: torch.device, seed: int = 0) -> CausalLM:
    """The engine's model with N(0, 0.02) weights and unit norm gains, built on `device` (fp32 weights)."""
    torch.manual_seed(seed)
    spec = parse_hf_config(config)
    # Built on the device where torch allows it (torch >= 2): a 0.6B model's init on the CPU takes long.
    with device if hasattr(torch, "get_default_device") else contextlib.nullcontext():
        model = CausalLM(spec)
    model = model.to(device)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("norm.weight"):
                p.fill_(1.0)
            elif name.endswith(".bias"):
                p.zero_()
            else:
                p.normal_(0.0, 0.02)
    return model.eval()


def _phase(device: torch.device, run: Callable[[], object], seconds: float) -> Dict[str, Any]:
    """Timing and peak memory of `run`; a failure (out of memory: lower the token budgets) is a row saying so."""
    if device.type == "cuda":
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats(device)
    try:
        timing = measure(run, seconds, device).as_dict()
    except Exception as err:  # noqa: BLE001 - one failed pass (out of memory, say) is a row; the check goes on
        traceback.print_exc(file=sys.stderr)
        return {"error": f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"[:160]}
    if device.type == "cuda":
        timing["peak_memory_gib"] = torch.cuda.max_memory_allocated(device) / 2**30
    return timing


def _rate(row: Dict[str, Any], tokens: int, flops: float, peak: Optional[float]) -> Dict[str, Any]:
    if "best_ms" not in row:
        return row
    seconds = row["best_ms"] / 1e3
    row["tokens_per_s"] = tokens / seconds
    row["tflops"] = flops / seconds / 1e12
    row["mfu"] = flops / seconds / peak if peak else None
    return row


def profile_update(model: CausalLM, pairs: List[Any], sizes: Sizes, device: torch.device) -> List[Dict[str, Any]]:
    """Where one update micro-batch spends its device time, by op (a failure is one row saying so)."""
    batch = pairs[: max(1, sizes.update_tokens // (sizes.prompt + sizes.response))]
    try:
        return profile_ops(UpdatePass(model, batch, sizes.update_tokens), device)
    except Exception as err:  # noqa: BLE001 - out of memory, say: the rows measured stay
        traceback.print_exc(file=sys.stderr)
        return [{"op": f"profile failed: {type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"[:160], "ms": 0.0, "share": 0.0, "calls": 0}]


def run_throughput(device: torch.device, smoke: bool, sizes: Sizes, peak: Dict[str, Any], gradient_checkpointing: bool) -> Dict[str, Any]:
    config = SMOKE_MODEL if smoke else QWEN3_0_6B
    model = random_model(config, device)
    spec = model.spec
    pairs = random_pairs(sizes.rows, sizes.prompt, sizes.response, spec.vocab_size)
    tokens = sizes.rows * (sizes.prompt + sizes.response)
    forward = score_flops(spec, sizes.rows, sizes.prompt, sizes.response)
    train = train_flops(spec, sizes.rows, sizes.prompt, sizes.response)
    flops_peak = peak["flops"]
    out: Dict[str, Any] = {
        "model": {k: config[k] for k in ("hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "head_dim", "intermediate_size", "vocab_size")},
        "parameters": sum(p.numel() for p in model.parameters()),
        "sizes": sizes.__dict__,
        "tokens": tokens,
        "flops": {"score": forward, "update": train},
    }
    rows: List[Dict[str, Any]] = []

    def add(row: Dict[str, Any]) -> None:
        rows.append(row)
        print(f"measured: {row}", file=sys.stderr, flush=True)  # a check cut short still shows its rows

    def passes(suffix: str) -> None:
        score = _phase(device, lambda: score_pairs(model, pairs, max_tokens=sizes.score_tokens), sizes.seconds)
        add({"pass": f"log-prob{suffix}", **_rate(score, tokens, forward, flops_peak)})
        update = _phase(device, UpdatePass(model, pairs, sizes.update_tokens), sizes.seconds)
        add({"pass": f"update{suffix}", **_rate(update, tokens, train, flops_peak)})
        if gradient_checkpointing:
            model.model.gradient_checkpointing = True
            # Recomputation runs the forward twice; MFU counts the model's FLOPs once (forward + 2x backward), as usual.
            update_gc = _phase(device, UpdatePass(model, pairs, sizes.update_tokens), sizes.seconds)
            add({"pass": f"update, gradient checkpointing{suffix}", **_rate(update_gc, tokens, train, flops_peak)})
            model.model.gradient_checkpointing = False

    def lora_pass(suffix: str, compiled: bool) -> None:
        nonlocal model
        model = None  # type: ignore[assignment]  # one 0.6B model on the device at a time
        if device.type == "cuda":
            torch.cuda.empty_cache()
        model = random_model(config, device)
        apply_lora(model, dict(LORA))
        if compiled:
            compile_model(model)
        out["lora"] = dict(LORA, trainable_parameters=sum(p.numel() for p in model.parameters() if p.requires_grad))
        # Frozen base weights get no weight gradients: forward + input gradients, 2x forward (the adapters' FLOPs are left out).
        lora = _phase(device, UpdatePass(model, pairs, sizes.update_tokens), sizes.seconds)
        add({"pass": f"update, LoRA r={LORA['r']}{suffix}", **_rate(lora, tokens, 2 * forward, flops_peak)})

    passes("")
    # Rollouts on the engine (the generate op): the prompts of the pairs, greedy, no stop ids, KV cache.
    new_tokens = max(1, sizes.response // 6)
    sampling = Sampling(0.0, 0, 1.0, new_tokens, frozenset())
    prompts = [p for p, _ in pairs]
    gen = _phase(device, lambda: generate(model, prompts, sampling, [0] * len(prompts), sizes.score_tokens), sizes.seconds)
    if "best_ms" in gen:
        gen["tokens_per_s"] = len(prompts) * new_tokens / (gen["best_ms"] / 1e3)
        gen["tflops"], gen["mfu"] = 0.0, None
    add({"pass": f"generate {len(prompts)} x {new_tokens} new tokens (eager, tokens/s = new tokens)", **gen})
    out["profile_update"] = profile_update(model, pairs, sizes, device)
    compiled = can_compile()
    if compiled:
        # verl's use_torch_compile: the first call of each pass (its "first_ms") includes compiling it.
        compile_model(model)
        passes(", torch.compile")
        out["profile_update_compiled"] = profile_update(model, pairs, sizes, device)
    lora_pass("", False)
    if compiled:
        lora_pass(", torch.compile", True)
    out["rows"] = rows
    return out


def default_sizes(smoke: bool) -> Sizes:
    if smoke:
        return Sizes(rows=4, prompt=16, response=48, score_tokens=128, update_tokens=128, seconds=0.0)
    return Sizes(rows=32, prompt=256, response=768, score_tokens=16384, update_tokens=8192, seconds=5.0)


def fraction(x: Optional[float]) -> str:
    return "-" if x is None or not math.isfinite(x) else f"{100 * x:.1f}%"
