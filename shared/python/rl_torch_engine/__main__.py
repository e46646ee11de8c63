"""`python -m rl_torch_engine serve [--device cpu|cuda] [--world-size N] [--sharding auto|fsdp2|replicated]`:
the engine as a child process, answering frames (protocol.py) on stdin/stdout until stdin ends. With
--world-size N (or under torchrun) it runs as N processes (distributed.py, launch.py), the model sharded
with FSDP2 (sharding.py) or replicated;
`peer` is the command of the processes it spawns.

Requests and answers (one answer per request, in order; every answer's header
carries `elapsed_ms`, the time the engine spent on it; pairs travel as I32
tensors prompt_lengths [N], response_lengths [N], ids [sum of both]):
  hello (sent first, unasked)  -> {ok, engine: "torch", torch, device, world_size, sharding: "none"|"fsdp2"|"replicated"}
  {op: "open", model: DIR, train?, optimizer?: {lr, betas, eps, weight_decay, max_grad_norm},
   gradient_checkpointing?, compile? (torch.compile, torch >= 2.2), max_tokens?, lora?, adapter?: DIR (a PEFT LoRA adapter directory, loaded onto the model)}
                               -> {ok, config: {architecture, vocab_size, max_position_embeddings, value_head}, sharding? (N processes)}
  {op: "score", leaves?, adapters?} + pairs
                               -> F32 leaves (default logprobs, entropies) [sum of response_lengths], no graph;
                                  adapters: false scores a LoRA model's base (the reference policy)
  {op: "generate", max_tokens, temperature?, top_k?, top_p?, stop_token_ids?, seed?, adapters?}
   + I32 prompt_lengths [N], ids [their sum], row_seeds? [N]
                               -> {ok, finish_reasons: ["stop"|"length"], stop_ids: [id|null]} + I32 lengths [N],
                                  I32 ids [sum of lengths] (a stop id kept), F32 logprobs (before temperature);
                                  sampled with a KV cache (generate.py), each row from its own seed
  {op: "forward", leaves?} + pairs
                               -> F32 leaves (logprobs, entropies; values for a critic) [sum of response_lengths];
                                  the graph is kept for the next backward
  {op: "backward"} + F32 gradients of the loss for those leaves (by the same names)
                               -> {ok}; added to the parameters' gradients, graph freed
  {op: "release"}              -> {ok}; a pending graph is dropped without a backward
  {op: "step", lr?}            -> {ok, skipped, step} + F32 grad_norm [1] (before clipping)
  {op: "save", path, version?} -> {ok}; an HF directory (config.json, tokenizer files, F32 model.safetensors)
  {op: "weights"}              -> U8 safetensors [bytes]: the current weights (LoRA: merged)
  {op: "adapter", base_model?} -> {ok, config: adapter_config.json's content} + U8 safetensors: the LoRA adapter
                                  (adapter_model.safetensors's bytes)
  {op: "save_optimizer", path?}-> {ok, step} + U8 state (or the file at path): AdamW state, jax-js format
  {op: "load_optimizer", path?} + U8 state -> {ok, step}
  {op: "sync_check"}           -> {ok, world_size, checksums, identical, pids} (N processes only): every
                                  rank's weights and AdamW state (sharded: its shards; identical null), hashed,
                                  and its process id
  any failure                  -> {ok: false, error: {code, message}}; the engine keeps serving, except after
                                  `unavailable` (a peer process died or a collective failed): it then exits (3)
A frame it cannot read ends the process with status 2."""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from typing import Any, BinaryIO, Optional

import torch

from .config import ConfigError
from .distributed import DEFAULT_TIMEOUT_S, PeerFailed
from .engine import Engine, OutOfMemory
from .launch import run_peer, serve_group
from .sharding import fsdp2_missing
from .protocol import ProtocolError, read_frame, write_frame


def serve(stdin: BinaryIO, stdout: BinaryIO, device: torch.device, engine: Optional[Any] = None) -> int:
    """Answers frames until stdin ends; `engine` is an Engine or a DistributedEngine (rank 0 of several)."""
    engine = Engine(device) if engine is None else engine
    world_size = getattr(engine, "world_size", 1)
    sharding = "none" if world_size == 1 else ("fsdp2" if getattr(engine, "shard", False) else "replicated")
    hello = {"ok": True, "engine": "torch", "torch": torch.__version__, "device": str(device), "world_size": world_size, "sharding": sharding}
    write_frame(stdout, hello)
    while True:
        try:
            frame = read_frame(stdin)
        except ProtocolError as err:
            print(f"rl_torch_engine: {err}", file=sys.stderr)
            return 2
        if frame is None:
            return 0
        began = time.perf_counter()
        try:
            header, tensors = engine.handle(*frame)
        except PeerFailed as err:
            write_frame(stdout, {"ok": False, "error": {"code": "unavailable", "message": str(err)}, "elapsed_ms": round((time.perf_counter() - began) * 1000, 3)})
            return 3
        except ConfigError as err:
            header, tensors = {"ok": False, "error": {"code": "validation_failed", "message": str(err)}}, {}
        except OutOfMemory as err:
            header, tensors = {"ok": False, "error": {"code": "payload_too_large", "message": str(err)}}, {}
        except (ValueError, KeyError) as err:
            header, tensors = {"ok": False, "error": {"code": "bad_request", "message": str(err)}}, {}
        except Exception as err:  # noqa: BLE001 - reported to the parent, which decides
            traceback.print_exc(file=sys.stderr)
            header, tensors = {"ok": False, "error": {"code": "internal", "message": f"{type(err).__name__}: {err}"}}, {}
        header["elapsed_ms"] = round((time.perf_counter() - began) * 1000, 3)
        write_frame(stdout, header, tensors)


def main(argv: Optional[list] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rl_torch_engine")
    parser.add_argument("command", choices=["serve", "peer"])
    parser.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    parser.add_argument("--world-size", type=int, default=1, help="processes on this machine (one per GPU on CUDA)")
    parser.add_argument("--timeout-s", type=float, default=DEFAULT_TIMEOUT_S, help="how long a collective waits for a slower rank")
    parser.add_argument(
        "--sharding", choices=["auto", "fsdp2", "replicated"], default="auto",
        help="with more than one process: FSDP2 shards (torch >= 2.6), or every rank holds the whole model; auto: fsdp2 where torch has it",
    )
    parser.add_argument("--rank", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--store-port", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.world_size < 1 or not args.timeout_s > 0:
        parser.error("--world-size must be >= 1 and --timeout-s > 0")
    missing = fsdp2_missing() if args.sharding != "replicated" else None
    if args.sharding == "fsdp2" and missing is not None:
        print(f"rl_torch_engine: --sharding fsdp2: {missing}", file=sys.stderr)
        return 2
    shard = args.sharding != "replicated" and missing is None
    if args.command == "peer":
        return run_peer(args.rank, args.world_size, args.store_port, args.device, args.timeout_s, shard)
    if args.world_size > 1 or "WORLD_SIZE" in os.environ and int(os.environ["WORLD_SIZE"]) > 1:
        return serve_group(serve, args.device, args.world_size, args.timeout_s, shard)
    name = ("cuda" if torch.cuda.is_available() else "cpu") if args.device == "auto" else args.device
    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # stray prints must not corrupt the frames
    return serve(sys.stdin.buffer, out, torch.device(name))


if __name__ == "__main__":
    sys.exit(main())
