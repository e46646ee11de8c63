"""Reference forward pass of Hugging Face LlamaForCausalLM, Qwen2ForCausalLM and
Qwen3ForCausalLM (and their one-label ...ForTokenClassification `score` head),
written in numpy from transformers' model definitions (modeling_llama.py,
modeling_qwen2.py, modeling_qwen3.py, modeling_rope_utils.py), independently of
the TypeScript engine it checks.

    python3 hf_forward.py MODEL.safetensors REQUEST.json

REQUEST.json: {"config": <a config.json dict>, "sequences": [[token ids], ...]}.
Prints JSON {"logits": [[[V floats] per position] per sequence] (null for a
token-classification model without an lm head), "values": [[float per
position] per sequence] (null without a `score` head)}. Each sequence runs
alone, unpadded, from position 0: the ground truth padded batches must match.
Only float32 safetensors are read. Everything computes in float32, as torch
does for a float32 model.
"""

import json
import math
import struct
import sys

import numpy as np

F32 = np.float32


def read_safetensors(path):
    """Tensors of a safetensors file (F32 only): 8-byte LE header length, JSON header, data."""
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + n].decode("utf-8"))
    base = 8 + n
    out = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        if spec["dtype"] != "F32":
            raise ValueError(f"{name}: dtype {spec['dtype']} (only F32 is read)")
        begin, end = spec["data_offsets"]
        out[name] = np.frombuffer(raw[base + begin : base + end], dtype="<f4").reshape(spec["shape"]).astype(F32)
    return out


class Weights:
    """Tensor lookup that records what was read, so unused tensors are reported."""

    def __init__(self, tensors):
        self.tensors = tensors
        self.used = set()

    def __call__(self, name):
        self.used.add(name)
        return self.tensors[name]

    def unused(self):
        return sorted(set(self.tensors) - self.used)


def linear(x, w, name, bias):
    """torch.nn.Linear: x @ W^T + b, W stored [out, in]."""
    y = x @ w(f"{name}.weight").T
    if bias:
        y = y + w(f"{name}.bias")
    return y


def rms_norm(x, weight, eps):
    """LlamaRMSNorm / Qwen2RMSNorm / Qwen3RMSNorm: weight * (x * rsqrt(mean(x^2) + eps))."""
    variance = np.mean(np.square(x), axis=-1, keepdims=True)
    return weight * (x * (F32(1) / np.sqrt(variance + F32(eps))))


def inv_freq_of(cfg, head_dim):
    """modeling_rope_utils: default, linear and llama3 inverse frequencies."""
    base = float(cfg.get("rope_theta", 10000.0))
    inv_freq = (1.0 / (base ** (np.arange(0, head_dim, 2, dtype=np.int64).astype(F32) / head_dim))).astype(F32)
    scaling = cfg.get("rope_scaling")
    if not scaling:
        return inv_freq
    kind = scaling.get("rope_type", scaling.get("type"))
    if kind == "default":
        return inv_freq
    if kind == "linear":
        return (inv_freq / F32(scaling["factor"])).astype(F32)
    if kind == "llama3":
        factor = scaling["factor"]
        low_freq_factor = scaling["low_freq_factor"]
        high_freq_factor = scaling["high_freq_factor"]
        old_context_len = scaling["original_max_position_embeddings"]
        low_freq_wavelen = old_context_len / low_freq_factor
        high_freq_wavelen = old_context_len / high_freq_factor
        wavelen = 2 * math.pi / inv_freq
        inv_freq_llama = np.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
        smooth_factor = (old_context_len / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
        smoothed = (1 - smooth_factor) * inv_freq_llama / factor + smooth_factor * inv_freq_llama
        is_medium = ~(wavelen < high_freq_wavelen) & ~(wavelen > low_freq_wavelen)
        return np.where(is_medium, smoothed, inv_freq_llama).astype(F32)
    raise ValueError(f"rope type {kind} is not supported here")


def rotate_half(x):
    half = x.shape[-1] // 2
    return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)


