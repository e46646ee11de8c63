"""LoRA on CausalLM as PEFT defines it (peft/tuners/lora): each targeted Linear
computes W x + b + scaling * B(A(dropout(x))), scaling = lora_alpha / r
(lora_alpha / sqrt(r) with use_rslora), A [r, in] kaiming-uniform(a=sqrt(5)),
B [out, r] zero, so a new adapter leaves the model unchanged. The base is
frozen; the reference policy is the same model with the adapters switched off.

Adapters are read and written in PEFT's directory format: adapter_config.json
(LoraConfig's fields, sorted, as PeftConfig.save_pretrained writes them) and
adapter_model.safetensors with tensors
`base_model.model.<module>.lora_A.weight` [r, in] and `...lora_B.weight`
[out, r] (the value head `score`, trained whole, as a module to save:
`base_model.model.score.weight` / `.bias`), which peft and vLLM load.

The `lora` settings (apply_lora's `cfg`, the torch engine's `open` op) take
LoraConfig's key names: r, lora_alpha, target_modules (a list of module names
or name suffixes, a regular expression, or "all-linear"), and optionally
lora_dropout, use_rslora, exclude_modules, init_lora_weights (true, false or
"gaussian") and seed (for A's initialisation)."""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

import torch
from torch import nn

from .config import ConfigError, read_json_file
from .model import CausalLM
from .safetensors import encode_safetensors, read_safetensors

ADAPTER_CONFIG = "adapter_config.json"
ADAPTER_WEIGHTS = "adapter_model.safetensors"
# PeftModel.base_model (LoraModel) .model (the transformers model): the prefix of every saved tensor.
PREFIX = "base_model.model."
ALL_LINEAR = "all-linear"
# Linear modules that are heads, not layers: "all-linear" leaves them out, as peft does the output embedding.
HEADS = ("lm_head", "score")
VALUE_HEAD = "score"

Names = Union[Tuple[str, ...], str]


@dataclass(frozen=True)
class LoraSettings:
    r: int
    lora_alpha: float
    target_modules: Names  # names / suffixes, a regular expression, or "all-linear"
    lora_dropout: float = 0.0
    use_rslora: bool = False
    exclude_modules: Optional[Names] = None
    init_lora_weights: Union[bool, str] = True
    seed: int = 0

    @property
    def scaling(self) -> float:
        return self.lora_alpha / math.sqrt(self.r) if self.use_rslora else self.lora_alpha / self.r


# adapter_config.json keys whose non-default values change what the adapter computes, and are not supported.
UNSUPPORTED: Dict[str, Tuple[Any, str]] = {
    "fan_in_fan_out": (False, "must be false (the weights are [out, in], as torch.nn.Linear stores them)"),
    "use_dora": (False, "DoRA is not supported (use_dora must be false)"),
    "lora_bias": (False, "a bias on lora_B is not supported (lora_bias must be false)"),
    "layers_to_transform": (None, "is not supported (choose layers with target_modules)"),
    "layers_pattern": (None, "is not supported (choose layers with target_modules)"),
    "rank_pattern": ({}, "per-module ranks are not supported (rank_pattern must be empty)"),
    "alpha_pattern": ({}, "per-module alphas are not supported (alpha_pattern must be empty)"),
    "target_parameters": (None, "is not supported (LoRA on Linear modules only)"),
    "layer_replication": (None, "is not supported"),
    "trainable_token_indices": (None, "is not supported"),
}


def _names(value: Any, file: str, key: str) -> Optional[Names]:
    if value is None:
        return None
    if isinstance(value, str):
        if value.lower() != ALL_LINEAR:
            try:
                re.compile(value)
            except re.error as err:
                raise ConfigError(file, key, f"{json.dumps(value)} is not a regular expression: {err}") from None
        return value
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) and v for v in value):
        return tuple(value)
    raise ConfigError(file, key, f"must be a list of module names, a regular expression or \"all-linear\", got {json.dumps(value)}")


