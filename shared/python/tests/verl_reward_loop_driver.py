"""Runs verl's own reward-loop code on stub tensors, in a process of its own: verl's `load_reward_manager` loads
our function from `reward.custom_reward_function`, builds the registered manager (`naive`, `rate_limited`), and
`RewardLoopWorker.compute_score_batch` (taken from verl's reward_loop.py) awaits one `run_single` per sample;
`assemble_rm_scores` places the scores. PYTHONPATH holds the verl tree test_verl_reward_loop builds from a mirror,
the stand-ins for torch/omegaconf/transformers/ray, and this package.

    verl_reward_loop_driver.py < spec.json   ->   one JSON line on stdout"""

import ast
import asyncio
import json
import os
import sys
import time

from omegaconf import DictConfig
from verl import DataProto
from verl.experimental.reward_loop.reward_manager import get_reward_manager_cls  # noqa: F401  registers naive, rate_limited
from verl.trainer.ppo.reward import load_reward_manager

import torch

PAD, EOS = 0, 1


class CharTokenizer:
    """One token per character; ids 0 and 1 are the special <pad> and <|im_end|>."""

    name_or_path = "stub/char-tokenizer"
    special = {PAD: "<pad>", EOS: "<|im_end|>"}

    def encode(self, text):
        return [ord(c) + 2 for c in text]

    def decode(self, ids, skip_special_tokens=False):
        out = []
        for i in (int(x) for x in ids.tolist()):
            if i in self.special:
                if not skip_special_tokens:
                    out.append(self.special[i])
            else:
                out.append(chr(i - 2))
        return "".join(out)


def build_batch(samples, tokenizer):
    """verl's layout: left-padded prompts, right-padded responses ending in EOS, one attention mask over both."""
    prompts = [tokenizer.encode(s["prompt"]) for s in samples]
    responses = [tokenizer.encode(s["response"]) + [EOS] for s in samples]
    p_len, r_len = max(map(len, prompts)), max(map(len, responses))
    batch = {
        "prompts": torch.tensor([[PAD] * (p_len - len(p)) + p for p in prompts]),
        "responses": torch.tensor([r + [PAD] * (r_len - len(r)) for r in responses]),
        "attention_mask": torch.tensor([[0] * (p_len - len(p)) + [1] * (len(p) + len(r)) + [0] * (r_len - len(r)) for p, r in zip(prompts, responses)]),
    }
    non_tensor = {
        "data_source": [s["data_source"] for s in samples],
        "reward_model": [{"ground_truth": s["ground_truth"], "style": "rule"} for s in samples],
        "extra_info": [dict(s.get("extra_info") or {}) for s in samples],
    }
    return DataProto(batch, non_tensor)


def reward_loop_worker(source):
    """verl's RewardLoopWorker with only its compute_score_batch and compute_score methods (its __init__ starts ray actors)."""
    tree = ast.parse(source)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "RewardLoopWorker")
    methods = [n for n in cls.body if isinstance(n, ast.AsyncFunctionDef) and n.name in ("compute_score_batch", "compute_score")]
    namespace = {"asyncio": asyncio, "DataProto": DataProto}
    exec(compile(ast.Module(body=methods, type_ignores=[]), "verl/experimental/reward_loop/reward_loop.py", "exec"), namespace)
    return type("RewardLoopWorker", (), {m.name: namespace[m.name] for m in methods})


def main():
    spec = json.load(sys.stdin)
    reward = {
        "custom_reward_function": {"path": "pkg://rl_rewards.verl", "name": spec.get("function", "compute_score_async"), "reward_kwargs": spec["reward_kwargs"]},
        "reward_manager": {"source": "register", "name": spec["manager"]},
        **spec.get("reward", {}),
    }
    config = DictConfig({"reward": reward})
    tokenizer = CharTokenizer()
    extra = {"reward_router_address": "127.0.0.1:1", "reward_model_tokenizer": CharTokenizer()} if spec.get("router") else {}
    manager = load_reward_manager(config, tokenizer, **extra)
    data = build_batch(spec["samples"], tokenizer)

    worker = reward_loop_worker(open(os.environ["VERL_REWARD_LOOP_PY"]).read())()
    worker.config, worker.reward_manager = config, manager
    started = time.perf_counter()
    outputs = manager.loop.run_until_complete(worker.compute_score_batch(data))
    wall_s = time.perf_counter() - started
    rm_scores = type(manager).assemble_rm_scores(data, [o["reward_score"] for o in outputs])
    result = {"outputs": outputs, "rm_scores": rm_scores.tolist(), "wall_s": wall_s}
    if spec.get("call"):  # the manager's own synchronous entry point (rate_limited keeps one)
        called = manager(data, return_dict=True)
        result["call"] = {"reward_tensor": called["reward_tensor"].tolist(), "reward_extra_info": dict(called["reward_extra_info"])}
    print(json.dumps(result, default=str))


if __name__ == "__main__":
    main()
