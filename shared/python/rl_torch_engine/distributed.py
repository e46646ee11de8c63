"""More than one process (verl's trainer.n_gpus_per_node x trainer.nnodes): data
parallel with replicated weights, DDP's semantics.

Rank 0 is the process the parent talks to (frames on stdin/stdout); launch.py
starts the group. Backend gloo on CPU, nccl on CUDA (one GPU per local rank).

Each request is broadcast to the peers (a gloo group of its own, where the peers
wait as long as the parent stays idle; rank 0 does not wait for it); every rank runs its part, then
the ranks agree (one all-gather of each rank's failure or None) before any
collective that moves tensors, so a request refused on one rank fails on all and
none waits in a collective the others never enter. `score`/`forward` split the
pairs into contiguous, token-balanced slices, one per rank, and rank 0 gathers
the leaves in order; `backward` hands each rank its slice of the leaf gradients;
`step` sums the gradients over the ranks (all-reduce) before clipping, so every
rank applies the same AdamW update and the weights stay identical (`sync_check`
compares checksums). `open` loads the model on every rank and copies rank 0's
parameters to the others (random LoRA initialisations agree). `save`, `weights`,
`adapter` and `save_optimizer` are rank 0's alone; `load_optimizer` reaches every rank as
bytes read by rank 0.

A peer that exits, or a collective that fails or passes its timeout, fails the
request with PeerFailed: the serve loop answers `unavailable` and the process
exits (the group cannot be mended), ending its peers."""

from __future__ import annotations

import hashlib
import os
import pickle
import subprocess
import sys
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Dict, List, Optional, Sequence, Tuple

import torch
import torch.distributed as dist

from .config import ConfigError
from .engine import Answer, Engine, OutOfMemory, read_optimizer_file
from .scoring import blocks, check_pairs
from .sharding import Sharded
from .training import Trainer

# A peer waits for the next request as long as the parent stays idle; every other wait is for a slower rank.
CONTROL_TIMEOUT = timedelta(days=30)
STARTUP_TIMEOUT = timedelta(seconds=600)
DEFAULT_TIMEOUT_S = 300.0
EXIT = "__exit__"
RANK0_ONLY = ("save", "weights", "adapter", "save_optimizer", "generate")  # answers from rank 0's replica; every other op runs on every rank
SLICED = ("score", "forward")
BUCKET_ELEMENTS = 1 << 24


class PeerFailed(Exception):
    """A peer exited, or a collective failed or timed out: the group is broken and the engine stops."""


@dataclass(frozen=True)
class World:
    rank: int
    size: int
    local_rank: int
    local_size: int


def shares(weights: Sequence[int], parts: int) -> List[Tuple[int, int]]:
    """Contiguous [start, end) runs of the items, one per part, cut where the running weight passes
    each part's fair share (a part may be empty when there are fewer items than parts)."""
    total = sum(weights)
    cuts = [0]
    acc, i = 0, 0
    for r in range(1, parts):
        while i < len(weights) and (acc + weights[i]) * parts <= total * r:
            acc += weights[i]
            i += 1
        if i < len(weights) and i == cuts[-1] and acc * parts < total * r:
            acc += weights[i]  # an item heavier than a share still goes somewhere
            i += 1
        cuts.append(i)
    cuts.append(len(weights))
    return [(cuts[r], cuts[r + 1]) for r in range(parts)]


def describe_exit(code: int) -> str:
    return f"signal {-code}" if code < 0 else f"exit status {code}"


class Groups:
    """The process group for tensors (gloo or nccl), a gloo one for small objects, and the request channel."""

    def __init__(self, world: World, device: torch.device, timeout_s: float, store: Optional[Any]) -> None:
        backend = "nccl" if device.type == "cuda" else "gloo"
        timeout = timedelta(seconds=timeout_s)
        where: Dict[str, Any] = {"store": store} if store is not None else {"init_method": "env://"}
        # The default group waits for the slowest rank to start (importing torch, loading CUDA); it carries nothing after.
        dist.init_process_group(backend, rank=world.rank, world_size=world.size, timeout=STARTUP_TIMEOUT, **where)
        self.tensors: Any = dist.new_group(backend=backend, timeout=timeout)
        self.objects: Any = self.tensors if backend == "gloo" else dist.new_group(backend="gloo", timeout=timeout)
        self.control: Any = dist.new_group(backend="gloo", timeout=CONTROL_TIMEOUT)
        self.comm_device = device
        self.timeout_s = timeout_s


