"""What the engine writes: Hugging Face model directories (config.json and an
F32 model.safetensors, as shared/policy/src/hf/model-dir.ts saveModelDir lays
them out) and AdamW state in the jax-js engine's format
(shared/policy/src/training/optimizer-state.ts: tensors `m.<name>` and
`v.<name>`, metadata {format: "rl-policy-adamw", step}), so a checkpoint written
by either engine resumes on the other."""

from __future__ import annotations

import json
import os
import shutil
from typing import Callable, Dict, Mapping, Optional

import torch

from .config import ConfigError
from .safetensors import INDEX, SINGLE, decode_safetensors, encode_safetensors, write_safetensors

ADAM_STATE_FORMAT = "rl-policy-adamw"
VERSION_KEY = "rl_policy_version"


def model_tensors(model: torch.nn.Module) -> Dict[str, torch.Tensor]:
    """The weights by Hugging Face name (a tied head is the embedding, so it has no lm_head)."""
    return {name: p.detach() for name, p in model.named_parameters()}


def encode_weights(tensors: Mapping[str, torch.Tensor]) -> bytes:
    return encode_safetensors(dict(tensors), {"format": "pt"})


def save_model_dir(tensors: Mapping[str, torch.Tensor], source: str, target: str, version: Optional[str]) -> None:
    """Writes `target` as the opened directory `source` with `tensors` as its weights: its config.json
    (with `rl_policy_version` when `version` is given), its tokenizer and generation files, and an F32
    model.safetensors. Written beside the target and renamed into place; an existing target is
    replaced only when it is a model directory or empty."""
    target = os.path.abspath(target)
    if os.path.exists(target):
        if not os.path.isdir(target):
            raise ValueError(f"save: {target} exists and is not a directory; not replacing it")
        if not os.path.isfile(os.path.join(target, "config.json")) and os.listdir(target):
            raise ValueError(f"save: {target} exists and is not a model directory; not replacing it")
    with open(os.path.join(source, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    if version is not None:
        config[VERSION_KEY] = version
    tmp = f"{target}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    try:
        for name in sorted(os.listdir(source)):
            path = os.path.join(source, name)
            if name in ("config.json", INDEX) or name.endswith(".safetensors") or not os.path.isfile(path):
                continue
            shutil.copyfile(path, os.path.join(tmp, name))
        with open(os.path.join(tmp, "config.json"), "w", encoding="utf-8") as f:
            f.write(json.dumps(config, indent=2) + "\n")
        write_safetensors(os.path.join(tmp, SINGLE), dict(tensors), {"format": "pt"})
        old = f"{target}.old-{os.getpid()}"
        moved = os.path.exists(target)
        if moved:
            shutil.rmtree(old, ignore_errors=True)
            os.rename(target, old)
        os.rename(tmp, target)
        if moved:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


Whole = Callable[[torch.Tensor], torch.Tensor]
Place = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


def encode_adam_state(params: Mapping[str, torch.nn.Parameter], optimizer: torch.optim.Optimizer, step: int, whole: Optional[Whole] = None) -> bytes:
    """AdamW moments (zeros before the first update) and the update count. whole: a sharded moment as the
    whole tensor (gathered from every rank, which must all call this in the same order)."""
    tensors: Dict[str, torch.Tensor] = {}
    for name, p in params.items():
        state = optimizer.state.get(p, {})
        for prefix, key in (("m", "exp_avg"), ("v", "exp_avg_sq")):
            t = state.get(key, torch.zeros_like(p))
            tensors[f"{prefix}.{name}"] = t if whole is None else whole(t)
    return encode_safetensors(tensors, {"format": ADAM_STATE_FORMAT, "step": str(step)})


def load_adam_state(raw: bytes, params: Mapping[str, torch.nn.Parameter], optimizer: torch.optim.Optimizer, place: Optional[Place] = None) -> int:
    """Restores moments and step written by encode_adam_state or the jax-js engine; they must match
    `params` name for name and shape for shape. place(whole, param): a whole moment in the parameter's layout
    (sharded: this rank's shard). Returns the update count."""
    put = place or (lambda whole, p: whole.to(p.device, torch.float32).clone())
    where = "optimizer state"
    tensors, metadata = decode_safetensors(raw, where)
    step_text = metadata.get("step", "")
    if metadata.get("format") != ADAM_STATE_FORMAT or not step_text.isdigit():
        raise ConfigError(where, "__metadata__", f"expected format {ADAM_STATE_FORMAT} with an integer step")
    step = int(step_text)
    for name, p in params.items():
        for prefix in ("m", "v"):
            t = tensors.get(f"{prefix}.{name}")
            if t is None or tuple(t.shape) != tuple(p.shape):
                raise ConfigError(where, f"{prefix}.{name}", "is missing or has the wrong shape")
    if len(tensors) != 2 * len(params):
        extra = sorted(k for k in tensors if k[2:] not in params)
        raise ConfigError(where, extra[0] if extra else "(tensors)", "a tensor the model does not have")
    for p in params.values():
        optimizer.state.pop(p, None)
    if step > 0:
        for name, p in params.items():
            # torch.optim.AdamW's own state layout: a float step tensor on the CPU and fp32 moments beside the weight.
            optimizer.state[p] = {
                "step": torch.tensor(float(step)),
                "exp_avg": put(tensors[f"m.{name}"].float(), p),
                "exp_avg_sq": put(tensors[f"v.{name}"].float(), p),
            }
    return step