def parse_lora_settings(cfg: Any, file: str = "lora") -> LoraSettings:
    """LoraConfig keys (a dict from an adapter_config.json or the `lora` of an `open` request) -> LoraSettings;
    a missing, wrong or unsupported value raises ConfigError naming `file` and the key. Other keys are ignored."""
    if not isinstance(cfg, dict):
        raise ConfigError(file, "(root)", "must be a JSON object")
    peft_type = cfg.get("peft_type", "LORA")
    if peft_type != "LORA":
        raise ConfigError(file, "peft_type", f"{json.dumps(peft_type)} is not supported (LORA only)")
    bias = cfg.get("bias", "none")
    if bias != "none":
        raise ConfigError(file, "bias", f"{json.dumps(bias)} is not supported (\"none\" only: base biases stay frozen)")
    for key, (default, problem) in UNSUPPORTED.items():
        value = cfg.get(key, default)
        if value != default and not (default == {} and value is None):
            raise ConfigError(file, key, problem)
    r = cfg.get("r")
    if isinstance(r, bool) or not isinstance(r, int) or r < 1:
        raise ConfigError(file, "r", f"must be a positive integer, got {json.dumps(r)}")
    alpha = cfg.get("lora_alpha", 8)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not math.isfinite(alpha) or alpha <= 0:
        raise ConfigError(file, "lora_alpha", f"must be a positive number, got {json.dumps(alpha)}")
    dropout = cfg.get("lora_dropout", 0.0)
    if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0 <= dropout < 1:
        raise ConfigError(file, "lora_dropout", f"must be a number in [0, 1), got {json.dumps(dropout)}")
    rslora = cfg.get("use_rslora", False)
    if not isinstance(rslora, bool):
        raise ConfigError(file, "use_rslora", f"must be true or false, got {json.dumps(rslora)}")
    init = cfg.get("init_lora_weights", True)
    if init not in (True, False, "gaussian"):
        raise ConfigError(file, "init_lora_weights", f"{json.dumps(init)} is not supported (true, false or \"gaussian\")")
    seed = cfg.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ConfigError(file, "seed", f"must be an integer, got {json.dumps(seed)}")
    targets = _names(cfg.get("target_modules"), file, "target_modules")
    if targets is None or targets == ():
        raise ConfigError(file, "target_modules", "is required (module names, a regular expression or \"all-linear\")")
    modules_to_save = cfg.get("modules_to_save")
    if modules_to_save not in (None, [], [VALUE_HEAD]):
        raise ConfigError(file, "modules_to_save", f"{json.dumps(modules_to_save)} is not supported (only the value head, [\"score\"])")
    return LoraSettings(
        r=r,
        lora_alpha=alpha,
        target_modules=targets,
        lora_dropout=float(dropout),
        use_rslora=rslora,
        exclude_modules=_names(cfg.get("exclude_modules"), file, "exclude_modules"),
        init_lora_weights=init,
        seed=seed,
    )


class LoraLinear(nn.Module):
    """A Linear with one LoRA adapter. The base weight and bias keep their names (`<module>.weight`), so the
    base model's state dict is unchanged; the adapter adds `<module>.lora_A.weight` and `<module>.lora_B.weight`."""

    def __init__(self, base: nn.Linear, settings: LoraSettings, generator: torch.Generator) -> None:
        super().__init__()
        self.in_features, self.out_features = base.in_features, base.out_features
        self.weight = base.weight
        self.bias = base.bias
        device = base.weight.device
        self.lora_A = nn.Linear(self.in_features, settings.r, bias=False).to(device)
        self.lora_B = nn.Linear(settings.r, self.out_features, bias=False).to(device)
        self.lora_dropout: nn.Module = nn.Dropout(settings.lora_dropout) if settings.lora_dropout > 0 else nn.Identity()
        self.scaling = settings.scaling
        self.enabled = True
        with torch.no_grad():
            if settings.init_lora_weights == "gaussian":
                a = torch.randn(self.lora_A.weight.shape, generator=generator) / settings.r
            else:
                a = _kaiming_uniform(self.lora_A.weight.shape, generator)
            self.lora_A.weight.copy_(a)
            # init_lora_weights false (peft's debugging option) leaves B as nn.Linear initialises it: non-zero.
            b = _kaiming_uniform(self.lora_B.weight.shape, generator) if settings.init_lora_weights is False else torch.zeros(self.lora_B.weight.shape)
            self.lora_B.weight.copy_(b)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = nn.functional.linear(x, self.weight, self.bias)
        if not self.enabled:
            return out
        return out + self.lora_B(self.lora_A(self.lora_dropout(x))) * self.scaling

    def delta_weight(self) -> torch.Tensor:
        """scaling * B A, in fp32: what merging adds to the base weight."""
        return (self.lora_B.weight.float() @ self.lora_A.weight.float()) * self.scaling


