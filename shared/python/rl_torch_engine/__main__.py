"""`python -m rl_torch_engine serve [--device cpu|cuda]`: the engine as a child
process, answering frames (protocol.py) on stdin/stdout until stdin ends.

Requests and answers (one answer per request, in order):
  hello (sent first, unasked)  -> {ok, engine: "torch", torch, device}
  {op: "open", model: DIR}     -> {ok, config: {architecture, vocab_size, max_position_embeddings}}
  {op: "score"} + I32 tensors prompt_lengths [N], response_lengths [N], ids [sum of both]
                               -> {ok} + F32 tensors logprobs, entropies [sum of response_lengths]
  any failure                  -> {ok: false, error: {code, message}}; the engine keeps serving
A frame it cannot read ends the process with status 2."""

from __future__ import annotations

import argparse
import sys
import traceback
from typing import Any, BinaryIO, Dict, Optional, Tuple

import torch

from .config import ConfigError
from .model import CausalLM, load_model_dir
from .protocol import ProtocolError, read_frame, write_frame
from .scoring import score_pairs


class Engine:
    def __init__(self, device: torch.device) -> None:
        self.device = device
        self.model: Optional[CausalLM] = None

    def handle(self, header: Dict[str, Any], tensors: Dict[str, torch.Tensor]) -> Tuple[Dict[str, Any], Dict[str, torch.Tensor]]:
        op = header.get("op")
        if op == "open":
            directory = header.get("model")
            if not isinstance(directory, str) or not directory:
                raise ValueError("open: model must be a directory path")
            self.model = load_model_dir(directory, self.device)
            s = self.model.spec
            arch = {"llama": "LlamaForCausalLM", "qwen2": "Qwen2ForCausalLM", "qwen3": "Qwen3ForCausalLM"}[s.family]
            config = {"architecture": arch, "vocab_size": s.vocab_size, "max_position_embeddings": s.max_position_embeddings, "value_head": s.value_head}
            return {"ok": True, "config": config}, {}
        if op == "score":
            if self.model is None:
                raise ValueError("score: no model is open")
            return {"ok": True}, self.score(tensors)
        raise ValueError(f"op: unknown operation {op!r} (open, score)")

    def score(self, tensors: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
        assert self.model is not None
        for name in ("prompt_lengths", "response_lengths", "ids"):
            if name not in tensors:
                raise ValueError(f"score: tensor {name} is missing")
        p_len, r_len, ids = tensors["prompt_lengths"].tolist(), tensors["response_lengths"].tolist(), tensors["ids"]
        if len(p_len) != len(r_len) or sum(p_len) + sum(r_len) != ids.numel():
            raise ValueError("score: prompt_lengths and response_lengths do not add up to ids")
        vocab = self.model.spec.vocab_size
        if ids.numel() and (int(ids.min()) < 0 or int(ids.max()) >= vocab):
            raise ValueError(f"score: a token id is outside the vocabulary (vocab_size {vocab})")
        pairs = []
        at = 0
        flat = ids.tolist()
        for lp, lr in zip(p_len, r_len):
            pairs.append((flat[at : at + lp], flat[at + lp : at + lp + lr]))
            at += lp + lr
        scored = score_pairs(self.model, pairs)
        empty = torch.empty(0)
        return {
            "logprobs": torch.cat([lp for lp, _ in scored]) if scored else empty,
            "entropies": torch.cat([e for _, e in scored]) if scored else empty,
        }


def serve(stdin: BinaryIO, stdout: BinaryIO, device: torch.device) -> int:
    engine = Engine(device)
    write_frame(stdout, {"ok": True, "engine": "torch", "torch": torch.__version__, "device": str(device)})
    while True:
        try:
            frame = read_frame(stdin)
        except ProtocolError as err:
            print(f"rl_torch_engine: {err}", file=sys.stderr)
            return 2
        if frame is None:
            return 0
        try:
            header, tensors = engine.handle(*frame)
        except ConfigError as err:
            header, tensors = {"ok": False, "error": {"code": "validation_failed", "message": str(err)}}, {}
        except (ValueError, KeyError) as err:
            header, tensors = {"ok": False, "error": {"code": "bad_request", "message": str(err)}}, {}
        except Exception as err:  # noqa: BLE001 - reported to the parent, which decides
            traceback.print_exc(file=sys.stderr)
            header, tensors = {"ok": False, "error": {"code": "internal", "message": f"{type(err).__name__}: {err}"}}, {}
        write_frame(stdout, header, tensors)


def main(argv: Optional[list] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rl_torch_engine")
    parser.add_argument("command", choices=["serve"])
    parser.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    args = parser.parse_args(argv)
    name = ("cuda" if torch.cuda.is_available() else "cpu") if args.device == "auto" else args.device
    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # stray prints must not corrupt the frames
    return serve(sys.stdin.buffer, out, torch.device(name))


if __name__ == "__main__":
    sys.exit(main())
