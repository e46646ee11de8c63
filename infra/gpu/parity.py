"""rl_torch_engine's model against transformers for Llama, Qwen2 and Qwen3: a small
random model of each is built with transformers, saved with save_pretrained, loaded
with rl_torch_engine.model.load_model_dir, and both score the same pairs.

fp32: both on the CPU in fp32 (the engine never computes in fp32 on CUDA), against
transformers scoring each pair alone, unpadded, so the engine's padding is checked
too. bf16: the engine as it runs on CUDA (fp32 weights, bf16 autocast) against
transformers under the same autocast, and each against transformers' fp32 answer:
bf16 passes when the engine is no further from the fp32 answer than transformers
in bf16 is (twice that, or 0.05)."""

from __future__ import annotations

import importlib.util
import math
import tempfile
from typing import Any, Dict, List, Optional, Sequence, Tuple

import torch

from rl_torch_engine.model import load_model_dir
from rl_torch_engine.scoring import Pair, score_pairs

FP32_TOLERANCE = 1e-4
BF16_FLOOR = 0.05


def hf_configs(smoke: bool) -> Dict[str, Any]:
    """One random-size config per architecture, covering what differs between them: grouped-query
    attention, Qwen2's q/k/v biases, Qwen3's q/k norms and explicit head_dim, llama3 RoPE scaling,
    tied and untied heads."""
    from transformers import LlamaConfig, Qwen2Config, Qwen3Config

    d, layers, ff, vocab = (32, 2, 64, 97) if smoke else (256, 4, 704, 1000)
    common = dict(
        vocab_size=vocab, hidden_size=d, intermediate_size=ff, num_hidden_layers=layers, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=512, rms_norm_eps=1e-6,
    )
    llama3 = {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 64}
    return {
        "LlamaForCausalLM": LlamaConfig(**common, rope_parameters=llama3, tie_word_embeddings=False),
        "Qwen2ForCausalLM": Qwen2Config(**common, rope_parameters={"rope_type": "default", "rope_theta": 1000000.0}, tie_word_embeddings=True),
        "Qwen3ForCausalLM": Qwen3Config(**common, head_dim=2 * d // 4, rope_parameters={"rope_type": "default", "rope_theta": 1000000.0}, tie_word_embeddings=False),
    }


def randomize(model: torch.nn.Module, seed: int) -> None:
    """Weights that make logits of order 1 (tied heads too) and show a skipped term: matrices and
    embeddings of std 1/sqrt(columns), norm gains 1 + N(0, 0.1), biases N(0, 0.02)."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=g)
            if name.endswith("norm.weight"):
                p.copy_(1 + 0.1 * noise)
            elif name.endswith(".bias"):
                p.copy_(0.02 * noise)
            else:
                p.copy_(noise / math.sqrt(p.shape[-1]))


def parity_pairs(vocab: int, smoke: bool, seed: int = 3) -> List[Pair]:
    """Prompts and responses of different lengths, so the engine pads both sides."""
    g = torch.Generator().manual_seed(seed)
    lengths = [(5, 7), (12, 3), (1, 9), (8, 8)] if smoke else [(17, 40), (64, 31), (3, 90), (45, 45), (120, 8), (30, 64)]

    def ids(n: int) -> List[int]:
        return torch.randint(0, vocab, (n,), generator=g).tolist()

    return [(ids(p), ids(r)) for p, r in lengths]


def hf_scores(model: torch.nn.Module, pairs: Sequence[Pair], device: torch.device, bf16: bool) -> List[Tuple[torch.Tensor, torch.Tensor]]:
    """transformers' log-probs and entropies of each pair's response, one unpadded pair at a time."""
    out = []
    with torch.no_grad(), torch.autocast(device_type=device.type, dtype=torch.bfloat16, enabled=bf16):
        for prompt, response in pairs:
            ids = torch.tensor([list(prompt) + list(response)], device=device)
            logits = model(input_ids=ids).logits[0, len(prompt) - 1 : -1].float()
            logp = torch.log_softmax(logits, dim=-1)
            token = logp.gather(-1, ids[0, len(prompt) :, None])[:, 0]
            out.append((token.cpu(), (-(logp.exp() * logp).sum(-1)).cpu()))
    return out


def max_diff(a: Sequence[Tuple[torch.Tensor, torch.Tensor]], b: Sequence[Tuple[torch.Tensor, torch.Tensor]], which: int) -> float:
    return max(float((x[which] - y[which]).abs().max()) for x, y in zip(a, b))


def check_architecture(arch: str, config: Any, device: torch.device, smoke: bool) -> Dict[str, Any]:
    from transformers import AutoModelForCausalLM

    torch.manual_seed(0)
    hf = AutoModelForCausalLM.from_config(config).float().eval()
    randomize(hf, seed=len(arch))
    pairs = parity_pairs(config.vocab_size, smoke)
    row: Dict[str, Any] = {"architecture": arch}
    with tempfile.TemporaryDirectory(prefix="rl-gpu-parity-") as directory:
        hf.save_pretrained(directory)
        cpu = torch.device("cpu")
        ours = load_model_dir(directory, cpu)
        truth = hf_scores(hf, pairs, cpu, bf16=False)
        mine = score_pairs(ours, pairs)
        row["fp32_logprob_max_abs_diff"] = max_diff(mine, truth, 0)
        row["fp32_entropy_max_abs_diff"] = max_diff(mine, truth, 1)
        row["fp32_ok"] = row["fp32_logprob_max_abs_diff"] <= FP32_TOLERANCE
        if device.type == "cuda":
            hf_gpu = hf.to(device)
            ours_gpu = load_model_dir(directory, device)  # the engine autocasts to bf16 on CUDA
            hf_bf16 = hf_scores(hf_gpu, pairs, device, bf16=True)
            mine_bf16 = score_pairs(ours_gpu, pairs)
            row["bf16_logprob_max_abs_diff"] = max_diff(mine_bf16, hf_bf16, 0)
            row["bf16_ours_vs_fp32"] = max_diff(mine_bf16, truth, 0)
            row["bf16_transformers_vs_fp32"] = max_diff(hf_bf16, truth, 0)
            row["bf16_ok"] = row["bf16_ours_vs_fp32"] <= max(2 * row["bf16_transformers_vs_fp32"], BF16_FLOOR)
            del hf_gpu, ours_gpu
        else:
            row["bf16_skipped"] = "no CUDA device (the engine computes in bf16 on CUDA only)"
    return row


def run_parity(device: torch.device, smoke: bool) -> Optional[List[Dict[str, Any]]]:
    """One row per architecture, or None where transformers is not installed."""
    if importlib.util.find_spec("transformers") is None:
        return None
    return [check_architecture(arch, cfg, device, smoke) for arch, cfg in hf_configs(smoke).items()]
