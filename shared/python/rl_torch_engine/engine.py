"""The engine's operations, one per request (see __main__.py for the list).
Each answers a header and tensors; a failure raises, and the serve loop turns
it into an error answer, after which the engine keeps serving."""

from __future__ import annotations

import contextlib
import os
from typing import Any, Dict, List, Optional, Tuple

import torch

from .checkpoint import encode_adam_state, encode_weights, load_adam_state, model_tensors, save_model_dir
from .generate import generate as generate_rows
from .generate import parse_prompts, parse_sampling, parse_seeds
from .model import CausalLM, compile_model, load_model_dir, require_compile
from .protocol import Payload
from .safetensors import encode_safetensors, raw_bytes
from .scoring import DEFAULT_MAX_TOKENS, LEAVES, PAD, Pair, compute_leaves
from .training import Trainer, parse_optimizer

ARCHITECTURES = {"llama": "LlamaForCausalLM", "qwen2": "Qwen2ForCausalLM", "qwen3": "Qwen3ForCausalLM"}
OOM_ADVICE = (
    "lower ppo_micro_batch_size_per_gpu (or ppo_max_token_len_per_gpu with use_dynamic_bsz; "
    "log_prob_micro_batch_size_per_gpu when scoring)"
)

Answer = Tuple[Dict[str, Any], Dict[str, Payload]]


def _adapters_disabled(model: CausalLM) -> Any:
    from .lora import adapters_disabled  # only LoRA runs need it

    return adapters_disabled(model)


def pad_blocks(header: Dict[str, Any]) -> int:
    """The padding micro-batches a sharded rank runs after its own (set by distributed.py, not by the parent)."""
    n = header.get("pad_blocks", 0)
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError("pad_blocks must be an integer >= 0")
    return n


class OutOfMemory(Exception):
    """The device ran out of memory on a request; the message names the setting to lower."""


def is_out_of_memory(err: BaseException) -> bool:
    oom = getattr(torch.cuda, "OutOfMemoryError", None)
    text = str(err)
    return (oom is not None and isinstance(err, oom)) or (isinstance(err, RuntimeError) and ("out of memory" in text or "can't allocate memory" in text))


def read_optimizer_file(path: Any) -> bytes:
    """load_optimizer's file: a path that is not a non-empty string or cannot be read is a clear error."""
    if not isinstance(path, str) or not path:
        raise ValueError("load_optimizer: path must be a file path")
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as err:
        raise ValueError(f"load_optimizer: {path}: cannot be read: {err.strerror}") from None


