"""Teacher-forced log-probs and entropies of response tokens given their prompts.
Each row is its prompt then its response then padding on the right, so causal
attention alone is exact for the real tokens and the fused attention kernels
that take no mask (flash, cuDNN) run; positions count from the prompt's first
token, as in verl's left-padded layout. The head and softmax are in fp32."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, List, Sequence, Tuple

import torch

from .model import CausalLM

Pair = Tuple[Sequence[int], Sequence[int]]
# The per-token values an engine answers (and takes gradients for).
LEAVES = ("logprobs", "entropies", "values")

# Tokens one forward pass holds at most (rows x padded width); larger requests run in micro-batches.
DEFAULT_MAX_TOKENS = 16384


def autocast(device: torch.device) -> torch.autocast:
    """bf16 compute on CUDA (fp32 weights, as verl's FSDP mixed precision); fp32 elsewhere."""
    return torch.autocast(device_type=device.type, dtype=torch.bfloat16, enabled=device.type == "cuda")


def check_pairs(pairs: Sequence[Pair]) -> None:
    for i, (prompt, _) in enumerate(pairs):
        if len(prompt) == 0:
            raise ValueError(f"pairs[{i}]: the prompt is empty (the first response token needs one before it)")


def blocks(pairs: Sequence[Pair], max_tokens: int) -> List[Tuple[int, int]]:
    """Consecutive [start, end) runs of pairs whose padded block (rows x the longest prompt + response)
    stays within max_tokens; a single pair longer than that runs alone."""
    out: List[Tuple[int, int]] = []
    start = 0
    while start < len(pairs):
        end = start + 1
        width = len(pairs[start][0]) + len(pairs[start][1])
        while end < len(pairs):
            w2 = max(width, len(pairs[end][0]) + len(pairs[end][1]))
            if (end - start + 1) * w2 > max(max_tokens, width):
                break
            width, end = w2, end + 1
        out.append((start, end))
        start = end
    return out


@dataclass
class Block:
    """One padded micro-batch on the device: ids [B, W] (prompt, response, padding), the index of the state
    that predicts each response token [B, R] (prompt length - 1 + t; padding's points at the last column),
    the response tokens [B, R], and the mask of real response tokens [B, R]."""

    ids: torch.Tensor
    state_index: torch.Tensor
    targets: torch.Tensor
    response_mask: torch.Tensor


def pack(pairs: Sequence[Pair], device: torch.device) -> Block:
    width = max(len(p) + len(r) for p, r in pairs)
    r_max = max(1, max(len(r) for _, r in pairs))
    b = len(pairs)
    ids = torch.zeros(b, width, dtype=torch.long)
    index = torch.full((b, r_max), width - 1, dtype=torch.long)
    targets = torch.zeros(b, r_max, dtype=torch.long)
    response_mask = torch.zeros(b, r_max, dtype=torch.bool)
    for i, (prompt, response) in enumerate(pairs):
        lp, lr = len(prompt), len(response)
        row = torch.tensor(list(prompt) + list(response), dtype=torch.long)
        ids[i, : lp + lr] = row
        if lr:
            index[i, :lr] = torch.arange(lp - 1, lp - 1 + lr)
            targets[i, :lr] = row[lp:]
            response_mask[i, :lr] = True
    return Block(ids.to(device), index.to(device), targets.to(device), response_mask.to(device))


def response_states(model: CausalLM, block: Block) -> torch.Tensor:
    """Final-norm hidden states [B, R, D] (fp32) of the positions that predict the response tokens."""
    with autocast(block.ids.device):
        hidden = model.model(block.ids)
    index = block.state_index[..., None].expand(-1, -1, hidden.shape[-1])
    return hidden.gather(1, index).float()


def _logp_and_entropy(logits: torch.Tensor, targets: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    logp = torch.log_softmax(logits.float(), dim=-1)
    return logp.gather(-1, targets[..., None])[..., 0], -(logp.exp() * logp).sum(-1)


_compiled_logp_and_entropy = None


def _logp_and_entropy_of(model: CausalLM) -> Callable[[torch.Tensor, torch.Tensor], Tuple[torch.Tensor, torch.Tensor]]:
    """The compiled softmax (one fused pass over the vocabulary, as verl compiles logprobs_from_logits) for a
    compiled model."""
    global _compiled_logp_and_entropy
    if not getattr(model, "compiled", False):
        return _logp_and_entropy
    if _compiled_logp_and_entropy is None:
        _compiled_logp_and_entropy = torch.compile(_logp_and_entropy, dynamic=True)
    return _compiled_logp_and_entropy


def token_logprobs_and_entropy(model: CausalLM, states: torch.Tensor, block: Block) -> Tuple[torch.Tensor, torch.Tensor]:
    """[B, R] log-probs of the response tokens and entropies of their distributions, the softmax in fp32.
    The head's matmul runs under the same autocast as the model (bf16 on CUDA, as verl's FSDP actor
    computes its logits): in fp32 it is a sixth of a 0.6B model's FLOPs at a fraction of the bf16 rate."""
    with autocast(states.device):
        logits = torch.nn.functional.linear(states, model.head_weight())
    return _logp_and_entropy_of(model)(logits, block.targets)


# The key of compute_leaves's padding term (sharded engines, pad_blocks): a differentiable scalar, not a leaf.
PAD = "_pad"
# The padding micro-batch: one prompt token and one response token.
PAD_PAIR: Pair = ([0], [0])


def block_leaves(model: CausalLM, block: Block, leaves: Sequence[str]) -> Dict[str, torch.Tensor]:
    """One micro-batch's leaves, flat over its real response tokens."""
    states = response_states(model, block)
    out: Dict[str, torch.Tensor] = {}
    if "logprobs" in leaves or "entropies" in leaves:
        logp, entropy = token_logprobs_and_entropy(model, states, block)
        if "logprobs" in leaves:
            out["logprobs"] = logp[block.response_mask]
        if "entropies" in leaves:
            out["entropies"] = entropy[block.response_mask]
    if "values" in leaves:
        head = model.score
        values = torch.nn.functional.linear(states, head.weight.float(), head.bias.float())[..., 0]
        out["values"] = values[block.response_mask]
    return out


def run_block(model: CausalLM, block: Block, leaves: Sequence[str]) -> Dict[str, torch.Tensor]:
    """block_leaves, through the model's block runner when it has one (a sharded model gathers the parameters
    outside its decoder layers around this call: sharding.py)."""
    runner = getattr(model, "block_runner", None)
    return block_leaves(model, block, leaves) if runner is None else runner(block_leaves, block, leaves)


def compute_leaves(model: CausalLM, pairs: Sequence[Pair], leaves: Sequence[str], max_tokens: int, pad_blocks: int = 0) -> Dict[str, torch.Tensor]:
    """Flat fp32 leaves on the model's device (pair after pair, response tokens only), differentiable when
    grad is enabled: log-probs and entropies of the response tokens, values of the states before them.
    pad_blocks more micro-batches of PAD_PAIR run after the real ones, their leaves summed under PAD (a
    sharded model's ranks must run equally many forward and backward passes)."""
    check_pairs(pairs)
    if "values" in leaves and not model.spec.value_head:
        raise ValueError("values asked of a model without a value head (not a critic)")
    device = model.model.embed_tokens.weight.device
    parts: Dict[str, List[torch.Tensor]] = {name: [] for name in leaves}
    for start, end in blocks(pairs, max_tokens):
        for name, t in run_block(model, pack(pairs[start:end], device), leaves).items():
            parts[name].append(t)
    out = {name: torch.cat(ts) if ts else torch.empty(0, device=device) for name, ts in parts.items()}
    if pad_blocks > 0:
        pad = [t.sum() for _ in range(pad_blocks) for t in run_block(model, pack([PAD_PAIR], device), leaves).values()]
        out[PAD] = torch.stack(pad).sum()
    return out


@torch.no_grad()
def score_pairs(model: CausalLM, pairs: Sequence[Pair], max_tokens: int = DEFAULT_MAX_TOKENS) -> List[Tuple[torch.Tensor, torch.Tensor]]:
    """Per pair: (log p(response[t] | prompt, response[<t]), entropy of that distribution), fp32 on CPU."""
    check_pairs(pairs)
    out: List[Tuple[torch.Tensor, torch.Tensor]] = []
    device = model.model.embed_tokens.weight.device
    for start, end in blocks(pairs, max_tokens):
        part = pairs[start:end]
        block = pack(part, device)
        token_logp, entropy = token_logprobs_and_entropy(model, response_states(model, block), block)
        token_logp, entropy = token_logp.cpu(), entropy.cpu()
        out.extend((token_logp[i, : len(r)].clone(), entropy[i, : len(r)].clone()) for i, (_, r) in enumerate(part))
    return out