def _kaiming_uniform(shape: torch.Size, generator: torch.Generator) -> torch.Tensor:
    """nn.init.kaiming_uniform_(a=sqrt(5)) (peft's A, nn.Linear's default): U(-1/sqrt(fan_in), 1/sqrt(fan_in)),
    drawn from `generator` so an adapter's start is reproducible."""
    bound = 1 / math.sqrt(shape[1])
    return (torch.rand(shape, generator=generator) * 2 - 1) * bound


def _matches(name: str, names: Names) -> bool:
    """peft's check_target_module_exists: a string is a full-match regular expression; a list entry matches the
    module's whole name or a dot-separated suffix of it."""
    if isinstance(names, str):
        return re.fullmatch(names, name) is not None
    return any(name == n or name.endswith("." + n) for n in names)


def target_names(model: CausalLM, settings: LoraSettings, file: str = "lora") -> List[str]:
    """The Linear modules the settings select, in model order; an entry that selects nothing, or a head, is an error."""
    linears = [name for name, m in model.named_modules() if isinstance(m, (nn.Linear, LoraLinear)) and not _inside_lora(name)]
    layers = [n for n in linears if n not in HEADS]
    targets = settings.target_modules
    if isinstance(targets, str) and targets.lower() == ALL_LINEAR:
        chosen = layers
    else:
        chosen = [n for n in linears if _matches(n, targets)]
        heads = [n for n in chosen if n in HEADS]
        if heads:
            raise ConfigError(file, "target_modules", f"selects the head {heads[0]}; LoRA applies to the decoder layers' Linear modules only")
        if isinstance(targets, tuple):
            for t in targets:
                if not any(_matches(n, (t,)) for n in linears):
                    raise ConfigError(file, "target_modules", f"{json.dumps(t)} is not a module of the model (its Linear modules end in {_leaf_names(layers)})")
    if settings.exclude_modules is not None:
        chosen = [n for n in chosen if not _matches(n, settings.exclude_modules)]
    if not chosen:
        raise ConfigError(file, "target_modules", f"selects no module of the model (its Linear modules end in {_leaf_names(layers)})")
    return chosen


def _inside_lora(name: str) -> bool:
    return name.endswith(".lora_A") or name.endswith(".lora_B")


def _leaf_names(names: List[str]) -> str:
    return ", ".join(sorted({n.rsplit(".", 1)[-1] for n in names}))


def lora_modules(model: nn.Module) -> Dict[str, LoraLinear]:
    return {name: m for name, m in model.named_modules() if isinstance(m, LoraLinear)}


def apply_lora(model: CausalLM, cfg: Union[Dict[str, Any], LoraSettings], file: str = "lora") -> LoraSettings:
    """Wraps the selected Linear modules in LoraLinear (A, B on the base weight's device) and freezes every base
    parameter; a value head (`score`) stays trainable, as peft's modules_to_save. Returns the settings, with
    "all-linear" resolved to the module names it chose (what adapter_config.json records)."""
    settings = cfg if isinstance(cfg, LoraSettings) else parse_lora_settings(cfg, file)
    if lora_modules(model):
        raise ValueError("apply_lora: the model already has LoRA adapters")
    names = target_names(model, settings, file)
    generator = torch.Generator().manual_seed(settings.seed)
    for p in model.parameters():
        p.requires_grad_(False)
    for name in names:
        parent_name, _, leaf = name.rpartition(".")
        parent = model.get_submodule(parent_name)
        # A new module trains by default; dropout must follow the model's mode (eval for scoring).
        setattr(parent, leaf, LoraLinear(getattr(parent, leaf), settings, generator).train(model.training))
    if model.spec.value_head:
        for p in model.score.parameters():
            p.requires_grad_(True)
    resolved = tuple(sorted({n.rsplit(".", 1)[-1] for n in names}))
    # A leaf-name list selects exactly `names` when the excluded ones share no leaf with them; else keep full names.
    if settings.exclude_modules is not None or len(target_names(model, _with_targets(settings, resolved), file)) != len(names):
        resolved = tuple(names)
    model.lora_settings = _with_targets(settings, resolved)  # type: ignore[assignment]
    return model.lora_settings  # type: ignore[return-value]