class DistributedEngine:
    """Engine's operations over a group of processes; the same handle() as Engine on rank 0, serve_peer() elsewhere."""

    def __init__(self, engine: Engine, world: World, groups: Groups, peers: Sequence["subprocess.Popen[bytes]"] = (), shard: bool = False) -> None:
        self.engine = engine
        # FSDP2 (sharding.py) when asked: each model `open` loads is sharded over the ranks; else replicated.
        self.shard = shard
        self.sharded: Optional[Sharded] = None
        self.world = world
        self.world_size = world.size
        self.groups = groups
        self.peers = list(peers)
        # The pending forward: its leaves and, per rank, the length of that rank's slice of each.
        self.pending: Optional[Tuple[List[str], List[int]]] = None
        self.broken = False

    # ----- rank 0 -----
    def handle(self, header: Dict[str, Any], tensors: Dict[str, torch.Tensor]) -> Answer:
        if self.broken:
            raise PeerFailed("the process group is broken")
        self.check_peers()
        if header.get("op") == "load_optimizer" and header.get("path") is not None:
            header, tensors = self.inline_file(header)
        try:
            sent = self.send_request(header, tensors)
        except Exception as err:  # noqa: BLE001 - any failure here is the group's
            raise self.failure(f"{header.get('op')}: sending the request to the peers failed", err) from None
        try:
            return self.run(header, tensors)
        finally:
            if not self.broken:  # the ranks agreed, so every peer has taken the request
                for work in sent:
                    work.wait()

    def inline_file(self, header: Dict[str, Any]) -> Tuple[Dict[str, Any], Dict[str, torch.Tensor]]:
        """load_optimizer's file, read here and sent to every rank as bytes (the peers may not see this disk)."""
        raw = read_optimizer_file(header["path"])
        return {"op": "load_optimizer"}, {"state": torch.frombuffer(bytearray(raw), dtype=torch.uint8) if raw else torch.empty(0, dtype=torch.uint8)}

    def check_peers(self) -> None:
        for r, peer in enumerate(self.peers, start=1):
            code = peer.poll()
            if code is not None:
                self.broken = True
                raise PeerFailed(f"peer rank {r} (pid {peer.pid}) exited ({describe_exit(code)}); the engine stops")

    def failure(self, doing: str, err: BaseException) -> PeerFailed:
        """A failed collective: names the peer that died when one did (given a moment to be reaped)."""
        self.broken = True
        dead = []
        for r, peer in enumerate(self.peers, start=1):
            try:
                code = peer.wait(timeout=2)
            except subprocess.TimeoutExpired:
                continue
            dead.append(f"peer rank {r} (pid {peer.pid}) exited ({describe_exit(code)})")
        if dead:
            why = "; ".join(dead)
        else:
            detail = " ".join(str(err).split())[:300]
            why = f"no peer has exited, one may be stuck (collectives wait {self.groups.timeout_s:g} s): {type(err).__name__}: {detail}"
        return PeerFailed(f"{doing}: {why}; the engine stops")

    def close(self) -> None:
        """Ends the peers: a clean exit after EOF, else they are killed."""
        if not self.broken:
            try:
                self.send_request({"op": EXIT}, {})
            except Exception:  # noqa: BLE001 - they are killed below
                self.broken = True
        for peer in self.peers:
            try:
                peer.wait(timeout=30 if not self.broken else 0.1)
            except subprocess.TimeoutExpired:
                peer.kill()
                peer.wait()
        if not self.broken:
            dist.destroy_process_group()

    def send_request(self, header: Dict[str, Any], tensors: Dict[str, torch.Tensor]) -> List[Any]:
        """Starts the request's broadcast to every peer and returns at once: a gloo send to a stopped peer waits
        without a timeout, so rank 0 goes on to the agreement, whose receive has one."""
        raw = pickle.dumps((dict(header), {k: v.clone() for k, v in tensors.items()}))
        return [self.broadcast(torch.tensor([len(raw)], dtype=torch.int64)), self.broadcast(torch.frombuffer(bytearray(raw), dtype=torch.uint8))]

    # ----- the other ranks -----
    def receive_request(self) -> Tuple[Dict[str, Any], Dict[str, torch.Tensor]]:
        """The next request from rank 0, however long the parent stays idle."""
        size = torch.zeros(1, dtype=torch.int64)
        self.broadcast(size).wait()
        raw = torch.empty(int(size[0]), dtype=torch.uint8)
        self.broadcast(raw).wait()
        header, tensors = pickle.loads(raw.numpy().tobytes())  # from rank 0, this program's own process
        return header, tensors

    def broadcast(self, t: torch.Tensor) -> Any:
        """From rank 0 on the request channel (the peers wait there as long as the parent stays idle)."""
        return dist.broadcast(t, src=0, group=self.groups.control, async_op=True)

    def serve_peer(self) -> int:
        while True:
            try:
                header, tensors = self.receive_request()
            except Exception as err:  # noqa: BLE001 - rank 0 is gone
                print(f"rl_torch_engine rank {self.world.rank}: rank 0 is gone ({err})", file=sys.stderr)
                return 3
            if header.get("op") == EXIT:
                dist.destroy_process_group()
                return 0
            try:
                self.run(header, tensors)
            except PeerFailed as err:
                print(f"rl_torch_engine rank {self.world.rank}: {err}", file=sys.stderr)
                return 3
            except Exception:  # noqa: BLE001 - rank 0 answers the error; this rank keeps serving
                pass

    # ----- every rank -----
    def run(self, header: Dict[str, Any], tensors: Dict[str, torch.Tensor]) -> Answer:
        op = header.get("op")
        answer: Optional[Answer] = None
        error: Optional[BaseException] = None
        try:
            answer = self.local(op, header, tensors)
        except Exception as err:  # noqa: BLE001 - agreed on below
            error = err
        self.agree(op, error)
        assert answer is not None
        return self.finish(op, answer)

    def local(self, op: Any, header: Dict[str, Any], tensors: Dict[str, torch.Tensor]) -> Answer:
        engine = self.engine
        if op in RANK0_ONLY:
            if self.sharded is not None:
                return self.rank0_sharded(op, header, tensors)
            return engine.handle(header, tensors) if self.world.rank == 0 else ({"ok": True}, {})
        if op == "sync_check":
            return {"ok": True}, {}
        if op in SLICED:
            return self.sliced(op, header, tensors)
        if op == "backward":
            return self.backward(tensors)
        if op in ("release", "step", "open", "load_optimizer"):
            self.pending = None
        if op == "open":
            self.sharded = None
        answer = engine.handle(header, tensors)
        if op == "open" and engine.trainer is not None and not self.shard:
            engine.trainer.reduce_grads = self.sum_grads
        return answer

    def rank0_sharded(self, op: str, header: Dict[str, Any], tensors: Dict[str, torch.Tensor]) -> Answer:
        """A rank-0 operation on a sharded model: every rank gathers what it needs, rank 0 answers."""
        assert self.sharded is not None
        engine = self.engine
        if op == "save_optimizer":
            raw = engine.optimizer_bytes()  # the moments gathered on every rank
            return engine.save_optimizer(header, tensors, raw) if self.world.rank == 0 else ({"ok": True}, {})
        with self.sharded.gathered(keep=self.world.rank == 0):
            return engine.handle(header, tensors) if self.world.rank == 0 else ({"ok": True}, {})

    def shard_model(self) -> None:
        """FSDP2 over the tensor group, after rank 0's weights reached every rank; the trainer is rebuilt over the shards."""
        engine = self.engine
        assert engine.model is not None
        try:
            self.sharded = Sharded(engine.model, self.groups.tensors, self.groups.comm_device)
        except Exception:
            engine.model, engine.trainer = None, None  # half sharded: unusable
            raise
        old = engine.trainer
        if old is not None:
            trainer = Trainer(engine.model, old.spec, old.max_tokens, sharded=True)
            trainer.whole, trainer.place = Sharded.whole, Sharded.place
            engine.trainer = trainer

    def sliced(self, op: str, header: Dict[str, Any], tensors: Dict[str, torch.Tensor]) -> Answer:
        """This rank's slice of the pairs, after checks of the whole request (the same on every rank)."""
        engine = self.engine
        if engine.model is None:
            raise ValueError(f"{op}: no model is open")
        if op == "forward":
            trainer = engine.training(op)
            trainer.release()
            self.pending = None
        default = ["values"] if op == "forward" and engine.model.spec.value_head else ["logprobs", "entropies"]
        leaves = Engine.leaves(op, header, default)
        pairs = engine.pairs(op, tensors)
        try:
            check_pairs(pairs)
        except ValueError as err:
            raise ValueError(f"{op}: {err}") from None
        if "values" in leaves and not engine.model.spec.value_head:
            raise ValueError(f"{op}: values asked of a model without a value head (not a critic)")
        cuts = shares([len(p) + len(r) for p, r in pairs], self.world.size)
        lengths = [sum(len(r) for _, r in pairs[a:b]) for a, b in cuts]
        a, b = cuts[self.world.rank]
        extra: Dict[str, Any] = {}
        if self.sharded is not None:
            # As many micro-batches on every rank: FSDP's collectives run inside each forward and backward.
            counts = [len(blocks(pairs[c:d], engine.max_tokens)) for c, d in cuts]
            extra["pad_blocks"] = max(counts) - counts[self.world.rank]
        if a == b and self.sharded is None:
            out: Dict[str, Any] = {name: torch.empty(0) for name in leaves}
        else:
            p_len, r_len = tensors["prompt_lengths"], tensors["response_lengths"]
            start = int(p_len[:a].sum() + r_len[:a].sum())
            end = start + int(p_len[a:b].sum() + r_len[a:b].sum())
            part = {"prompt_lengths": p_len[a:b], "response_lengths": r_len[a:b], "ids": tensors["ids"][start:end]}
            _, out = engine.handle({**header, "leaves": leaves, **extra}, part)
        if op == "forward":
            self.pending = (leaves, lengths)
        return {"ok": True, "lengths": lengths}, out

    def backward(self, tensors: Dict[str, torch.Tensor]) -> Answer:
        trainer = self.engine.training("backward")
        pending, self.pending = self.pending, None
        if pending is None:
            raise ValueError("backward: no forward is pending (each forward's graph serves one backward)")
        leaves, lengths = pending
        total = sum(lengths)
        for name, g in tensors.items():
            if name not in leaves:
                trainer.release()
                raise ValueError(f"backward: {name} is not a leaf of the pending forward ({', '.join(leaves)})")
            if g.numel() != total:
                trainer.release()
                raise ValueError(f"backward: {name} has {g.numel()} values, the forward answered {total}")
        start = sum(lengths[: self.world.rank])
        n = lengths[self.world.rank]
        if self.sharded is not None:
            # FSDP's reduce-scatter averages over the ranks; the slices' gradients are to be summed.
            scale = float(self.world.size)
            return self.engine.handle({"op": "backward"}, {name: g.reshape(-1)[start : start + n] * scale for name, g in tensors.items()})
        if n == 0:
            trainer.release()
            trainer.accumulated = True
            return {"ok": True}, {}
        return self.engine.handle({"op": "backward"}, {name: g.reshape(-1)[start : start + n] for name, g in tensors.items()})

    def sum_grads(self, grads: Sequence[torch.Tensor]) -> None:
        """Trainer.step's hook before clipping: each gradient becomes its sum over the ranks (in buckets)."""
        bucket: List[torch.Tensor] = []
        size = 0
        for g in grads:
            if bucket and (g.dtype != bucket[0].dtype or size + g.numel() > BUCKET_ELEMENTS):
                self.all_reduce(bucket)
                bucket, size = [], 0
            bucket.append(g)
            size += g.numel()
        if bucket:
            self.all_reduce(bucket)

    def all_reduce(self, bucket: List[torch.Tensor]) -> None:
        flat = torch.cat([t.reshape(-1) for t in bucket])
        try:
            dist.all_reduce(flat, group=self.groups.tensors)
        except Exception as err:  # noqa: BLE001
            raise self.failure("step: summing the gradients over the ranks failed", err) from None
        at = 0
        for t in bucket:
            t.copy_(flat[at : at + t.numel()].view_as(t))
            at += t.numel()

    def agree(self, op: Any, error: Optional[BaseException]) -> None:
        if isinstance(error, PeerFailed):
            raise error  # the group is broken: no collective can be trusted to end
        mine = None if error is None else (kind_of(error), str(error))
        everyone: List[Any] = [None] * self.world.size
        try:
            dist.all_gather_object(everyone, mine, group=self.groups.objects)
        except Exception as err:  # noqa: BLE001
            if self.world.rank == 0:
                raise self.failure(f"{op}: the ranks did not answer", err) from None
            raise PeerFailed(f"{op}: the ranks did not answer ({err})") from None
        failed = [(r, f) for r, f in enumerate(everyone) if f is not None]
        if not failed:
            return
        divergent = len(failed) < self.world.size or len({f for _, f in failed}) > 1
        if divergent and op in ("forward", "backward", "step") and self.engine.trainer is not None:
            self.engine.trainer.clear_grads()  # a slice's gradients are missing: the step's sum would be wrong
            self.pending = None
        if error is not None:
            raise error
        r, (kind, message) = failed[0]
        raise rebuild(kind, f"rank {r}: {message}" + ("; the gradients accumulated for this step were dropped on every rank" if divergent and op in ("forward", "backward", "step") else ""))

    def finish(self, op: Any, answer: Answer) -> Answer:
        header, tensors = answer
        if op == "open":
            self.copy_rank0_parameters()
            if self.shard:
                self.shard_model()
            header = {**header, "sharding": "fsdp2" if self.shard else "replicated"}
        elif op in SLICED:
            lengths = header.pop("lengths")
            tensors = self.gather(dict(tensors), lengths)
        elif op == "sync_check":
            everyone: List[Any] = [None] * self.world.size
            try:
                dist.all_gather_object(everyone, (self.checksum(), os.getpid()), group=self.groups.objects)
            except Exception as err:  # noqa: BLE001
                raise self.failure("sync_check: the ranks did not answer", err) from None
            sums = [c for c, _ in everyone]
            # Sharded, each rank holds different shards: their checksums differ by design.
            identical = None if self.sharded is not None else len(set(sums)) == 1
            header = {"ok": True, "world_size": self.world.size, "checksums": sums, "identical": identical, "pids": [p for _, p in everyone]}
        return header, tensors

    def copy_rank0_parameters(self) -> None:
        assert self.engine.model is not None
        try:
            with torch.no_grad():
                for t in self.engine.model.state_dict().values():
                    dist.broadcast(t, src=0, group=self.groups.tensors)
        except Exception as err:  # noqa: BLE001
            raise self.failure("open: copying rank 0's weights to the peers failed", err) from None

    def gather(self, local: Dict[str, torch.Tensor], lengths: List[int]) -> Dict[str, torch.Tensor]:
        """Every rank's slice of each leaf, in rank order (so in pair order); padded to one width for all_gather."""
        names = list(local)
        width = max(lengths)
        if width == 0:
            return {name: torch.empty(0) for name in names}
        mine = torch.zeros(len(names), width, device=self.groups.comm_device)
        for i, name in enumerate(names):
            t = local[name]
            mine[i, : t.numel()] = t.to(mine.device, torch.float32)
        parts = [torch.empty_like(mine) for _ in range(self.world.size)]
        try:
            dist.all_gather(parts, mine, group=self.groups.tensors)
        except Exception as err:  # noqa: BLE001
            raise self.failure("gathering the leaves failed", err) from None
        return {name: torch.cat([p[i, :n] for p, n in zip(parts, lengths)]).cpu() for i, name in enumerate(names)}

    def checksum(self) -> str:
        """SHA-256 of this rank's parameters and AdamW state (sharded: its shards), bit for bit."""
        digest = hashlib.sha256()
        if self.engine.model is not None:
            for name, t in self.engine.model.state_dict().items():
                digest.update(name.encode())
                digest.update(local(t).detach().cpu().contiguous().numpy().tobytes())
        trainer = self.engine.trainer
        if trainer is not None:
            for p in trainer.params.values():
                for key in ("exp_avg", "exp_avg_sq"):
                    s = trainer.optimizer.state.get(p, {}).get(key)
                    if s is not None:
                        digest.update(local(s).detach().cpu().contiguous().numpy().tobytes())
        return digest.hexdigest()


def local(t: torch.Tensor) -> torch.Tensor:
    """This rank's part of a tensor: a DTensor's shard, any other tensor itself."""
    to_local = getattr(t, "to_local", None)
    return to_local() if callable(to_local) else t


def kind_of(err: BaseException) -> str:
    if isinstance(err, PeerFailed):
        return "peer"
    if isinstance(err, ConfigError):
        return "config"
    if isinstance(err, OutOfMemory):
        return "oom"
    if isinstance(err, (ValueError, KeyError)):
        return "value"
    return "internal"


def rebuild(kind: str, message: str) -> Exception:
    """A peer's failure as rank 0 raises it (the serve loop maps the type to an error code)."""
    if kind == "peer":
        return PeerFailed(message)
    if kind == "config":
        return ConfigError(message)
    if kind == "oom":
        return OutOfMemory(message)
    if kind == "value":
        return ValueError(message)
    return RuntimeError(message)
