"""Hugging Face config.json -> ModelSpec, with the defaults and refusals of
shared/policy/src/hf/hf-config.ts (transformers' LlamaConfig / Qwen2Config /
Qwen3Config defaults per model_type; rope none, linear, llama3)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Dict, Optional

FAMILIES = ("llama", "qwen2", "qwen3")
PREFIX = {"llama": "Llama", "qwen2": "Qwen2", "qwen3": "Qwen3"}
HEADS = {"ForCausalLM": "causal_lm", "ForTokenClassification": "token_classification", "ForSequenceClassification": "sequence_classification"}
ARCHITECTURES = {f"{PREFIX[f]}{suffix}": (f, head) for f in FAMILIES for suffix, head in HEADS.items()}
DEFAULTS: Dict[str, Dict[str, Any]] = {
    "llama": {"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008, "max_position_embeddings": 2048, "num_key_value_heads": None},
    "qwen2": {"vocab_size": 151936, "hidden_size": 4096, "intermediate_size": 22016, "max_position_embeddings": 32768, "num_key_value_heads": 32},
    "qwen3": {"vocab_size": 151936, "hidden_size": 4096, "intermediate_size": 22016, "max_position_embeddings": 32768, "num_key_value_heads": 32},
}


class ConfigError(ValueError):
    """A model directory the engine cannot load; the message names the file and the key."""

    def __init__(self, file: str, key: str, problem: str) -> None:
        super().__init__(f"{file}: {key}: {problem}")


@dataclass(frozen=True)
class RopeScaling:
    type: str  # 'linear' | 'llama3'
    factor: float
    low_freq_factor: float = 0.0
    high_freq_factor: float = 0.0
    original_max_position_embeddings: int = 0


@dataclass(frozen=True)
class ModelSpec:
    family: str  # 'llama' | 'qwen2' | 'qwen3'
    vocab_size: int
    hidden_size: int
    num_layers: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    intermediate_size: int
    max_position_embeddings: int
    rope_theta: float
    rope_scaling: Optional[RopeScaling]
    rms_norm_eps: float
    tie_word_embeddings: bool
    qkv_bias: bool
    o_bias: bool
    mlp_bias: bool
    value_head: bool

    @property
    def qk_norm(self) -> bool:
        return self.family == "qwen3"


def read_json_file(path: str) -> Any:
    """A JSON file's value; a file that cannot be read or is not JSON raises ConfigError naming it."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as err:
        raise ConfigError(path, "(file)", f"cannot be read: {err.strerror}") from None
    except ValueError as err:
        raise ConfigError(path, "(root)", f"is not JSON: {err}") from None


def show(v: Any) -> str:
    return json.dumps(v)


def parse_hf_config(cfg: Any, file: str = "config.json") -> ModelSpec:
    """Reads a parsed config.json; anything unsupported raises ConfigError naming the key."""

    def fail(key: str, problem: str) -> ConfigError:
        return ConfigError(file, key, problem)

    if not isinstance(cfg, dict):
        raise fail("(root)", "must be a JSON object")
    family, head = _architecture(cfg, fail)
    if "quantization_config" in cfg:
        raise fail("quantization_config", "quantized checkpoints are not supported (F32, BF16 or F16 weights only)")
    act = cfg.get("hidden_act") or "silu"
    if act != "silu":
        raise fail("hidden_act", f"{show(act)} is not supported (silu)")
    if family != "llama" and cfg.get("use_sliding_window") is True:
        raise fail("use_sliding_window", "true is not supported (full attention only)")
    d = DEFAULTS[family]

    def value_or(key: str, fallback: Any) -> Any:
        v = cfg.get(key)
        return fallback if v is None else v

    def integer(key: str, v: Any, lo: int, hi: int) -> int:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v != int(v) or not lo <= v <= hi:
            raise fail(key, f"must be an integer in [{lo}, {hi}] (got {show(v)})")
        return int(v)

    def number(key: str, v: Any) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
            raise fail(key, f"must be a positive number (got {show(v)})")
        return float(v)

    def flag(key: str, v: Any) -> bool:
        if not isinstance(v, bool):
            raise fail(key, f"must be a boolean (got {show(v)})")
        return v

    n_heads = integer("num_attention_heads", value_or("num_attention_heads", 32), 1, 256)
    kv_raw = cfg.get("num_key_value_heads", "absent")
    kv = (d["num_key_value_heads"] or n_heads) if kv_raw == "absent" else (n_heads if kv_raw is None else kv_raw)
    n_kv = integer("num_key_value_heads", kv, 1, 256)
    if n_heads % n_kv != 0:
        raise fail("num_key_value_heads", f"num_key_value_heads ({n_kv}) must divide num_attention_heads ({n_heads})")
    hidden = integer("hidden_size", value_or("hidden_size", d["hidden_size"]), 2, 1 << 14)
    head_raw = cfg.get("head_dim")
    if head_raw is None and family == "qwen3":
        head_raw = 128
    if head_raw is None:
        if hidden % n_heads != 0:
            raise fail("hidden_size", "must be divisible by num_attention_heads when head_dim is not given")
        head_dim = hidden // n_heads
        if head_dim % 2 != 0:
            raise fail("num_attention_heads", "head size (hidden_size / num_attention_heads) must be even for RoPE")
    else:
        head_dim = integer("head_dim", head_raw, 2, 4096)
        if head_dim % 2 != 0:
            raise fail("head_dim", "must be even for RoPE")
    rope_theta, rope_scaling = _rope(cfg, fail)
    value_head = False
    if head != "causal_lm":
        labels = _num_labels(cfg, fail)
        if labels != 1:
            raise fail("num_labels", f"{labels} labels; a value head has exactly 1")
        value_head = True
    attention_bias = False if family == "qwen2" else flag("attention_bias", value_or("attention_bias", False))
    mlp_bias = flag("mlp_bias", value_or("mlp_bias", False)) if family == "llama" else False
    return ModelSpec(
        family=family,
        vocab_size=integer("vocab_size", value_or("vocab_size", d["vocab_size"]), 2, 1 << 20),
        hidden_size=hidden,
        num_layers=integer("num_hidden_layers", value_or("num_hidden_layers", 32), 1, 256),
        num_heads=n_heads,
        num_kv_heads=n_kv,
        head_dim=head_dim,
        intermediate_size=integer("intermediate_size", value_or("intermediate_size", d["intermediate_size"]), 1, 1 << 16),
        max_position_embeddings=integer("max_position_embeddings", value_or("max_position_embeddings", d["max_position_embeddings"]), 2, 1 << 20),
        rope_theta=number("rope_theta", rope_theta),
        rope_scaling=rope_scaling,
        rms_norm_eps=number("rms_norm_eps", value_or("rms_norm_eps", 1e-6)),
        tie_word_embeddings=flag("tie_word_embeddings", value_or("tie_word_embeddings", False)),
        qkv_bias=True if family == "qwen2" else attention_bias,
        o_bias=False if family == "qwen2" else attention_bias,
        mlp_bias=mlp_bias,
        value_head=value_head,
    )