def _with_targets(settings: LoraSettings, targets: Tuple[str, ...]) -> LoraSettings:
    return LoraSettings(**{**settings.__dict__, "target_modules": targets, "exclude_modules": None})


def settings_of(model: nn.Module) -> LoraSettings:
    settings = getattr(model, "lora_settings", None)
    if not isinstance(settings, LoraSettings):
        raise ValueError("the model has no LoRA adapters (apply_lora first)")
    return settings


@contextlib.contextmanager
def adapters_disabled(model: nn.Module) -> Iterator[None]:
    """The base model within the block (peft's disable_adapter): the reference policy without a second copy."""
    modules = list(lora_modules(model).values())
    before = [m.enabled for m in modules]
    for m in modules:
        m.enabled = False
    try:
        yield
    finally:
        for m, was in zip(modules, before):
            m.enabled = was


def adapter_state_dict(model: CausalLM) -> Dict[str, torch.Tensor]:
    """The adapter's tensors under peft's saved names (fp32, on CPU): lora_A / lora_B of each module, and the value
    head when the model has one."""
    out: Dict[str, torch.Tensor] = {}
    for name, m in lora_modules(model).items():
        out[f"{PREFIX}{name}.lora_A.weight"] = m.lora_A.weight.detach().float().cpu()
        out[f"{PREFIX}{name}.lora_B.weight"] = m.lora_B.weight.detach().float().cpu()
    if model.spec.value_head:
        out[f"{PREFIX}{VALUE_HEAD}.weight"] = model.score.weight.detach().float().cpu()
        out[f"{PREFIX}{VALUE_HEAD}.bias"] = model.score.bias.detach().float().cpu()
    return out


def adapter_config(model: CausalLM, base_model_path: Optional[str]) -> Dict[str, Any]:
    """adapter_config.json as peft writes it for these settings (LoraConfig's fields at their defaults otherwise)."""
    s = settings_of(model)
    alpha: Union[int, float] = int(s.lora_alpha) if float(s.lora_alpha).is_integer() else s.lora_alpha
    return {
        "alpha_pattern": {},
        "auto_mapping": None,
        "base_model_name_or_path": base_model_path,
        "bias": "none",
        "exclude_modules": None,
        "fan_in_fan_out": False,
        "inference_mode": True,
        "init_lora_weights": s.init_lora_weights,
        "layers_pattern": None,
        "layers_to_transform": None,
        "lora_alpha": alpha,
        "lora_bias": False,
        "lora_dropout": s.lora_dropout,
        "modules_to_save": [VALUE_HEAD] if model.spec.value_head else None,
        "peft_type": "LORA",
        "r": s.r,
        "rank_pattern": {},
        "revision": None,
        "target_modules": list(s.target_modules) if isinstance(s.target_modules, tuple) else s.target_modules,
        "task_type": "TOKEN_CLS" if model.spec.value_head else "CAUSAL_LM",
        "use_dora": False,
        "use_rslora": s.use_rslora,
    }


def save_adapter(model: CausalLM, directory: str, base_model_path: Optional[str] = None) -> None:
    """Writes adapter_config.json and adapter_model.safetensors (metadata {format: pt}) into `directory`; each file
    is written beside its final name and renamed into place."""
    os.makedirs(directory, exist_ok=True)
    config = json.dumps(adapter_config(model, base_model_path), indent=2, sort_keys=True)
    _write(os.path.join(directory, ADAPTER_WEIGHTS), encode_safetensors(adapter_state_dict(model), {"format": "pt"}))
    _write(os.path.join(directory, ADAPTER_CONFIG), config.encode("utf-8"))


