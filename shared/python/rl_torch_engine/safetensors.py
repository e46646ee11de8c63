"""A safetensors reader and writer (F32, BF16, F16): 8-byte little-endian
header length, a JSON header {name: {dtype, shape, data_offsets}} plus string
`__metadata__`, then the raw data. A model directory holds model.safetensors, or
model.safetensors.index.json and shards. The writer lays files out byte for
byte as shared/policy/src/weights/safetensors.ts encodes them, so either side
reads and rewrites the other's files unchanged."""

from __future__ import annotations

import json
import os
import struct
from typing import Dict, Optional, Tuple

import torch

from .config import ConfigError

DTYPES = {"F32": torch.float32, "BF16": torch.bfloat16, "F16": torch.float16}
INDEX = "model.safetensors.index.json"
SINGLE = "model.safetensors"


def read_safetensors(path: str) -> Dict[str, torch.Tensor]:
    """Every tensor of one file, in its stored dtype; a malformed file raises ConfigError naming it."""
    name = os.path.basename(path)
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as err:
        raise ConfigError(name, "(file)", f"cannot be read: {err.strerror}") from None
    return decode_safetensors(raw, name)[0]


def decode_safetensors(raw: bytes, name: str) -> Tuple[Dict[str, torch.Tensor], Dict[str, str]]:
    """The tensors (stored dtype) and string metadata of safetensors bytes; errors name `name`."""
    if len(raw) < 8:
        raise ConfigError(name, "(header)", "shorter than the 8-byte header length")
    (n,) = struct.unpack("<Q", raw[:8])
    if 8 + n > len(raw):
        raise ConfigError(name, "(header)", f"header length {n} runs past the end of the file")
    try:
        header = json.loads(bytes(raw[8 : 8 + n]).decode("utf-8"))
    except ValueError as err:
        raise ConfigError(name, "(header)", f"is not JSON: {err}") from None
    if not isinstance(header, dict):
        raise ConfigError(name, "(header)", "is not a JSON object")
    metadata = header.get("__metadata__") or {}
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise ConfigError(name, "__metadata__", "must map strings to strings")
    data = bytearray(raw[8 + n :])  # writable, so torch.frombuffer does not warn
    out: Dict[str, torch.Tensor] = {}
    for key, spec in header.items():
        if key == "__metadata__":
            continue
        dtype = DTYPES.get(spec.get("dtype"))
        if dtype is None:
            raise ConfigError(name, key, f"dtype {json.dumps(spec.get('dtype'))} is not supported (F32, BF16, F16)")
        begin, end = spec["data_offsets"]
        shape = [int(s) for s in spec["shape"]]
        count = 1
        for s in shape:
            count *= s
        if not 0 <= begin <= end <= len(data) or end - begin != count * torch.finfo(dtype).bits // 8:
            raise ConfigError(name, key, f"data_offsets {spec['data_offsets']} do not fit shape {shape} of {spec['dtype']}")
        t = torch.frombuffer(data, dtype=dtype, count=count, offset=begin) if count > 0 else torch.empty(0, dtype=dtype)
        out[key] = t.reshape(shape)
    return out, dict(metadata)


def raw_bytes(t: torch.Tensor) -> bytes:
    """A CPU tensor's memory, little-endian (without numpy, which the engine does not need)."""
    t = t.detach().contiguous().reshape(-1)
    out = bytearray(t.numel() * t.element_size())
    if t.numel():
        torch.frombuffer(out, dtype=t.dtype, count=t.numel()).copy_(t)
    return bytes(out)


def read_model_weights(directory: str) -> Dict[str, torch.Tensor]:
    """The tensors of a model directory: model.safetensors, or the index and its shards."""
    index_path = os.path.join(directory, INDEX)
    if os.path.exists(index_path):
        try:
            with open(index_path, encoding="utf-8") as f:
                index = json.load(f)
        except ValueError as err:
            raise ConfigError(INDEX, "(root)", f"is not JSON: {err}") from None
        weight_map = index.get("weight_map") if isinstance(index, dict) else None
        if not isinstance(weight_map, dict):
            raise ConfigError(INDEX, "weight_map", "missing or not an object")
        out: Dict[str, torch.Tensor] = {}
        for shard in sorted(set(weight_map.values())):
            if not isinstance(shard, str) or os.path.basename(shard) != shard:
                raise ConfigError(INDEX, "weight_map", f"shard {json.dumps(shard)} is not a file name in the directory")
            tensors = read_safetensors(os.path.join(directory, shard))
            for key, t in tensors.items():
                if weight_map.get(key) != shard:
                    raise ConfigError(INDEX, f"weight_map.{key}", f"does not name {shard}, which holds it")
                out[key] = t
        missing = sorted(k for k in weight_map if k not in out)
        if missing:
            raise ConfigError(INDEX, f"weight_map.{missing[0]}", f"not found in {weight_map[missing[0]]}")
        return out
    if not os.path.exists(os.path.join(directory, SINGLE)):
        raise ConfigError(directory, "(directory)", f"has neither {SINGLE} nor {INDEX}")
    return read_safetensors(os.path.join(directory, SINGLE))


NAMES = {torch.float32: "F32", torch.bfloat16: "BF16", torch.float16: "F16"}


def encode_safetensors(tensors: Dict[str, torch.Tensor], metadata: Optional[Dict[str, str]] = None) -> bytes:
    """The bytes shared/policy's encodeSafetensors writes for the same tensors: names sorted, a compact JSON
    header with __metadata__ first, padded with spaces so the data section is 8-byte aligned; each tensor in
    its own dtype (F32, BF16 or F16)."""
    header: Dict[str, object] = {"__metadata__": dict(metadata or {})}
    parts = []
    offset = 0
    for name in sorted(tensors):
        t = tensors[name].detach().cpu().contiguous()
        dtype = NAMES.get(t.dtype)
        if dtype is None:
            raise ValueError(f"safetensors: tensor {name}: dtype {t.dtype} is not written (float32, bfloat16, float16)")
        raw = t.view(torch.int32 if t.dtype == torch.float32 else torch.int16).numpy().tobytes() if t.numel() else b""
        header[name] = {"dtype": dtype, "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        parts.append(raw)
        offset += len(raw)
    head = json.dumps(header, separators=(",", ":")).encode("utf-8")
    head += b" " * (-len(head) % 8)
    return struct.pack("<Q", len(head)) + head + b"".join(parts)


def write_safetensors(path: str, tensors: Dict[str, torch.Tensor], metadata: Optional[Dict[str, str]] = None) -> None:
    with open(path, "wb") as f:
        f.write(encode_safetensors(tensors, metadata))
        f.flush()
        os.fsync(f.fileno())
