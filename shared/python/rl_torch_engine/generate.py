"""Batched autoregressive sampling on the open model with a KV cache (the `generate` op).

Prompts are padded on the left to one width with an attention mask, and positions count from each prompt's
first token, so a row computes what it would alone; rows that finish leave the batch. Sampling has vLLM's
semantics, as the TypeScript sampler (shared/policy/src/generation/sampling.ts): temperature 0 or top_k 1
is greedy (ties to the lower id), otherwise temperature, then top-k, then top-p over the tempered
distribution; each token's reported log-prob is under the distribution before temperature. Every row draws
from its own seeded generator, so a row samples the same tokens in whatever batch it runs. bf16 compute on
CUDA, the head and softmax as scoring computes them (scoring.py); fp32 on the CPU. Stop strings are text
and stay with the caller; this stops rows on stop token ids (kept in the output) and on their budget."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Tuple

import torch

from .model import CausalLM, KVCache
from .scoring import autocast


@dataclass(frozen=True)
class Sampling:
    temperature: float
    top_k: int
    top_p: float
    max_tokens: int
    stop_token_ids: FrozenSet[int]

    @property
    def greedy(self) -> bool:
        return self.temperature == 0 or self.top_k == 1


@dataclass
class Row:
    """One prompt's continuation: its tokens, their log-probs, why it ended, and the stop id that ended it."""

    ids: List[int]
    logprobs: List[float]
    finish_reason: str = "length"
    stop_id: Optional[int] = None


def _number(header: Dict[str, Any], key: str, default: float) -> float:
    value = header.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"generate: {key} must be a finite number")
    return float(value)


def _integer(header: Dict[str, Any], key: str, default: Optional[int]) -> int:
    value = header.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"generate: {key} must be an integer")
    return value


def parse_sampling(header: Dict[str, Any], vocab_size: int) -> Sampling:
    """The request's sampling settings (vLLM's names); a bad one is a ValueError naming it."""
    temperature = _number(header, "temperature", 1.0)
    top_p = _number(header, "top_p", 1.0)
    top_k = _integer(header, "top_k", 0)
    if "max_tokens" not in header:
        raise ValueError("generate: max_tokens is missing")
    max_tokens = _integer(header, "max_tokens", None)
    if temperature < 0:
        raise ValueError("generate: temperature must be >= 0 (0 is greedy)")
    if not 0 < top_p <= 1:
        raise ValueError("generate: top_p must be in (0, 1]")
    if top_k < -1:
        raise ValueError("generate: top_k must be >= -1 (0 and -1: no top-k)")
    if max_tokens < 0:
        raise ValueError("generate: max_tokens must be >= 0")
    stop = header.get("stop_token_ids", [])
    if not isinstance(stop, list) or any(isinstance(t, bool) or not isinstance(t, int) or not 0 <= t < vocab_size for t in stop):
        raise ValueError(f"generate: stop_token_ids must be a list of token ids below the vocabulary size {vocab_size}")
    return Sampling(temperature, top_k, top_p, max_tokens, frozenset(stop))


def parse_prompts(tensors: Dict[str, torch.Tensor], vocab_size: int, max_len: int) -> List[List[int]]:
    """The prompts of I32 prompt_lengths [N] and ids [their sum]; each non-empty, in the vocabulary and within max_len."""
    for name in ("prompt_lengths", "ids"):
        if name not in tensors:
            raise ValueError(f"generate: tensor {name} is missing")
    lengths, ids = tensors["prompt_lengths"].tolist(), tensors["ids"]
    if min(lengths, default=0) < 0 or sum(lengths) != ids.numel():
        raise ValueError("generate: prompt_lengths do not add up to ids")
    flat = ids.tolist()
    out: List[List[int]] = []
    at = 0
    for i, n in enumerate(lengths):
        prompt = flat[at : at + n]
        at += n
        if n == 0:
            raise ValueError(f"generate: prompts[{i}] is empty")
        if n > max_len:
            raise ValueError(f"generate: prompts[{i}] has {n} tokens, more than max_position_embeddings ({max_len})")
        if min(prompt) < 0 or max(prompt) >= vocab_size:
            raise ValueError(f"generate: prompts[{i}] holds a token id outside the vocabulary (vocab_size {vocab_size})")
        out.append(prompt)
    return out


