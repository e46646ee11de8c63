"""Starting the engine as several processes: `serve --world-size N` spawns
ranks 1..N-1 on this machine (`peer`, rendezvous on a TCPStore at 127.0.0.1 on
a port the kernel picked); under torchrun (RANK/WORLD_SIZE in the environment)
global rank 0 serves and the others follow it. Rank 0 sends the frames on a
duplicate of stdout; whatever else writes to stdout goes to stderr."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from typing import Any, List, Optional, Sequence, Tuple

import torch
import torch.distributed as dist

from .distributed import STARTUP_TIMEOUT, DistributedEngine, Groups, World, describe_exit
from .engine import Engine


def world_from_env() -> Optional[World]:
    """The world torchrun describes in the environment, or None outside torchrun (or with one process)."""
    if "RANK" not in os.environ or "WORLD_SIZE" not in os.environ:
        return None
    size = int(os.environ["WORLD_SIZE"])
    if size <= 1:
        return None
    rank = int(os.environ["RANK"])
    return World(rank, size, int(os.environ.get("LOCAL_RANK", rank)), int(os.environ.get("LOCAL_WORLD_SIZE", size)))


def rank_device(name: str, world: World) -> torch.device:
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda":
        torch.cuda.set_device(world.local_rank)
        return torch.device("cuda", world.local_rank)
    if "OMP_NUM_THREADS" not in os.environ:  # N processes on one machine share its cores
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // world.local_size))
    return torch.device("cpu")


def spawn_peers(size: int, device_name: str, timeout_s: float, shard: bool) -> Tuple[Any, List["subprocess.Popen[bytes]"]]:
    """Rank 0's store (on a port the kernel picks) and ranks 1..size-1 as child processes. A peer's stdin is a
    pipe rank 0 never writes: its end tells the peer that rank 0 is gone."""
    store = dist.TCPStore("127.0.0.1", 0, size, True, timeout=STARTUP_TIMEOUT, wait_for_workers=False)
    peers = []
    for r in range(1, size):
        argv = ["peer", "--rank", str(r), "--world-size", str(size), "--store-port", str(store.port), "--device", device_name, "--timeout-s", str(timeout_s)]
        argv += ["--sharding", "fsdp2" if shard else "replicated"]
        peers.append(subprocess.Popen([sys.executable, "-m", "rl_torch_engine", *argv], stdin=subprocess.PIPE))
    return store, peers


def form_group(world: World, device: torch.device, timeout_s: float, store: Optional[Any], peers: Sequence["subprocess.Popen[bytes]"]) -> Groups:
    """Joins the group; a peer that exits before it forms ends rank 0 at once rather than at the rendezvous timeout."""
    formed = threading.Event()

    def watch() -> None:
        while not formed.wait(0.2):
            for r, peer in enumerate(peers, start=1):
                code = peer.poll()
                if code is not None:
                    print(f"rl_torch_engine: peer rank {r} exited ({describe_exit(code)}) before the group formed", file=sys.stderr, flush=True)
                    os._exit(3)

    if peers:
        threading.Thread(target=watch, daemon=True).start()
    try:
        return Groups(world, device, timeout_s, store)
    finally:
        formed.set()


def serve_group(serve: Any, device_name: str, world_size: int, timeout_s: float, shard: bool) -> int:
    """`serve --world-size N` (N > 1) or `serve` under torchrun: rank 0 serves frames with serve(stdin, stdout,
    device, engine); the other ranks follow it."""
    world = world_from_env()
    store, peers = None, []
    if world is None:
        gpus = torch.cuda.device_count() if device_name == "cuda" or (device_name == "auto" and torch.cuda.is_available()) else 0
        if gpus and world_size > gpus:
            print(f"rl_torch_engine: --world-size {world_size} needs {world_size} GPUs (one per process); torch sees {gpus}", file=sys.stderr)
            return 2
        world = World(0, world_size, 0, world_size)
        store, peers = spawn_peers(world_size, device_name, timeout_s, shard)
    device = rank_device(device_name, world)
    out = os.fdopen(os.dup(1), "wb") if world.rank == 0 else None
    os.dup2(2, 1)  # the frames leave by `out`; whatever else writes to stdout (NCCL's logs, a stray print) goes to stderr
    sys.stdout = sys.stderr
    groups = form_group(world, device, timeout_s, store, peers)
    engine = DistributedEngine(Engine(device), world, groups, peers, shard)
    if out is None:
        return engine.serve_peer()
    code = serve(sys.stdin.buffer, out, device, engine)
    engine.close()
    if engine.broken:
        sys.stderr.flush()
        os._exit(code or 3)  # a broken group's teardown can block
    return code


def run_peer(rank: int, world_size: int, store_port: int, device_name: str, timeout_s: float, shard: bool) -> int:
    """A peer spawned by rank 0 (serve --world-size N)."""

    def orphaned() -> None:
        while os.read(0, 4096):  # the raw descriptor: a buffered reader's lock would stall the interpreter's exit
            pass
        os._exit(3)

    threading.Thread(target=orphaned, daemon=True).start()
    world = World(rank, world_size, rank, world_size)
    device = rank_device(device_name, world)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    store = dist.TCPStore("127.0.0.1", store_port, world_size, False, timeout=STARTUP_TIMEOUT)
    engine = DistributedEngine(Engine(device), world, Groups(world, device, timeout_s, store), shard=shard)
    return engine.serve_peer()