def attention(cfg, arch, w, prefix, h, cos, sin):
    """LlamaAttention / Qwen2Attention / Qwen3Attention over one unpadded sequence h [T, D]."""
    t = h.shape[0]
    n_heads = cfg["num_attention_heads"]
    n_kv = cfg.get("num_key_value_heads") or n_heads
    head_dim = cfg.get("head_dim") or cfg["hidden_size"] // n_heads
    if arch == "qwen2":
        qkv_bias, o_bias = True, False
    else:
        qkv_bias = o_bias = bool(cfg.get("attention_bias", False))
    q = linear(h, w, f"{prefix}.q_proj", qkv_bias).reshape(t, n_heads, head_dim)
    k = linear(h, w, f"{prefix}.k_proj", qkv_bias).reshape(t, n_kv, head_dim)
    v = linear(h, w, f"{prefix}.v_proj", qkv_bias).reshape(t, n_kv, head_dim)
    eps = cfg.get("rms_norm_eps", 1e-6)
    if arch == "qwen3":
        q = rms_norm(q, w(f"{prefix}.q_norm.weight"), eps)
        k = rms_norm(k, w(f"{prefix}.k_norm.weight"), eps)
    q, k, v = (a.transpose(1, 0, 2) for a in (q, k, v))  # [heads, T, d]
    q = q * cos + rotate_half(q) * sin
    k = k * cos + rotate_half(k) * sin
    # repeat_kv: kv head j serves query heads j*n_rep .. (j+1)*n_rep - 1
    n_rep = n_heads // n_kv
    k = np.repeat(k, n_rep, axis=0)
    v = np.repeat(v, n_rep, axis=0)
    scores = (q @ k.transpose(0, 2, 1)) * F32(head_dim**-0.5)
    causal = np.triu(np.ones((t, t), dtype=bool), 1)
    scores = np.where(causal[None], np.finfo(F32).min, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    probs = np.exp(scores)
    probs = probs / probs.sum(axis=-1, keepdims=True)
    out = (probs @ v).transpose(1, 0, 2).reshape(t, n_heads * head_dim)
    return linear(out, w, f"{prefix}.o_proj", o_bias)


def forward(cfg, w, ids):
    """The decoder over one sequence: (final-norm hidden states [T, D])."""
    arch_name = cfg["architectures"][0]
    arch = {"Llama": "llama", "Qwen2": "qwen2", "Qwen3": "qwen3"}[arch_name.split("For")[0]]
    n_heads = cfg["num_attention_heads"]
    head_dim = cfg.get("head_dim") or cfg["hidden_size"] // n_heads
    eps = cfg.get("rms_norm_eps", 1e-6)
    mlp_bias = arch == "llama" and bool(cfg.get("mlp_bias", False))
    t = len(ids)
    inv_freq = inv_freq_of(cfg, head_dim)
    freqs = np.arange(t, dtype=F32)[:, None] * inv_freq[None, :]
    emb = np.concatenate([freqs, freqs], axis=-1)
    cos, sin = np.cos(emb).astype(F32)[None], np.sin(emb).astype(F32)[None]
    x = w("model.embed_tokens.weight")[np.asarray(ids)]
    for i in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{i}"
        h = rms_norm(x, w(f"{p}.input_layernorm.weight"), eps)
        x = x + attention(cfg, arch, w, f"{p}.self_attn", h, cos, sin)
        h = rms_norm(x, w(f"{p}.post_attention_layernorm.weight"), eps)
        gate = linear(h, w, f"{p}.mlp.gate_proj", mlp_bias)
        up = linear(h, w, f"{p}.mlp.up_proj", mlp_bias)
        silu = gate / (F32(1) + np.exp(-gate))
        x = x + linear(silu * up, w, f"{p}.mlp.down_proj", mlp_bias)
    return rms_norm(x, w("model.norm.weight"), eps)


def main():
    tensors = read_safetensors(sys.argv[1])
    with open(sys.argv[2], encoding="utf-8") as f:
        request = json.load(f)
    cfg = request["config"]
    w = Weights(tensors)
    has_lm = cfg.get("tie_word_embeddings", False) or "lm_head.weight" in tensors
    has_score = "score.weight" in tensors
    logits, values = [], []
    for ids in request["sequences"]:
        hidden = forward(cfg, w, ids)
        if has_lm:
            head = w("model.embed_tokens.weight") if cfg.get("tie_word_embeddings", False) else w("lm_head.weight")
            logits.append((hidden @ head.T).tolist())
        if has_score:
            # ...ForSequenceClassification's score Linear has no bias.
            values.append(linear(hidden, w, "score", "score.bias" in tensors)[:, 0].tolist())
    unused = w.unused()
    if unused:
        raise ValueError(f"tensors the model does not use: {unused}")
    json.dump({"logits": logits if has_lm else None, "values": values if has_score else None}, sys.stdout)


if __name__ == "__main__":
    main()