def parse_seeds(header: Dict[str, Any], tensors: Dict[str, torch.Tensor], rows: int) -> List[int]:
    """One seed per row: the row_seeds I32 tensor, or seed (default 0) mixed with the row's index."""
    if "row_seeds" in tensors:
        seeds = tensors["row_seeds"]
        if seeds.dtype != torch.int32 or seeds.numel() != rows:
            raise ValueError(f"generate: row_seeds must be an I32 tensor of one seed per prompt ({rows})")
        return [s & 0xFFFFFFFF for s in seeds.tolist()]
    seed = _integer(header, "seed", 0)
    return [(seed * 0x9E3779B1 + i) & 0xFFFFFFFFFFFF for i in range(rows)]


def row_budget(max_tokens: int, prompt_length: int, max_len: int) -> int:
    """Tokens a row may generate: max_tokens, cut where the sequence would pass the model's positions (as the
    embedded jax-js policy's budget is cut; the row then ends with finish reason length)."""
    return max(0, min(max_tokens, max_len - prompt_length))


def chunks(prompts: Sequence[Sequence[int]], budgets: Sequence[int], max_tokens: int) -> List[List[int]]:
    """Consecutive rows whose cache (rows x (widest prompt + longest budget)) stays within max_tokens; a row
    larger than that runs alone. Rows with no budget are in none."""
    out: List[List[int]] = []
    current: List[int] = []
    width = steps = 0
    for i, prompt in enumerate(prompts):
        if budgets[i] == 0:
            continue
        w, s = max(width, len(prompt)), max(steps, budgets[i])
        if current and (len(current) + 1) * (w + s) > max_tokens:
            out.append(current)
            current, w, s = [], len(prompt), budgets[i]
        current.append(i)
        width, steps = w, s
    if current:
        out.append(current)
    return out


def sample(logits: torch.Tensor, s: Sampling, generators: Sequence[torch.Generator]) -> Tuple[torch.Tensor, torch.Tensor]:
    """The next token of each row of fp32 logits [A, V] and its log-prob before temperature."""
    logp = torch.log_softmax(logits, dim=-1)
    if s.greedy:
        ids = logits.argmax(-1)  # the first maximum: ties go to the lower id
    elif s.top_k <= 0 and s.top_p >= 1:
        # Nothing is cut, so the order does not matter: no sort over the vocabulary (a tenth of a step at the demo's size).
        weights = torch.exp((logits - logits.max(-1, keepdim=True).values) / s.temperature)
        ids = _pick(weights, generators)
    else:
        # Ties in the order keep the lower id first (a stable sort), as the TypeScript sampler orders them.
        values, order = torch.sort(logits, dim=-1, descending=True, stable=True)
        weights = torch.exp((values - values[:, :1]) / s.temperature)
        if 0 < s.top_k < weights.shape[1]:
            weights[:, s.top_k :] = 0
        if s.top_p < 1:
            # A token stays while the mass strictly before it is below top_p (the first always does).
            before = weights.cumsum(-1) - weights
            weights = torch.where(before < s.top_p * weights.sum(-1, keepdim=True), weights, torch.zeros_like(weights))
        ids = order.gather(1, _pick(weights, generators)[:, None])[:, 0]
    return ids, logp.gather(1, ids[:, None])[:, 0]