class Engine:
    def __init__(self, device: torch.device) -> None:
        self.device = device
        self.model: Optional[CausalLM] = None
        self.directory = ""
        self.trainer: Optional[Trainer] = None
        self.max_tokens = DEFAULT_MAX_TOKENS
        self.lora = False

    def handle(self, header: Dict[str, Any], tensors: Dict[str, torch.Tensor]) -> Answer:
        op = header.get("op")
        handler = OPS.get(op) if isinstance(op, str) else None
        if handler is None:
            raise ValueError(f"op: unknown operation {op!r} ({', '.join(OPS)})")
        if op != "open" and self.model is None:
            raise ValueError(f"{op}: no model is open")
        try:
            return handler(self, header, tensors)
        except Exception as err:
            if not is_out_of_memory(err):
                raise
            # What the failed request held is gone; the gradients of a half-accumulated step are dropped with it.
            if self.trainer is not None:
                self.trainer.clear_grads()
            if self.device.type == "cuda":
                torch.cuda.empty_cache()
            raise OutOfMemory(f"{op}: out of memory on {self.device} ({err}); {OOM_ADVICE}; the gradients accumulated for this step were dropped") from None

    def open(self, header: Dict[str, Any], _: Dict[str, torch.Tensor]) -> Answer:
        directory = header.get("model")
        if not isinstance(directory, str) or not directory:
            raise ValueError("open: model must be a directory path")
        train = header.get("train", False)
        checkpointing = header.get("gradient_checkpointing", False)
        compiled = header.get("compile", False)
        lora = header.get("lora")
        adapter = header.get("adapter")
        max_tokens = header.get("max_tokens", DEFAULT_MAX_TOKENS)
        if not isinstance(train, bool):
            raise ValueError("open: train must be a boolean")
        if not isinstance(checkpointing, bool):
            raise ValueError("open: gradient_checkpointing must be a boolean")
        if not isinstance(compiled, bool):
            raise ValueError("open: compile must be a boolean")
        if compiled:
            require_compile()  # before the model loads
        if lora is not None and not isinstance(lora, dict):
            raise ValueError("open: lora must be an object")
        if adapter is not None and (not isinstance(adapter, str) or not adapter):
            raise ValueError("open: adapter must be a PEFT adapter directory path")
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise ValueError("open: max_tokens must be a positive integer (tokens per micro-batch, padding included)")
        spec = parse_optimizer(header.get("optimizer")) if train else None
        self.model, self.trainer = None, None  # the old model is freed before the new one loads
        model = load_model_dir(directory, self.device)
        if lora is not None:
            from .lora import apply_lora  # only LoRA runs need it

            apply_lora(model, lora)
        if adapter is not None:
            from .lora import load_adapter

            load_adapter(model, adapter)  # onto the adapters `lora` made (resume), or its own
        model.model.gradient_checkpointing = checkpointing
        if compiled:
            compile_model(model)  # after LoRA: compiled code traces the modules it finds
        model.train(train)
        if not train:
            model.requires_grad_(False)
        self.trainer = Trainer(model, spec, max_tokens) if spec is not None else None
        self.model, self.directory, self.max_tokens, self.lora = model, directory, max_tokens, lora is not None or adapter is not None
        s = model.spec
        config = {"architecture": ARCHITECTURES[s.family], "vocab_size": s.vocab_size, "max_position_embeddings": s.max_position_embeddings, "value_head": s.value_head}
        return {"ok": True, "config": config}, {}

    def score(self, header: Dict[str, Any], tensors: Dict[str, torch.Tensor]) -> Answer:
        assert self.model is not None
        leaves = self.leaves("score", header, ["logprobs", "entropies"])
        pairs = self.pairs("score", tensors)
        adapters = header.get("adapters", True)
        if not isinstance(adapters, bool):
            raise ValueError("score: adapters must be a boolean")
        if not adapters and not self.lora:
            raise ValueError("score: adapters: false needs a model opened with LoRA (lora or adapter)")
        try:
            # adapters: false scores the base (a LoRA actor's reference policy, without a second copy of the weights).
            with torch.no_grad(), (contextlib.nullcontext() if adapters else _adapters_disabled(self.model)):
                out = compute_leaves(self.model, pairs, leaves, self.max_tokens, pad_blocks(header))
        except ValueError as err:
            raise ValueError(f"score: {err}") from None
        return {"ok": True}, {name: t.cpu() for name, t in out.items() if name != PAD}

    def generate(self, header: Dict[str, Any], tensors: Dict[str, torch.Tensor]) -> Answer:
        """Continuations of the prompts (generate.py) on the current weights; adapters: false samples a LoRA model's base."""
        assert self.model is not None
        spec = self.model.spec
        if spec.value_head:
            raise ValueError("generate: the model is a critic (a value head, no LM head)")
        sampling = parse_sampling(header, spec.vocab_size)
        prompts = parse_prompts(tensors, spec.vocab_size, spec.max_position_embeddings)
        seeds = parse_seeds(header, tensors, len(prompts))
        adapters = header.get("adapters", True)
        if not isinstance(adapters, bool):
            raise ValueError("generate: adapters must be a boolean")
        if not adapters and not self.lora:
            raise ValueError("generate: adapters: false needs a model opened with LoRA (lora or adapter)")
        with contextlib.nullcontext() if adapters else _adapters_disabled(self.model):
            rows = generate_rows(self.model, prompts, sampling, seeds, self.max_tokens)
        header = {"ok": True, "finish_reasons": [r.finish_reason for r in rows], "stop_ids": [r.stop_id for r in rows]}
        return header, {
            "lengths": torch.tensor([len(r.ids) for r in rows], dtype=torch.int32),
            "ids": torch.tensor([t for r in rows for t in r.ids], dtype=torch.int32),
            "logprobs": torch.tensor([lp for r in rows for lp in r.logprobs], dtype=torch.float32),
        }

    def forward(self, header: Dict[str, Any], tensors: Dict[str, torch.Tensor]) -> Answer:
        trainer = self.training("forward")
        trainer.release()
        assert self.model is not None
        leaves = self.leaves("forward", header, ["values"] if self.model.spec.value_head else ["logprobs", "entropies"])
        return {"ok": True}, dict(trainer.forward(self.pairs("forward", tensors), leaves, pad_blocks(header)))

    @staticmethod
    def leaves(op: str, header: Dict[str, Any], default: List[str]) -> List[str]:
        leaves = header.get("leaves", default)
        if not isinstance(leaves, list) or not leaves or any(name not in LEAVES for name in leaves) or len(set(leaves)) != len(leaves):
            raise ValueError(f"{op}: leaves must be a non-empty list of distinct names from {', '.join(LEAVES)}")
        return leaves

    def backward(self, _: Dict[str, Any], tensors: Dict[str, torch.Tensor]) -> Answer:
        self.training("backward").backward(tensors)
        return {"ok": True}, {}

    def release(self, _: Dict[str, Any], __: Dict[str, torch.Tensor]) -> Answer:
        self.training("release").release()
        return {"ok": True}, {}

    def step(self, header: Dict[str, Any], _: Dict[str, torch.Tensor]) -> Answer:
        lr = header.get("lr")
        if lr is not None and (isinstance(lr, bool) or not isinstance(lr, (int, float)) or not lr >= 0 or lr == float("inf")):
            raise ValueError(f"step: lr must be a number >= 0 (got {lr!r})")
        out = self.training("step").step(None if lr is None else float(lr))
        # The norm travels as a tensor: an infinite or NaN norm is not JSON.
        return {"ok": True, "skipped": out["skipped"], "step": out["step"]}, {"grad_norm": torch.tensor([out["grad_norm"]], dtype=torch.float32)}

    def save(self, header: Dict[str, Any], _: Dict[str, torch.Tensor]) -> Answer:
        assert self.model is not None
        path, version = header.get("path"), header.get("version")
        if not isinstance(path, str) or not path:
            raise ValueError("save: path must be a directory path")
        if version is not None and (not isinstance(version, str) or not version):
            raise ValueError("save: version must be a non-empty string")
        save_model_dir(self.hf_tensors(), self.directory, path, version)
        return {"ok": True}, {}

    def weights(self, _: Dict[str, Any], __: Dict[str, torch.Tensor]) -> Answer:
        assert self.model is not None
        return {"ok": True}, {"safetensors": encode_weights(self.hf_tensors())}

    def adapter(self, header: Dict[str, Any], _: Dict[str, torch.Tensor]) -> Answer:
        """The LoRA adapter as peft saves it: adapter_config.json's content and adapter_model.safetensors's bytes."""
        assert self.model is not None
        if not self.lora:
            raise ValueError("adapter: the model was opened without LoRA (lora or adapter)")
        base = header.get("base_model")
        if base is not None and not isinstance(base, str):
            raise ValueError("adapter: base_model must be a string")
        from .lora import adapter_config, adapter_state_dict

        config = adapter_config(self.model, base)
        return {"ok": True, "config": config}, {"safetensors": encode_safetensors(adapter_state_dict(self.model), {"format": "pt"})}

    def hf_tensors(self) -> Dict[str, torch.Tensor]:
        """The weights by Hugging Face name; with LoRA, the base with the adapters merged in."""
        assert self.model is not None
        if self.lora:
            from .lora import merged_state_dict

            return merged_state_dict(self.model)
        return model_tensors(self.model)

    def save_optimizer(self, header: Dict[str, Any], _: Dict[str, torch.Tensor], raw: Optional[bytes] = None) -> Answer:
        """raw: the state's bytes when the caller gathered them already (sharded: every rank takes part)."""
        trainer = self.training("save_optimizer")
        raw = self.optimizer_bytes() if raw is None else raw
        path = header.get("path")
        if path is None:
            return {"ok": True, "step": trainer.steps}, {"state": raw}
        if not isinstance(path, str) or not path:
            raise ValueError("save_optimizer: path must be a file path")
        tmp = f"{path}.tmp-{os.getpid()}"
        with open(tmp, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        return {"ok": True, "step": trainer.steps}, {}

    def optimizer_bytes(self) -> bytes:
        """The AdamW state file's bytes (sharded: every rank must call this, the moments are gathered)."""
        trainer = self.training("save_optimizer")
        return encode_adam_state(trainer.params, trainer.optimizer, trainer.steps, trainer.whole)

    def load_optimizer(self, header: Dict[str, Any], tensors: Dict[str, torch.Tensor]) -> Answer:
        trainer = self.training("load_optimizer")
        path = header.get("path")
        if path is not None:
            raw = read_optimizer_file(path)
        elif "state" in tensors and tensors["state"].dtype == torch.uint8:
            raw = raw_bytes(tensors["state"])
        else:
            raise ValueError("load_optimizer: give a path or the state as a U8 tensor named state")
        trainer.clear_grads()
        trainer.steps = load_adam_state(raw, trainer.params, trainer.optimizer, trainer.place)
        return {"ok": True, "step": trainer.steps}, {}

    def training(self, op: str) -> Trainer:
        if self.trainer is None:
            raise ValueError(f"{op}: the model was opened without train: true")
        return self.trainer

    def pairs(self, op: str, tensors: Dict[str, torch.Tensor]) -> List[Pair]:
        assert self.model is not None
        for name in ("prompt_lengths", "response_lengths", "ids"):
            if name not in tensors:
                raise ValueError(f"{op}: tensor {name} is missing")
        p_len, r_len, ids = tensors["prompt_lengths"].tolist(), tensors["response_lengths"].tolist(), tensors["ids"]
        if len(p_len) != len(r_len) or min(p_len + r_len, default=0) < 0 or sum(p_len) + sum(r_len) != ids.numel():
            raise ValueError(f"{op}: prompt_lengths and response_lengths do not add up to ids")
        vocab, max_len = self.model.spec.vocab_size, self.model.spec.max_position_embeddings
        if ids.numel() and (int(ids.min()) < 0 or int(ids.max()) >= vocab):
            raise ValueError(f"{op}: a token id is outside the vocabulary (vocab_size {vocab})")
        out: List[Pair] = []
        at = 0
        flat = ids.tolist()
        for i, (lp, lr) in enumerate(zip(p_len, r_len)):
            if lp + lr > max_len:
                raise ValueError(f"{op}: pairs[{i}] has {lp + lr} tokens, more than max_position_embeddings ({max_len})")
            out.append((flat[at : at + lp], flat[at + lp : at + lp + lr]))
            at += lp + lr
        return out


OPS = {
    "open": Engine.open,
    "score": Engine.score,
    "generate": Engine.generate,
    "forward": Engine.forward,
    "backward": Engine.backward,
    "release": Engine.release,
    "step": Engine.step,
    "save": Engine.save,
    "weights": Engine.weights,
    "adapter": Engine.adapter,
    "save_optimizer": Engine.save_optimizer,
    "load_optimizer": Engine.load_optimizer,
}
