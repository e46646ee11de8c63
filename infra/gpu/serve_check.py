"""The engine as the policy worker runs it, on the device: `python -m rl_torch_engine serve`
as a child process answering frames. A small random Qwen3 model is opened for training;
the check scores it (against the same model in fp32 on the CPU), trains it for a few
steps to raise the log-probs of fixed responses (as a policy-gradient step with
positive advantages does), saves it and reloads the saved directory on the CPU, then
does the same with LoRA r=8 on every linear layer and fetches the PEFT adapter."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from typing import Any, Dict, List, Sequence, Tuple

import torch

from rl_torch_engine.model import can_compile, load_model_dir
from rl_torch_engine.protocol import read_frame, write_frame
from rl_torch_engine.safetensors import decode_safetensors, write_safetensors
from rl_torch_engine.scoring import score_pairs
from throughput import random_model

TINY_QWEN3 = {
    "architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "vocab_size": 512, "hidden_size": 256, "intermediate_size": 704,
    "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 64, "max_position_embeddings": 512,
    "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "tie_word_embeddings": True, "attention_bias": False,
}
STEPS = 8


def pairs_of(n: int, vocab: int) -> List[Tuple[List[int], List[int]]]:
    g = torch.Generator().manual_seed(5)
    out = []
    for i in range(n):
        p, r = 8 + (i * 5) % 23, 16 + (i * 11) % 41  # uneven lengths: padding on the right in every micro-batch
        out.append((torch.randint(0, vocab, (p,), generator=g).tolist(), torch.randint(0, vocab, (r,), generator=g).tolist()))
    return out


class Child:
    def __init__(self, device: str) -> None:
        here = os.path.dirname(os.path.abspath(__file__))
        env = {**os.environ, "PYTHONPATH": os.path.join(here, "..", "..", "shared", "python")}
        self.proc = subprocess.Popen([sys.executable, "-m", "rl_torch_engine", "serve", "--device", device], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self.hello, _ = read_frame(self.proc.stdout)

    def ask(self, header: Dict[str, Any], tensors: Dict[str, torch.Tensor] | None = None) -> Tuple[Dict[str, Any], Dict[str, torch.Tensor]]:
        write_frame(self.proc.stdin, header, tensors or {})
        answer, out = read_frame(self.proc.stdout)
        if not answer.get("ok"):
            raise RuntimeError(f"{header['op']}: {answer.get('error')}")
        return answer, out

    def close(self) -> int:
        self.proc.stdin.close()
        code = self.proc.wait(timeout=120)
        self.proc.stdout.close()
        return code


def pair_tensors(pairs: Sequence[Tuple[List[int], List[int]]]) -> Dict[str, torch.Tensor]:
    return {
        "prompt_lengths": torch.tensor([len(p) for p, _ in pairs], dtype=torch.int32),
        "response_lengths": torch.tensor([len(r) for _, r in pairs], dtype=torch.int32),
        "ids": torch.tensor([t for p, r in pairs for t in p + r], dtype=torch.int32),
    }


def train(child: Child, pairs: Sequence[Tuple[List[int], List[int]]]) -> List[float]:
    """STEPS updates of -mean(log-prob) over all response tokens; the mean log-prob before each."""
    means = []
    for _ in range(STEPS):
        _, leaves = child.ask({"op": "forward"}, pair_tensors(pairs))
        lp = leaves["logprobs"]
        means.append(float(lp.mean()))
        child.ask({"op": "backward"}, {"logprobs": torch.full_like(lp, -1.0 / lp.numel())})
        child.ask({"op": "step"})
    _, leaves = child.ask({"op": "score"}, pair_tensors(pairs))
    means.append(float(leaves["logprobs"].mean()))
    return means


def generation_check(child: Child, cpu_model: Any, pairs: Sequence[Tuple[List[int], List[int]]]) -> Dict[str, Any]:
    """The generate op on the device: greedy continuations against the same weights greedy in fp32 on the CPU
    (the trained model's own responses, so the greedy path has clear winners), the log-probs it reports against
    teacher-forced scoring of what it generated, and seeded sampling reproduced."""
    from rl_torch_engine.generate import Sampling, generate

    prompts = [p for p, _ in pairs[:8]]
    request = {"prompt_lengths": torch.tensor([len(p) for p in prompts], dtype=torch.int32), "ids": torch.tensor([t for p in prompts for t in p], dtype=torch.int32)}
    answer, tensors = child.ask({"op": "generate", "max_tokens": 16, "temperature": 0}, request)
    lengths = tensors["lengths"].tolist()
    flat = tensors["ids"].tolist()
    rows, at = [], 0
    for n in lengths:
        rows.append(flat[at : at + n])
        at += n
    cpu = generate(cpu_model, prompts, Sampling(0.0, 0, 1.0, 16, frozenset()), [0] * len(prompts), 16384)
    same = sum(a == b for r, c in zip(rows, cpu) for a, b in zip(r, c.ids))
    total = sum(max(len(r), len(c.ids)) for r, c in zip(rows, cpu))
    generated = [(p, r) for p, r in zip(prompts, rows) if r]
    _, scored = child.ask({"op": "score"}, pair_tensors(generated))
    reported = tensors["logprobs"]
    sampled = [child.ask({"op": "generate", "max_tokens": 16, "temperature": 1.0, "seed": 7}, request)[1]["ids"].tolist() for _ in range(2)]
    return {
        "greedy_tokens_equal_cpu_fp32": same / max(total, 1),
        "logprob_vs_teacher_forced_max_abs_diff": float((reported - scored["logprobs"]).abs().max()) if reported.numel() else 0.0,
        "seeded_sampling_reproduces": sampled[0] == sampled[1],
        "finish_reasons": answer["finish_reasons"],
    }


def run_serve_check(device: torch.device) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.join(tmp, "base")
        os.makedirs(base)
        model = random_model(TINY_QWEN3, torch.device("cpu"), seed=3)
        with torch.no_grad():  # larger weights than N(0, 0.02), so log-probs differ from uniform
            for name, p in model.named_parameters():
                if not name.endswith("norm.weight"):
                    p.mul_(3.0)
        write_safetensors(os.path.join(base, "model.safetensors"), {k: v.contiguous() for k, v in model.state_dict().items()})
        with open(os.path.join(base, "config.json"), "w", encoding="utf-8") as f:
            json.dump(TINY_QWEN3, f)
        pairs = pairs_of(24, TINY_QWEN3["vocab_size"])
        optimizer = {"lr": 1e-3, "weight_decay": 0.0, "max_grad_norm": 1.0}

        child = Child(device.type)
        out["hello"] = child.hello
        # max_tokens 512: several micro-batches of uneven rows per request.
        child.ask({"op": "open", "model": base, "train": True, "optimizer": optimizer, "max_tokens": 512})
        _, scored = child.ask({"op": "score"}, pair_tensors(pairs))
        reference = torch.cat([lp for lp, _ in score_pairs(load_model_dir(base), pairs)])
        out["logprob_max_abs_diff_vs_cpu_fp32"] = float((scored["logprobs"] - reference).abs().max())
        out["logprob_mean_abs_diff_vs_cpu_fp32"] = float((scored["logprobs"] - reference).abs().mean())
        out["full_mean_logprob_by_step"] = train(child, pairs)
        saved = os.path.join(tmp, "saved")
        child.ask({"op": "save", "path": saved, "version": "check"})
        _, weights = child.ask({"op": "weights"})
        served, _ = decode_safetensors(bytes(weights["safetensors"].numpy()), "weights")
        reloaded = load_model_dir(saved)
        out["saved_equals_weights_op"] = all(torch.equal(served[k].float(), v) for k, v in reloaded.state_dict().items())
        _, after = child.ask({"op": "score"}, pair_tensors(pairs))
        cpu_after = torch.cat([lp for lp, _ in score_pairs(reloaded, pairs)])
        out["trained_logprob_max_abs_diff_vs_cpu_fp32"] = float((after["logprobs"] - cpu_after).abs().max())
        out["generate"] = generation_check(child, reloaded, pairs)
        out["full_exit"] = child.close()

        if device.type == "cuda" and can_compile():
            # verl's use_torch_compile through the serve loop: uneven micro-batches, so shapes vary between calls.
            child = Child(device.type)
            child.ask({"op": "open", "model": base, "train": True, "optimizer": optimizer, "max_tokens": 512, "compile": True})
            out["compiled_mean_logprob_by_step"] = train(child, pairs)
            out["compiled_generate"] = generation_check(child, load_model_dir(base), pairs)  # weights differ: only that it runs
            out["compiled_exit"] = child.close()

        child = Child(device.type)
        child.ask({"op": "open", "model": base, "train": True, "optimizer": {**optimizer, "lr": 1e-2}, "lora": {"r": 8, "lora_alpha": 16, "target_modules": "all-linear"}})
        out["lora_mean_logprob_by_step"] = train(child, pairs)
        _, ref = child.ask({"op": "score", "adapters": False}, pair_tensors(pairs))
        out["lora_reference_is_base_max_abs_diff"] = float((ref["logprobs"] - scored["logprobs"]).abs().max())
        answer, adapter = child.ask({"op": "adapter", "base_model": base})
        out["lora_adapter"] = {"target_modules": answer["config"].get("target_modules"), "bytes": int(adapter["safetensors"].numel())}
        out["lora_exit"] = child.close()
    full, lora = out["full_mean_logprob_by_step"], out["lora_mean_logprob_by_step"]
    out["ok"] = bool(
        out["logprob_max_abs_diff_vs_cpu_fp32"] < 0.1
        and out["trained_logprob_max_abs_diff_vs_cpu_fp32"] < 0.1
        and out["saved_equals_weights_op"]
        and out["generate"]["greedy_tokens_equal_cpu_fp32"] >= 0.9
        and out["generate"]["logprob_vs_teacher_forced_max_abs_diff"] < 0.1
        and out["generate"]["seeded_sampling_reproduces"]
        and full[-1] > full[0] + 0.1
        and lora[-1] > lora[0] + 0.1
        and out["lora_reference_is_base_max_abs_diff"] < 0.1
        and out["full_exit"] == 0
        and all(abs(a - b) < 0.05 for a, b in zip(out.get("compiled_mean_logprob_by_step", full), full))
        and out.get("compiled_exit", 0) == 0
        and out["lora_exit"] == 0
    )
    return out