def _pick(weights: torch.Tensor, generators: Sequence[torch.Generator]) -> torch.Tensor:
    """Per row of unnormalised weights [A, n], the index one uniform draw of the row's generator lands on."""
    cumulative = weights.cumsum(-1)
    u = torch.stack([torch.rand((), generator=g, dtype=torch.float64) for g in generators]).to(weights.device)
    pick = (cumulative <= (u[:, None] * cumulative[:, -1:])).sum(-1)
    # Rounding can reach past the last token with weight (a cut one, or the end).
    last = weights.shape[1] - 1 - (weights > 0).flip(-1).int().argmax(-1)
    return torch.minimum(pick, last)


def _next_logits(model: CausalLM, hidden: torch.Tensor) -> torch.Tensor:
    """fp32 logits [A, V] of final-norm states [A, D], the head under the model's autocast as scoring computes it."""
    with autocast(hidden.device):
        logits = torch.nn.functional.linear(hidden.float(), model.head_weight())
    return logits.float()


def _generate_chunk(model: CausalLM, prompts: Sequence[Sequence[int]], budgets: Sequence[int], s: Sampling, seeds: Sequence[int]) -> List[Row]:
    device = model.model.embed_tokens.weight.device
    b, width = len(prompts), max(len(p) for p in prompts)
    ids = torch.zeros(b, width, dtype=torch.long)
    mask = torch.zeros(b, width, dtype=torch.long)
    for i, p in enumerate(prompts):
        ids[i, width - len(p) :] = torch.tensor(list(p), dtype=torch.long)
        mask[i, width - len(p) :] = 1
    ids, mask = ids.to(device), mask.to(device)
    positions = (mask.cumsum(-1) - 1).clamp(min=0)
    next_position = mask.sum(-1)
    # The last sampled token is never fed back, so width + longest budget - 1 columns suffice.
    cache = KVCache(len(model.model.layers), width + max(budgets) - 1)
    generators = [torch.Generator().manual_seed(seed) for seed in seeds]
    rows = [Row([], []) for _ in prompts]
    live = list(range(b))  # the chunk rows still generating, in batch order
    with autocast(device):
        hidden = model.model(ids, mask, positions, cache)[:, -1]
    while True:
        token, logprob = sample(_next_logits(model, hidden), s, [generators[r] for r in live])
        keep: List[int] = []
        for j, (r, t, lp) in enumerate(zip(live, token.tolist(), logprob.tolist())):
            row = rows[r]
            row.ids.append(t)
            row.logprobs.append(lp)
            if t in s.stop_token_ids:
                row.finish_reason, row.stop_id = "stop", t
            elif len(row.ids) >= budgets[r]:
                row.finish_reason = "length"
            else:
                keep.append(j)
        if not keep:
            return rows
        if len(keep) < len(live):
            at = torch.tensor(keep, dtype=torch.long, device=device)
            cache.keep_rows(at)
            mask, next_position, token = mask[at], next_position[at], token[at]
            live = [live[j] for j in keep]
        mask = torch.cat([mask, torch.ones_like(mask[:, :1])], dim=1)
        with autocast(device):
            hidden = model.model(token[:, None], mask, next_position[:, None], cache)[:, -1]
        next_position = next_position + 1


@torch.no_grad()
def generate(model: CausalLM, prompts: Sequence[Sequence[int]], s: Sampling, seeds: Sequence[int], max_tokens: int) -> List[Row]:
    """A continuation of every prompt, in order; `max_tokens` bounds rows x (prompt + budget) per batch."""
    max_len = model.spec.max_position_embeddings
    budgets = [row_budget(s.max_tokens, len(p), max_len) for p in prompts]
    out = [Row([], []) for _ in prompts]
    was_training = model.training
    model.eval()  # no dropout (a LoRA adapter's) while sampling
    try:
        for part in chunks(prompts, budgets, max_tokens):
            done = _generate_chunk(model, [prompts[i] for i in part], [budgets[i] for i in part], s, [seeds[i] for i in part])
            for i, row in zip(part, done):
                out[i] = row
    finally:
        model.train(was_training)
    return out
