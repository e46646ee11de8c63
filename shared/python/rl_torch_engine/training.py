"""The training side: a forward pass that keeps its autograd graph and answers
per-token log-probs, entropies and values (the leaves a loss reads); a backward
pass from the gradient of the loss with respect to those leaves (the loss itself
is computed by the caller); and an AdamW step with global-norm clipping
(torch.optim.AdamW and clip_grad_norm_, as verl's FSDP actor uses them; fp32
state whatever the compute precision)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import torch

from .model import CausalLM
from .scoring import DEFAULT_MAX_TOKENS, PAD, Pair, compute_leaves


@dataclass(frozen=True)
class OptimizerSpec:
    lr: float
    betas: Tuple[float, float]
    eps: float
    weight_decay: float
    max_grad_norm: float


def parse_optimizer(raw: Any) -> OptimizerSpec:
    """The open request's `optimizer` ({lr, betas, eps, weight_decay, max_grad_norm}, the defaults of
    shared/policy/src/training/optimizer.ts); a bad value raises ValueError naming the field."""
    if not isinstance(raw, dict):
        raise ValueError("open: optimizer must be an object {lr, betas, eps, weight_decay, max_grad_norm}")
    unknown = sorted(set(raw) - {"lr", "betas", "eps", "weight_decay", "max_grad_norm"})
    if unknown:
        raise ValueError(f"open: optimizer.{unknown[0]} is not a setting (lr, betas, eps, weight_decay, max_grad_norm)")

    def number(key: str, default: Optional[float], ok: Any, rule: str) -> float:
        v = raw.get(key, default)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not ok(v):
            raise ValueError(f"open: optimizer.{key} must be {rule} (got {v!r})")
        return float(v)

    betas = raw.get("betas", [0.9, 0.999])
    if not isinstance(betas, list) or len(betas) != 2 or not all(isinstance(b, (int, float)) and not isinstance(b, bool) and 0 <= b < 1 for b in betas):
        raise ValueError(f"open: optimizer.betas must be two numbers in [0, 1) (got {betas!r})")
    return OptimizerSpec(
        lr=number("lr", None, lambda v: v > 0, "a positive number"),
        betas=(float(betas[0]), float(betas[1])),
        eps=number("eps", 1e-8, lambda v: v > 0, "a positive number"),
        weight_decay=number("weight_decay", 0.01, lambda v: v >= 0, "a number >= 0"),
        max_grad_norm=number("max_grad_norm", 1.0, lambda v: v >= 0, "a number >= 0 (0: no clipping)"),
    )


class Trainer:
    """Owns the trainable parameters' gradients and AdamW state for one model."""

    def __init__(self, model: CausalLM, spec: OptimizerSpec, max_tokens: int = DEFAULT_MAX_TOKENS, sharded: bool = False) -> None:
        self.model = model
        self.spec = spec
        self.max_tokens = max_tokens
        self.params: Dict[str, torch.nn.Parameter] = {n: p for n, p in model.named_parameters() if p.requires_grad}
        if not self.params:
            raise ValueError("open: the model has no trainable parameters")
        params = list(self.params.values())
        # The fused CUDA kernel (torch >= 2) does the update of every parameter in a few launches; same arithmetic.
        # Sharded (DTensor) parameters take the multi-tensor path, the one checked against a single process.
        fused_ok = not sharded and params[0].device.type == "cuda" and "fused" in torch.optim.AdamW.__init__.__code__.co_varnames
        fused = {"fused": True} if fused_ok else {}
        self.optimizer = torch.optim.AdamW(params, lr=spec.lr, betas=spec.betas, eps=spec.eps, weight_decay=spec.weight_decay, **fused)
        self.steps = 0
        self.accumulated = False
        self._pending: Optional[Dict[str, torch.Tensor]] = None
        # With more than one process (distributed.py): sums each gradient over the ranks before clipping.
        self.reduce_grads: Optional[Callable[[Sequence[torch.Tensor]], None]] = None
        # Sharded (sharding.py): every rank differentiates every forward, zero gradients included, since the
        # gradient reduce-scatters run inside the backward pass and wait for every rank.
        self.sharded = sharded
        # A moment or weight as a whole tensor (sharded: gathered from every rank), and back into a parameter's layout.
        self.whole: Optional[Callable[[torch.Tensor], torch.Tensor]] = None
        self.place: Optional[Callable[[torch.Tensor, torch.Tensor], torch.Tensor]] = None

    def forward(self, pairs: Sequence[Pair], leaves: Sequence[str], pad_blocks: int = 0) -> Dict[str, torch.Tensor]:
        """Flat fp32 leaves (pair after pair, response tokens only); their graph is kept for backward().
        A pending graph from an earlier forward is dropped. pad_blocks: compute_leaves's padding passes."""
        self._pending = None
        try:
            pending = compute_leaves(self.model, pairs, leaves, self.max_tokens, pad_blocks)
        except ValueError as err:
            raise ValueError(f"forward: {err}") from None
        self._pending = pending
        return {name: t.detach().cpu() for name, t in pending.items() if name != PAD}

    def backward(self, grads: Mapping[str, torch.Tensor]) -> None:
        """Adds d(loss)/d(params) to .grad from d(loss)/d(leaf) of the pending forward, then frees its graph.
        A leaf without a gradient, or with an all-zero one, is not differentiated through; a gradient that is not
        finite is taken as it is (step() then skips the update, as the jax-js engine does for a NaN loss)."""
        pending = self._pending
        if pending is None:
            raise ValueError("backward: no forward is pending (each forward's graph serves one backward)")
        self._pending = None
        outputs: List[torch.Tensor] = []
        inputs: List[torch.Tensor] = []
        for name, g in grads.items():
            if name not in pending or name == PAD:
                raise ValueError(f"backward: {name} is not a leaf of the pending forward ({', '.join(pending)})")
            leaf = pending[name]
            if g.numel() != leaf.numel():
                raise ValueError(f"backward: {name} has {g.numel()} values, the forward answered {leaf.numel()}")
            if bool((g != 0).any()) or (self.sharded and leaf.requires_grad):
                outputs.append(leaf)
                inputs.append(g.reshape(leaf.shape).to(leaf.device, leaf.dtype))
        if self.sharded:
            for name, leaf in pending.items():
                if (name == PAD or name not in grads) and leaf.requires_grad:
                    outputs.append(leaf)
                    inputs.append(torch.zeros_like(leaf))
        if outputs:
            try:
                torch.autograd.backward(outputs, inputs)
            except BaseException:
                self.clear_grads()  # a backward that failed half way leaves partial sums
                raise
        self.accumulated = True

    def release(self) -> None:
        self._pending = None

    def clear_grads(self) -> None:
        self._pending = None
        self.accumulated = False
        self.optimizer.zero_grad(set_to_none=True)

    def step(self, lr: Optional[float]) -> Dict[str, Any]:
        """Clips and applies the accumulated gradients, then clears them. The norm reported is the global norm
        before clipping; a norm that is not finite skips the update (verl does the same)."""
        if not self.accumulated:
            raise ValueError("step: no gradients accumulated")
        self._pending = None
        params = list(self.params.values())
        # Weight decay reaches every parameter, as in the jax-js engine, even one no loss reached.
        for p in params:
            if p.grad is None:
                p.grad = torch.zeros_like(p)
        if self.reduce_grads is not None:
            self.reduce_grads([p.grad for p in params if p.grad is not None])
        max_norm = self.spec.max_grad_norm if self.spec.max_grad_norm > 0 else math.inf
        total = torch.nn.utils.clip_grad_norm_(params, max_norm)
        norm = float(total if self.whole is None else self.whole(total))  # sharded: the norm is a DTensor
        if not math.isfinite(norm):
            self.clear_grads()
            return {"grad_norm": norm, "skipped": True, "step": self.steps}
        for group in self.optimizer.param_groups:
            group["lr"] = self.spec.lr if lr is None else lr
        self.optimizer.step()
        self.clear_grads()
        self.steps += 1
        return {"grad_norm": norm, "skipped": False, "step": self.steps}
