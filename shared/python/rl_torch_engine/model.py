"""LlamaForCausalLM / Qwen2ForCausalLM / Qwen3ForCausalLM (and the one-label
`score` head of their ...ForTokenClassification) as torch modules whose
parameter names are the Hugging Face tensor names, written from transformers'
definitions: pre-norm RMSNorm (computed in fp32), RoPE (default, linear,
llama3), grouped-query attention via repeat_kv, Qwen3's per-head q/k RMSNorm
before RoPE, SwiGLU MLP, tied or untied head."""

from __future__ import annotations

import math
import os
from typing import Dict, List, Optional, Tuple

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

from .config import ConfigError, ModelSpec, parse_hf_config, read_json_file
from .safetensors import read_model_weights


class RMSNorm(nn.Module):
    def __init__(self, size: int, eps: float) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(size))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dtype = x.dtype
        x = x.float()
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x.to(dtype)


def inv_freq_of(spec: ModelSpec) -> torch.Tensor:
    """modeling_rope_utils: the default, linear and llama3 inverse frequencies (fp32)."""
    dim = spec.head_dim
    inv_freq = 1.0 / (spec.rope_theta ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
    rs = spec.rope_scaling
    if rs is None:
        return inv_freq
    if rs.type == "linear":
        return inv_freq / rs.factor
    low_wavelen = rs.original_max_position_embeddings / rs.low_freq_factor
    high_wavelen = rs.original_max_position_embeddings / rs.high_freq_factor
    wavelen = 2 * math.pi / inv_freq
    scaled = torch.where(wavelen > low_wavelen, inv_freq / rs.factor, inv_freq)
    smooth = (rs.original_max_position_embeddings / wavelen - rs.low_freq_factor) / (rs.high_freq_factor - rs.low_freq_factor)
    smoothed = (1 - smooth) * scaled / rs.factor + smooth * scaled
    is_medium = ~(wavelen < high_wavelen) & ~(wavelen > low_wavelen)
    return torch.where(is_medium, smoothed, scaled)


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def repeat_kv(x: torch.Tensor, n_rep: int) -> torch.Tensor:
    """[B, kv, T, d] -> [B, kv * n_rep, T, d]: kv head j serves query heads j*n_rep .. (j+1)*n_rep - 1."""
    if n_rep == 1:
        return x
    b, kv, t, d = x.shape
    return x[:, :, None].expand(b, kv, n_rep, t, d).reshape(b, kv * n_rep, t, d)


def additive_mask(allowed: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """0 where `allowed` (bool), the dtype's minimum elsewhere: the form the attention scores add."""
    return torch.zeros(allowed.shape, dtype=dtype, device=allowed.device).masked_fill(~allowed, torch.finfo(dtype).min)


def can_compile() -> bool:
    """torch.compile of modules in place (nn.Module.compile) exists: torch >= 2.2."""
    return hasattr(nn.Module, "compile")


def require_compile() -> None:
    if not can_compile():
        raise ValueError(f"open: compile needs torch >= 2.2 (this is torch {torch.__version__})")


class KVCache:
    """Keys and values of the positions seen so far, per layer [B, kv_heads, capacity, head_dim] (allocated at
    the first write, in the dtype the projections compute in), for generation; `length` columns are filled."""

    def __init__(self, layers: int, capacity: int) -> None:
        self.capacity = capacity
        self.length = 0
        self.keys: List[Optional[torch.Tensor]] = [None] * layers
        self.values: List[Optional[torch.Tensor]] = [None] * layers

    def extend(self, layer: int, k: torch.Tensor, v: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        """Writes k, v [B, kv, t, d] after the filled columns; the layer's keys and values so far."""
        end = self.length + k.shape[2]
        if end > self.capacity:
            raise ValueError(f"KV cache: {end} positions, capacity {self.capacity}")
        if self.keys[layer] is None:
            b, kv, _, d = k.shape
            self.keys[layer] = k.new_empty(b, kv, self.capacity, d)
            self.values[layer] = v.new_empty(b, kv, self.capacity, d)
        keys, values = self.keys[layer], self.values[layer]
        assert keys is not None and values is not None
        keys[:, :, self.length : end] = k
        values[:, :, self.length : end] = v
        return keys[:, :, :end], values[:, :, :end]

    def keep_rows(self, rows: torch.Tensor) -> None:
        """Only the batch rows `rows` (indices) go on: finished rows stop costing compute."""
        self.keys = [None if k is None else k.index_select(0, rows) for k in self.keys]
        self.values = [None if v is None else v.index_select(0, rows) for v in self.values]


class Attention(nn.Module):
    def __init__(self, spec: ModelSpec) -> None:
        super().__init__()
        self.spec = spec
        h, d = spec.hidden_size, spec.head_dim
        self.q_proj = nn.Linear(h, spec.num_heads * d, bias=spec.qkv_bias)
        self.k_proj = nn.Linear(h, spec.num_kv_heads * d, bias=spec.qkv_bias)
        self.v_proj = nn.Linear(h, spec.num_kv_heads * d, bias=spec.qkv_bias)
        self.o_proj = nn.Linear(spec.num_heads * d, h, bias=spec.o_bias)
        if spec.qk_norm:
            self.q_norm = RMSNorm(d, spec.rms_norm_eps)
            self.k_norm = RMSNorm(d, spec.rms_norm_eps)

    def forward(
        self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, mask: Optional[torch.Tensor], cache: Optional[Tuple[KVCache, int]] = None
    ) -> torch.Tensor:
        """mask: an additive [B, 1, T, T] mask ([B, 1, T, past + T] with a cache), or None for causal attention
        alone (rows padded on the right only). cache: (the cache, this layer's index) during generation."""
        s = self.spec
        b, t, _ = x.shape
        q = self.q_proj(x).view(b, t, s.num_heads, s.head_dim)
        k = self.k_proj(x).view(b, t, s.num_kv_heads, s.head_dim)
        v = self.v_proj(x).view(b, t, s.num_kv_heads, s.head_dim)
        if s.qk_norm:
            q, k = self.q_norm(q), self.k_norm(k)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        # Elementwise ops keep the transposed strides; the attention matmuls run about twice as fast on contiguous inputs.
        q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
        if cache is not None:
            k, v = cache[0].extend(cache[1], k, v)
        n_rep = s.num_heads // s.num_kv_heads
        k, v = repeat_kv(k, n_rep), repeat_kv(v, n_rep)
        if hasattr(nn.functional, "scaled_dot_product_attention"):  # torch >= 2: fused kernels
            if mask is None:  # the flash / cuDNN kernels, which take no mask
                out = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
            else:
                # The fp32 mask's minimum rounds to -inf in bf16, which makes a fully masked row (a left-padding
                # query) NaN, and 0 x NaN reaches the real rows through the next layer's values: clamp first.
                bias = mask.clamp(min=torch.finfo(q.dtype).min).to(q.dtype)
                out = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=bias)
        else:
            if mask is None:
                t_q = q.shape[2]
                mask = additive_mask(torch.ones(t_q, t_q, dtype=torch.bool, device=q.device).tril(), q.dtype)
            scores = torch.matmul(q, k.transpose(2, 3)) * (s.head_dim**-0.5) + mask
            probs = torch.softmax(scores, dim=-1, dtype=torch.float32).to(q.dtype)
            out = torch.matmul(probs, v)
        return self.o_proj(out.transpose(1, 2).reshape(b, t, s.num_heads * s.head_dim))


class Mlp(nn.Module):
    def __init__(self, spec: ModelSpec) -> None:
        super().__init__()
        h, f = spec.hidden_size, spec.intermediate_size
        self.gate_proj = nn.Linear(h, f, bias=spec.mlp_bias)
        self.up_proj = nn.Linear(h, f, bias=spec.mlp_bias)
        self.down_proj = nn.Linear(f, h, bias=spec.mlp_bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down_proj(nn.functional.silu(self.gate_proj(x)) * self.up_proj(x))


class Layer(nn.Module):
    def __init__(self, spec: ModelSpec) -> None:
        super().__init__()
        self.input_layernorm = RMSNorm(spec.hidden_size, spec.rms_norm_eps)
        self.self_attn = Attention(spec)
        self.post_attention_layernorm = RMSNorm(spec.hidden_size, spec.rms_norm_eps)
        self.mlp = Mlp(spec)

    def forward(
        self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, mask: Optional[torch.Tensor], cache: Optional[Tuple[KVCache, int]] = None
    ) -> torch.Tensor:
        x = x + self.self_attn(self.input_layernorm(x), cos, sin, mask, cache)
        return x + self.mlp(self.post_attention_layernorm(x))


class Decoder(nn.Module):
    def __init__(self, spec: ModelSpec) -> None:
        super().__init__()
        self.spec = spec
        self.embed_tokens = nn.Embedding(spec.vocab_size, spec.hidden_size)
        self.layers = nn.ModuleList(Layer(spec) for _ in range(spec.num_layers))
        self.norm = RMSNorm(spec.hidden_size, spec.rms_norm_eps)
        self.register_buffer("inv_freq", inv_freq_of(spec), persistent=False)
        # Recompute each layer's activations in the backward pass instead of keeping them (training only).
        self.gradient_checkpointing = False

    def forward(
        self, ids: torch.Tensor, attention_mask: Optional[torch.Tensor] = None, position_ids: Optional[torch.Tensor] = None, cache: Optional[KVCache] = None
    ) -> torch.Tensor:
        """Final-norm hidden states [B, T, D]. attention_mask [B, T] is 1 on real tokens; without one, every row
        is taken as real tokens then padding on the right (causal attention alone is then exact for the real
        tokens, and the fused kernels that take no mask run). position_ids default to 0, 1, ...
        With a cache (generation) ids follow the cache's positions, attention_mask [B, past + T] covers them
        all, position_ids are required, and the new keys and values are appended."""
        if cache is not None:
            return self.forward_cached(ids, attention_mask, position_ids, cache)
        x = self.embed_tokens(ids)
        t = ids.shape[1]
        if position_ids is None:
            position_ids = torch.arange(t, device=ids.device)[None]
        cos, sin = self.rope(position_ids, x.dtype)
        mask: Optional[torch.Tensor] = None
        if attention_mask is not None:
            allowed = torch.ones(t, t, dtype=torch.bool, device=ids.device).tril()[None] & attention_mask.bool()[:, None, :]
            mask = additive_mask(allowed, x.dtype)[:, None]
        checkpointed = self.gradient_checkpointing and torch.is_grad_enabled()
        for layer in self.layers:
            if checkpointed:
                x = checkpoint(layer, x, cos, sin, mask, use_reentrant=False)
            else:
                x = layer(x, cos, sin, mask)
        return self.norm(x)

    def rope(self, position_ids: torch.Tensor, dtype: torch.dtype) -> Tuple[torch.Tensor, torch.Tensor]:
        """cos and sin [B or 1, 1, T, head_dim] of the positions; the angles in fp32 even under autocast, as transformers computes them."""
        with torch.autocast(device_type=position_ids.device.type, enabled=False):
            freqs = position_ids[:, :, None].float() * self.inv_freq[None, None, :].float()
            emb = torch.cat((freqs, freqs), dim=-1)
            return emb.cos()[:, None].to(dtype), emb.sin()[:, None].to(dtype)

    def forward_cached(self, ids: torch.Tensor, attention_mask: Optional[torch.Tensor], position_ids: Optional[torch.Tensor], cache: KVCache) -> torch.Tensor:
        if attention_mask is None or position_ids is None:
            raise ValueError("a cached forward needs attention_mask and position_ids")
        x = self.embed_tokens(ids)
        past, t = cache.length, ids.shape[1]
        cos, sin = self.rope(position_ids, x.dtype)
        keys = torch.arange(past + t, device=ids.device)
        allowed = (keys[None, :] <= (past + torch.arange(t, device=ids.device))[:, None])[None] & attention_mask.bool()[:, None, :]
        mask = additive_mask(allowed, x.dtype)[:, None]
        for i, layer in enumerate(self.layers):
            # forward, not __call__: a compiled layer (compile_model) would recompile for every cache length.
            x = layer.forward(x, cos, sin, mask, (cache, i))
        cache.length = past + t
        return self.norm(x)


def compile_model(model: "CausalLM") -> None:
    """torch.compile each decoder layer in place (parameter names unchanged; identical layers share one
    graph, as torchtitan compiles per block) and the softmax over the vocabulary (scoring.py): the
    elementwise work between the matmuls (RMSNorm, RoPE, SwiGLU, the fp32 casts) is fused. verl's
    actor.use_torch_compile; needs torch >= 2.2. Apply LoRA first: compiled code traces the modules it finds."""
    require_compile()
    for layer in model.model.layers:
        layer.compile(dynamic=None)
    model.compiled = True


class CausalLM(nn.Module):
    def __init__(self, spec: ModelSpec) -> None:
        super().__init__()
        self.spec = spec
        self.compiled = False  # compile_model
        self.model = Decoder(spec)
        # A ...ForTokenClassification critic has no LM head whatever tie_word_embeddings says (as hf/model-dir.ts reads it).
        if not spec.tie_word_embeddings and not spec.value_head:
            self.lm_head = nn.Linear(spec.hidden_size, spec.vocab_size, bias=False)
        if spec.value_head:
            self.score = nn.Linear(spec.hidden_size, 1, bias=True)

    def head_weight(self) -> torch.Tensor:
        return self.lm_head.weight if hasattr(self, "lm_head") else self.model.embed_tokens.weight

    def logits(self, hidden: torch.Tensor) -> torch.Tensor:
        return nn.functional.linear(hidden, self.head_weight())


def load_model_dir(directory: str, device: Optional[torch.device] = None) -> CausalLM:
    """config.json and the safetensors weights of a model directory, as an fp32 model on `device`;
    a missing or extra tensor, or a wrong shape, raises ConfigError naming it."""
    path = os.path.join(directory, "config.json")
    raw = read_json_file(path)
    spec = parse_hf_config(raw, path)
    model = CausalLM(spec)
    expected: Dict[str, torch.Size] = {k: p.shape for k, p in model.named_parameters()}
    tensors = read_model_weights(directory)
    archs = raw.get("architectures") if isinstance(raw, dict) else None
    if spec.value_head and "score.bias" not in tensors and isinstance(archs, list) and str(archs[0]).endswith("ForSequenceClassification"):
        # ...ForSequenceClassification's score Linear has no bias; the value head's is zero (as hf/model-dir.ts loads it).
        tensors["score.bias"] = torch.zeros(1)
    for key in sorted(expected):
        if key not in tensors:
            raise ConfigError(directory, key, "tensor missing from the weights")
        if tuple(tensors[key].shape) != tuple(expected[key]):
            raise ConfigError(directory, key, f"shape {list(tensors[key].shape)}, expected {list(expected[key])}")
    extra = sorted(k for k in tensors if k not in expected)
    if extra:
        raise ConfigError(directory, extra[0], "tensor the model does not use")
    model.load_state_dict({k: t.float() for k, t in tensors.items()}, strict=True)
    return model.to(device or torch.device("cpu")).eval()
