"""Teacher-forced log-probs and entropies of response tokens given their prompts:
prompts left-padded, responses right-padded, position ids from the mask (the
layout verl's actor scores), the head and softmax in fp32."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Sequence, Tuple

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
    """Consecutive [start, end) runs of pairs whose padded block (rows x (longest prompt + longest
    response)) stays within max_tokens; a single pair longer than that runs alone."""
    out: List[Tuple[int, int]] = []
    start = 0
    while start < len(pairs):
        end = start + 1
        width = len(pairs[start][0]) + len(pairs[start][1])
        p_max, r_max = len(pairs[start][0]), len(pairs[start][1])
        while end < len(pairs):
            p2, r2 = max(p_max, len(pairs[end][0])), max(r_max, len(pairs[end][1]))
            if (end - start + 1) * (p2 + r2) > max(max_tokens, width):
                break
            p_max, r_max, end = p2, r2, end + 1
        out.append((start, end))
        start = end
    return out


@dataclass
class Block:
    """One padded micro-batch: ids, attention mask and positions [B, P + R] on the device, the
    prompt width P, the response width R, and the mask of real response tokens [B, R]."""

    ids: torch.Tensor
    mask: torch.Tensor
    positions: torch.Tensor
    p_max: int
    r_max: int
    response_mask: torch.Tensor


def pack(pairs: Sequence[Pair], device: torch.device) -> Block:
    p_max = max(len(p) for p, _ in pairs)
    r_max = max(1, max(len(r) for _, r in pairs))
    b = len(pairs)
    ids = torch.zeros(b, p_max + r_max, dtype=torch.long)
    mask = torch.zeros(b, p_max + r_max, dtype=torch.long)
    for i, (prompt, response) in enumerate(pairs):
        lp, lr = len(prompt), len(response)
        ids[i, p_max - lp : p_max] = torch.tensor(list(prompt), dtype=torch.long)
        if lr:
            ids[i, p_max : p_max + lr] = torch.tensor(list(response), dtype=torch.long)
        mask[i, p_max - lp : p_max + lr] = 1
    positions = (mask.cumsum(-1) - 1).clamp(min=0)
    response_mask = mask[:, p_max:].bool()
    return Block(ids.to(device), mask.to(device), positions.to(device), p_max, r_max, response_mask.to(device))


def response_states(model: CausalLM, block: Block) -> torch.Tensor:
    """Final-norm hidden states [B, R, D] (fp32) of the positions that predict the response tokens:
    position P - 1 + t predicts response token t."""
    with autocast(block.ids.device):
        hidden = model.model(block.ids, block.mask, block.positions)
    return hidden[:, block.p_max - 1 : block.p_max - 1 + block.r_max].float()


def token_logprobs_and_entropy(model: CausalLM, states: torch.Tensor, block: Block) -> Tuple[torch.Tensor, torch.Tensor]:
    """[B, R] log-probs of the response tokens and entropies of their distributions, the softmax in fp32.
    The head's matmul runs under the same autocast as the model (bf16 on CUDA, as verl's FSDP actor
    computes its logits): in fp32 it is a sixth of a 0.6B model's FLOPs at a fraction of the bf16 rate."""
    with autocast(states.device):
        logits = torch.nn.functional.linear(states, model.head_weight())
    logp = torch.log_softmax(logits.float(), dim=-1)
    targets = block.ids[:, block.p_max : block.p_max + block.r_max]
    token_logp = logp.gather(-1, targets[..., None])[..., 0]
    entropy = -(logp.exp() * logp).sum(-1)
    return token_logp, entropy


def compute_leaves(model: CausalLM, pairs: Sequence[Pair], leaves: Sequence[str], max_tokens: int) -> Dict[str, torch.Tensor]:
    """Flat fp32 leaves on the model's device (pair after pair, response tokens only), differentiable when
    grad is enabled: log-probs and entropies of the response tokens, values of the states before them."""
    check_pairs(pairs)
    if "values" in leaves and not model.spec.value_head:
        raise ValueError("values asked of a model without a value head (not a critic)")
    device = model.model.embed_tokens.weight.device
    parts: Dict[str, List[torch.Tensor]] = {name: [] for name in leaves}
    for start, end in blocks(pairs, max_tokens):
        block = pack(pairs[start:end], device)
        states = response_states(model, block)
        if "logprobs" in leaves or "entropies" in leaves:
            logp, entropy = token_logprobs_and_entropy(model, states, block)
            if "logprobs" in leaves:
                parts["logprobs"].append(logp[block.response_mask])
            if "entropies" in leaves:
                parts["entropies"].append(entropy[block.response_mask])
        if "values" in leaves:
            head = model.score
            values = torch.nn.functional.linear(states, head.weight.float(), head.bias.float())[..., 0]
            parts["values"].append(values[block.response_mask])
    return {name: torch.cat(ts) for name, ts in parts.items()}


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
