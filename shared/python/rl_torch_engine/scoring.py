"""Teacher-forced log-probs and entropies of response tokens given their prompts:
prompts left-padded, responses right-padded, position ids from the mask (the
layout verl's actor scores), the head and softmax in fp32."""

from __future__ import annotations

from typing import List, Sequence, Tuple

import torch

from .model import CausalLM

Pair = Tuple[Sequence[int], Sequence[int]]

# Tokens one forward pass holds at most (rows x padded width); larger requests run in micro-batches.
DEFAULT_MAX_TOKENS = 16384


def _autocast(device: torch.device) -> torch.autocast:
    """bf16 compute on CUDA (fp32 weights, as verl's FSDP mixed precision); fp32 elsewhere."""
    return torch.autocast(device_type=device.type, dtype=torch.bfloat16, enabled=device.type == "cuda")


@torch.no_grad()
def score_pairs(model: CausalLM, pairs: Sequence[Pair], max_tokens: int = DEFAULT_MAX_TOKENS) -> List[Tuple[torch.Tensor, torch.Tensor]]:
    """Per pair: (log p(response[t] | prompt, response[<t]), entropy of that distribution), fp32 on CPU."""
    for i, (prompt, _) in enumerate(pairs):
        if len(prompt) == 0:
            raise ValueError(f"pairs[{i}]: the prompt is empty (the first response token needs one before it)")
    out: List[Tuple[torch.Tensor, torch.Tensor]] = []
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
        out.extend(_score_block(model, pairs[start:end]))
        start = end
    return out


def _score_block(model: CausalLM, pairs: Sequence[Pair]) -> List[Tuple[torch.Tensor, torch.Tensor]]:
    device = model.model.embed_tokens.weight.device
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
    ids, mask, positions = ids.to(device), mask.to(device), positions.to(device)
    with _autocast(device):
        hidden = model.model(ids, mask, positions)
    # Position p_max - 1 + t predicts response token t.
    h = hidden[:, p_max - 1 : p_max - 1 + r_max].float()
    logits = torch.nn.functional.linear(h, model.head_weight().float())
    logp = torch.log_softmax(logits, dim=-1)
    targets = ids[:, p_max : p_max + r_max]
    token_logp = logp.gather(-1, targets[..., None])[..., 0]
    entropy = -(logp.exp() * logp).sum(-1)
    token_logp, entropy = token_logp.cpu(), entropy.cpu()
    return [(token_logp[i, : len(r)].clone(), entropy[i, : len(r)].clone()) for i, (_, r) in enumerate(pairs)]