def _write(path: str, data: bytes) -> None:
    with open(path + ".tmp", "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(path + ".tmp", path)


def read_adapter_config(directory: str) -> LoraSettings:
    path = os.path.join(directory, ADAPTER_CONFIG)
    return parse_lora_settings(read_json_file(path), path)


def load_adapter(model: CausalLM, directory: str) -> LoraSettings:
    """Applies the adapter in `directory` (peft's format) to a model without adapters, or refills the adapters of a
    model that has the same ones (same r, alpha, scaling and modules). Every tensor is checked (name, shape, none
    missing or extra) before any is copied; an error names the file and the tensor."""
    config_path = os.path.join(directory, ADAPTER_CONFIG)
    settings = read_adapter_config(directory)
    weights_path = os.path.join(directory, ADAPTER_WEIGHTS)
    if not os.path.exists(weights_path):
        raise ConfigError(directory, "(directory)", f"has no {ADAPTER_WEIGHTS}")
    if lora_modules(model):
        have = settings_of(model)
        wanted = target_names(model, settings, config_path)
        if (have.r, have.lora_alpha, have.use_rslora) != (settings.r, settings.lora_alpha, settings.use_rslora) or sorted(wanted) != sorted(lora_modules(model)):
            raise ConfigError(config_path, "(adapter)", "differs from the adapters the model has (r, lora_alpha, use_rslora or target_modules)")
    else:
        apply_lora(model, settings, config_path)
    tensors = read_safetensors(weights_path)
    expected = adapter_state_dict(model)
    for key in sorted(expected):
        if key not in tensors:
            raise ConfigError(weights_path, key, "tensor missing from the adapter")
        if tuple(tensors[key].shape) != tuple(expected[key].shape):
            raise ConfigError(weights_path, key, f"shape {list(tensors[key].shape)}, expected {list(expected[key].shape)}")
    extra = sorted(k for k in tensors if k not in expected)
    if extra:
        raise ConfigError(weights_path, extra[0], "tensor the adapter's config does not target")
    with torch.no_grad():
        for name, m in lora_modules(model).items():
            m.lora_A.weight.copy_(tensors[f"{PREFIX}{name}.lora_A.weight"].float())
            m.lora_B.weight.copy_(tensors[f"{PREFIX}{name}.lora_B.weight"].float())
        if model.spec.value_head:
            model.score.weight.copy_(tensors[f"{PREFIX}{VALUE_HEAD}.weight"].float())
            model.score.bias.copy_(tensors[f"{PREFIX}{VALUE_HEAD}.bias"].float())
    return settings_of(model)


def merged_state_dict(model: CausalLM) -> Dict[str, torch.Tensor]:
    """The model's parameters under their Hugging Face names with every adapter merged (W + scaling B A): a full
    model for export; the model itself is unchanged."""
    out: Dict[str, torch.Tensor] = {}
    modules = lora_modules(model)
    for key, p in model.named_parameters():
        owner, _, leaf = key.rpartition(".")
        if _inside_lora(owner):
            continue
        t = p.detach()
        if owner in modules and leaf == "weight":
            t = (t.float() + modules[owner].delta_weight()).to(p.dtype)
        out[key] = t
    return out


def merge(model: CausalLM) -> CausalLM:
    """Folds the adapters into the base weights and puts plain Linear modules back (peft's merge_and_unload)."""
    for name, m in lora_modules(model).items():
        linear = nn.Linear(m.in_features, m.out_features, bias=m.bias is not None, device=m.weight.device)
        with torch.no_grad():
            linear.weight.copy_((m.weight.float() + m.delta_weight()).to(m.weight.dtype))
            if m.bias is not None:
                linear.bias.copy_(m.bias)
        parent_name, _, leaf = name.rpartition(".")
        setattr(model.get_submodule(parent_name), leaf, linear)
    if hasattr(model, "lora_settings"):
        del model.lora_settings
    return model