def _architecture(cfg: Dict[str, Any], fail: Any) -> "tuple[str, str]":
    model_type = cfg.get("model_type")
    if model_type is not None and model_type not in FAMILIES:
        raise fail("model_type", f"{show(model_type)} is not supported (llama, qwen2, qwen3)")
    archs = cfg.get("architectures")
    if archs is None:
        if model_type is None:
            raise fail("architectures", "missing (and no model_type to go by)")
        return model_type, "causal_lm"
    if not isinstance(archs, list) or not archs or not isinstance(archs[0], str):
        raise fail("architectures", f"must be a non-empty list of class names, got {show(archs)}")
    found = ARCHITECTURES.get(archs[0])
    if found is None:
        raise fail("architectures[0]", f"{show(archs[0])} is not supported ({', '.join(ARCHITECTURES)})")
    if model_type is not None and model_type != found[0]:
        raise fail("model_type", f"{show(model_type)} does not match architectures[0] {archs[0]}")
    return found


def _rope(cfg: Dict[str, Any], fail: Any) -> "tuple[Any, Optional[RopeScaling]]":
    scaling = cfg.get("rope_scaling")
    key = "rope_parameters" if scaling is None or scaling == {} else "rope_scaling"
    raw = cfg.get(key)
    if raw is not None and not isinstance(raw, dict):
        raise fail(key, f"must be an object or null, got {show(raw)}")
    rope: Dict[str, Any] = raw or {}
    if isinstance(rope.get("full_attention"), dict) or isinstance(rope.get("sliding_attention"), dict):
        raise fail(key, "per-layer-type rope parameters are not supported")
    theta = rope.get("rope_theta")
    if theta is None:
        theta = cfg.get("rope_theta")
    if theta is None:
        theta = 10000.0
    type_key = "rope_type" if "rope_type" in rope else "type"
    kind = rope.get(type_key) or "default"

    def num(name: str) -> float:
        v = rope.get(name)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise fail(f"{key}.{name}", f"must be a number for rope type {show(kind)}, got {show(v)}")
        if v <= 0:
            raise fail(f"{key}.{name}", f"must be positive, got {show(v)}")
        return float(v)

    if kind == "default":
        return theta, None
    if kind == "linear":
        return theta, RopeScaling("linear", num("factor"))
    if kind == "llama3":
        low, high = num("low_freq_factor"), num("high_freq_factor")
        if high <= low:
            raise fail(f"{key}.high_freq_factor", "must be greater than low_freq_factor")
        original = num("original_max_position_embeddings")
        if original != int(original):
            raise fail(f"{key}.original_max_position_embeddings", f"must be an integer, got {show(original)}")
        return theta, RopeScaling("llama3", num("factor"), low, high, int(original))
    raise fail(f"{key}.{type_key}", f"{show(kind)} is not supported (default, linear, llama3)")


def _num_labels(cfg: Dict[str, Any], fail: Any) -> int:
    n = cfg.get("num_labels")
    if n is not None:
        if isinstance(n, bool) or not isinstance(n, int):
            raise fail("num_labels", f"must be an integer, got {show(n)}")
        return n
    id2label = cfg.get("id2label")
    if id2label is not None:
        if not isinstance(id2label, dict):
            raise fail("id2label", f"must be an object, got {show(id2label)}")
        return len(id2label)
    return 2
