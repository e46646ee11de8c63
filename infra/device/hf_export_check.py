"""Loads a model directory this project exported with transformers (and vLLM when installed) and checks it
against the numbers our engine computed for the same inputs.

Runs on the lent GPU machine (torch, transformers; no node there), over files prepared here by
`node infra/device/prepare-hf-export-check.ts`:

    python3 infra/device/hf_export_check.py CHECK_DIR

CHECK_DIR holds `policy/` (an HF directory: ...ForCausalLM), optionally `critic/` (...ForTokenClassification,
one label), and `cases.json`: {"pairs": [{"prompt_ids", "response_ids", "logprobs", "entropies", "values"?}],
"chats": [{"messages", "tools", "ids"}]}. Prints one JSON line per check and exits non-zero when any fails.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

TOLERANCE = 2e-3  # float32 on a GPU (TF32 off) against float32 on CPU wasm


def log(check: str, ok: bool, **fields: object) -> bool:
    print(json.dumps({"check": check, "ok": ok, **fields}), flush=True)
    return ok


def teacher_forced(model: torch.nn.Module, prompt: list[int], response: list[int], device: str) -> torch.Tensor:
    ids = torch.tensor([prompt + response], device=device)
    with torch.no_grad():
        return model(input_ids=ids).logits[0].float()


def check_policy(root: Path, cases: dict, device: str) -> bool:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(root / "policy", dtype=torch.float32).to(device).eval()
    ok = log("load policy", True, cls=type(model).__name__)
    worst_lp = worst_ent = 0.0
    for pair in cases["pairs"]:
        prompt, response = pair["prompt_ids"], pair["response_ids"]
        logits = teacher_forced(model, prompt, response, device)
        steps = logits[len(prompt) - 1 : len(prompt) - 1 + len(response)]
        lsm = torch.log_softmax(steps, dim=-1)
        lp = lsm.gather(1, torch.tensor(response, device=device)[:, None])[:, 0]
        ent = -(lsm.exp() * lsm).sum(-1)
        worst_lp = max(worst_lp, (lp.cpu() - torch.tensor(pair["logprobs"])).abs().max().item())
        worst_ent = max(worst_ent, (ent.cpu() - torch.tensor(pair["entropies"])).abs().max().item())
    ok &= log("policy logprobs", worst_lp < TOLERANCE, max_abs_diff=worst_lp, pairs=len(cases["pairs"]))
    ok &= log("policy entropies", worst_ent < TOLERANCE, max_abs_diff=worst_ent)

    tok = AutoTokenizer.from_pretrained(root / "policy")
    for i, chat in enumerate(cases.get("chats", [])):
        ids = tok.apply_chat_template(chat["messages"], tools=chat.get("tools"), add_generation_prompt=True, tokenize=True)
        if isinstance(ids, dict):
            ids = ids["input_ids"]
        ok &= log(f"chat template {i}", list(ids) == chat["ids"], ours=len(chat["ids"]), theirs=len(ids))
    return ok


def check_critic(root: Path, cases: dict, device: str) -> bool:
    if not (root / "critic").exists():
        return True
    from transformers import AutoModelForTokenClassification

    model = AutoModelForTokenClassification.from_pretrained(root / "critic", dtype=torch.float32).to(device).eval()
    ok = log("load critic", True, cls=type(model).__name__)
    worst = 0.0
    for pair in cases["pairs"]:
        if "values" not in pair:
            continue
        prompt, response = pair["prompt_ids"], pair["response_ids"]
        logits = teacher_forced(model, prompt, response, device)[:, 0]
        values = logits[len(prompt) - 1 : len(prompt) - 1 + len(response)]
        worst = max(worst, (values.cpu() - torch.tensor(pair["values"])).abs().max().item())
    return ok & log("critic values", worst < TOLERANCE, max_abs_diff=worst)


def check_vllm(root: Path, cases: dict) -> bool:
    try:
        from vllm import LLM, SamplingParams
    except ImportError:
        return log("vllm", True, skipped="vllm is not installed")
    llm = LLM(model=str(root / "policy"), dtype="float32", enforce_eager=True, gpu_memory_utilization=0.3)
    pair = cases["pairs"][0]
    out = llm.generate({"prompt_token_ids": pair["prompt_ids"]}, SamplingParams(max_tokens=8, temperature=0, logprobs=0))
    return log("vllm generate", len(out[0].outputs[0].token_ids) > 0, tokens=list(out[0].outputs[0].token_ids))


def main() -> int:
    root = Path(sys.argv[1])
    cases = json.loads((root / "cases.json").read_text())
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.backends.cuda.matmul.allow_tf32 = False
    ok = check_policy(root, cases, device)
    ok &= check_critic(root, cases, device)
    ok &= check_vllm(root, cases)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
