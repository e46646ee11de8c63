"""The frames the engine exchanges with its parent on stdin/stdout.

A frame is a 4-byte little-endian header length, a UTF-8 JSON header, then
`payload_bytes` bytes of payload: the header's `tensors` ([{name, dtype,
shape}], dtype F32, I32 or U8 (opaque bytes: safetensors files)) laid end to
end, raw little-endian, in that order. Tensors never travel as JSON numbers."""

from __future__ import annotations

import json
import struct
import sys
from typing import Any, BinaryIO, Dict, List, Mapping, Optional, Tuple, Union

import torch

from .safetensors import raw_bytes

WIRE_DTYPES = {"F32": torch.float32, "I32": torch.int32, "U8": torch.uint8}
# What an answer may carry: tensors, or bytes sent as they are (U8).
Payload = Union[torch.Tensor, bytes]
MAX_HEADER_BYTES = 1 << 20

if sys.byteorder != "little":  # the payload is the tensors' memory as is
    raise RuntimeError("rl_torch_engine needs a little-endian machine")


class ProtocolError(Exception):
    """A frame that cannot be read: the stream is out of step, so the engine stops."""


def _read_exact(stream: BinaryIO, n: int) -> Optional[bytes]:
    chunks: List[bytes] = []
    got = 0
    while got < n:
        chunk = stream.read(n - got)
        if not chunk:
            if got == 0:
                return None
            raise ProtocolError(f"stream ended {n - got} bytes into a {n}-byte read")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def read_frame(stream: BinaryIO) -> Optional[Tuple[Dict[str, Any], Dict[str, torch.Tensor]]]:
    """The next (header, tensors by name), or None at the end of the stream."""
    prefix = _read_exact(stream, 4)
    if prefix is None:
        return None
    (n,) = struct.unpack("<I", prefix)
    if n > MAX_HEADER_BYTES:
        raise ProtocolError(f"header of {n} bytes (at most {MAX_HEADER_BYTES})")
    raw = _read_exact(stream, n)
    try:
        header = json.loads((raw or b"").decode("utf-8"))
    except ValueError as err:
        raise ProtocolError(f"header is not JSON: {err}") from None
    if not isinstance(header, dict):
        raise ProtocolError("header is not a JSON object")
    size = header.get("payload_bytes", 0)
    if not isinstance(size, int) or size < 0:
        raise ProtocolError(f"payload_bytes: {size!r}")
    payload = bytearray(_read_exact(stream, size) or b"")
    tensors: Dict[str, torch.Tensor] = {}
    offset = 0
    for spec in header.get("tensors", []):
        dtype = WIRE_DTYPES.get(spec.get("dtype"))
        if dtype is None:
            raise ProtocolError(f"tensor {spec.get('name')}: dtype {spec.get('dtype')!r} (F32, I32, U8)")
        count = 1
        for s in spec["shape"]:
            count *= int(s)
        width = torch.tensor([], dtype=dtype).element_size()
        nbytes = width * count
        if offset + nbytes > len(payload):
            raise ProtocolError(f"tensor {spec.get('name')}: runs past the payload")
        if count == 0:
            t = torch.empty(0, dtype=dtype)
        elif offset % width:  # after a U8 tensor of odd length: copied so the tensor is aligned
            t = torch.frombuffer(bytearray(payload[offset : offset + nbytes]), dtype=dtype)
        else:
            t = torch.frombuffer(payload, dtype=dtype, count=count, offset=offset)
        tensors[str(spec["name"])] = t.reshape([int(s) for s in spec["shape"]])
        offset += nbytes
    if offset != len(payload):
        raise ProtocolError(f"payload has {len(payload) - offset} bytes no tensor describes")
    return header, tensors


def write_frame(stream: BinaryIO, header: Dict[str, Any], tensors: Optional[Mapping[str, Payload]] = None) -> None:
    specs = []
    parts: List[Union[bytes, bytearray]] = []
    for name, t in (tensors or {}).items():
        if isinstance(t, (bytes, bytearray)):
            specs.append({"name": name, "dtype": "U8", "shape": [len(t)]})
            parts.append(t)
            continue
        wire = "F32" if t.dtype.is_floating_point else "U8" if t.dtype == torch.uint8 else "I32"
        t = t.detach().to("cpu", WIRE_DTYPES[wire]).contiguous()
        specs.append({"name": name, "dtype": wire, "shape": list(t.shape)})
        parts.append(raw_bytes(t))
    body = dict(header)
    if specs:
        body["tensors"] = specs
    body["payload_bytes"] = sum(len(p) for p in parts)
    raw = json.dumps(body).encode("utf-8")
    stream.write(struct.pack("<I", len(raw)) + raw)
    for part in parts:  # not joined: a weights payload is not copied once more
        stream.write(part)
    stream.flush()

