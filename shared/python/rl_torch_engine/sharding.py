"""FSDP2 sharding of the engine's model over the ranks of distributed.py
(torch.distributed.fsdp.fully_shard, torch >= 2.6): each decoder layer is a
unit, and a root unit holds the rest (embeddings, final norm, LM head, value
head) around one micro-batch's whole computation (scoring.run_block). Every
parameter, gradient and AdamW moment lives on one rank only, a 1/N share.

What FSDP needs of its callers, and where this package gives it:
- every rank runs as many forward and backward passes as the others, since the
  all-gathers and reduce-scatters run inside them: distributed.py pads each
  rank's micro-batches to the largest count (scoring.compute_leaves's
  pad_blocks) and every rank differentiates every forward (Trainer.sharded);
- the reduce-scatter averages over the ranks, and gloo has no pre-multiplied
  sum to undo it, so the leaf gradients handed to backward are scaled by N (the
  gradients the ranks' slices give are summed, as with replicated weights);
- an operation one rank answers alone (save, weights, adapter, generate) runs
  inside gathered(): every rank gathers each parameter whole, and rank 0 works
  on the whole tensors with no collective of its own;
- AdamW moments are gathered into whole tensors for the state file and cut
  back into shards when it is loaded (Trainer.whole / Trainer.place)."""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence

import torch

from .model import CausalLM


def fsdp2_missing() -> Optional[str]:
    """Why this torch cannot shard with FSDP2, or None when it can."""
    try:
        from torch.distributed.device_mesh import DeviceMesh  # noqa: F401
        from torch.distributed.fsdp import FSDPModule, fully_shard  # noqa: F401
        from torch.distributed.tensor import DTensor, distribute_tensor  # noqa: F401
    except Exception as err:  # noqa: BLE001 - an import that fails for any reason means no FSDP2
        return f"torch {torch.__version__} cannot import FSDP2 (torch.distributed.fsdp.fully_shard): {type(err).__name__}: {' '.join(str(err).split())[:200]}"
    if not hasattr(DeviceMesh, "from_group"):
        return f"torch {torch.__version__} has no DeviceMesh.from_group"
    return None


class Root(torch.nn.Module):
    """FSDP's root unit: the parameters outside the decoder layers are gathered around each call."""

    def __init__(self, model: CausalLM) -> None:
        super().__init__()
        self.lm = model

    def forward(self, fn: Callable[..., Dict[str, torch.Tensor]], block: Any, leaves: Sequence[str]) -> Dict[str, torch.Tensor]:
        return fn(self.lm, block, leaves)


class Sharded:
    """A model sharded in place over a process group: its parameters become DTensors (1/N each)."""

    def __init__(self, model: CausalLM, group: Any, device: torch.device) -> None:
        from torch.distributed.device_mesh import DeviceMesh
        from torch.distributed.fsdp import fully_shard

        self.mesh = DeviceMesh.from_group(group, device.type)
        for layer in model.model.layers:
            fully_shard(layer, mesh=self.mesh)
        self.root = Root(model)
        fully_shard(self.root, mesh=self.mesh)
        self.model = model
        root = self.root
        # A plain attribute, not a submodule: the model must not own its own wrapper.
        object.__setattr__(model, "block_runner", lambda fn, block, leaves: root(fn, block, leaves))

    @contextlib.contextmanager
    def gathered(self, keep: bool) -> Iterator[None]:
        """Every rank gathers each parameter whole (collectives, in module order); with keep (rank 0), the whole
        tensors stand in the model's modules for as long as the block runs, so a pass inside reads them with no
        collective of its own (generation calls the layers' forward directly, past FSDP's hooks). The sharded
        parameters go back afterwards, the same objects the optimizer holds."""
        from torch.distributed.tensor import DTensor

        swapped: List[Any] = []
        try:
            with torch.no_grad():
                for module in self.model.modules():
                    for name, p in list(module._parameters.items()):
                        if not isinstance(p, DTensor):
                            continue
                        whole = p.full_tensor()
                        if keep:
                            module._parameters[name] = torch.nn.Parameter(whole, requires_grad=p.requires_grad)
                            swapped.append((module, name, p))
                        del whole
            yield
        finally:
            for module, name, p in swapped:
                module._parameters[name] = p

    @staticmethod
    def whole(t: torch.Tensor) -> torch.Tensor:
        """A sharded tensor gathered from every rank (a collective: every rank calls it in the same order)."""
        from torch.distributed.tensor import DTensor

        return t.full_tensor() if isinstance(t, DTensor) else t

    @staticmethod
    def place(whole: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
        """This rank's shard of a whole tensor, laid out as the sharded parameter `like`."""
        from torch.distributed.tensor import DTensor, distribute_tensor

        if not isinstance(like, DTensor):
            return whole.to(like.device, torch.float32).clone()
        return distribute_tensor(whole.to(like.to_local().device, torch.float32), like.device_mesh, like.placements)
