"""Building ScoreItems from what the frameworks hand a reward function."""

import json
from typing import Any, Dict, Mapping, Optional

# The same list as shared/src/protocols/response-text.ts: end-of-sequence and padding tokens left at the
# end of text decoded with special tokens (AReaL decodes that way). verl's scorers see text without them.
TRAILING_SPECIAL_TOKENS = (
    "<|im_end|>",
    "<|endoftext|>",
    "<|eot_id|>",
    "<|end_of_text|>",
    "<\uff5cend\u2581of\u2581sentence\uff5c>",
    "<|end|>",
    "<end_of_turn>",
    "<eos>",
    "</s>",
    "<|return|>",
    "<pad>",
)


def strip_trailing_special_tokens(text: str) -> str:
    """Removes trailing special tokens (repeatedly), keeping whitespace written before the first one."""
    out, first = text, True
    while True:
        candidate = out if first else out.rstrip()
        token = next((t for t in TRAILING_SPECIAL_TOKENS if candidate.endswith(t)), None)
        if token is None:
            return out
        out, first = candidate[: len(candidate) - len(token)], False


def label_object(label: Any) -> Optional[Dict[str, Any]]:
    """A ground truth that names its own `data_source` (a dict, or its JSON text), else None."""
    value = label
    if isinstance(label, str) and label.lstrip().startswith("{"):
        try:
            value = json.loads(label)
        except ValueError:
            return None
    if isinstance(value, dict) and "data_source" in value:
        return value
    return None


def build_item(data_source: Optional[str], solution: str, ground_truth: Any, extra_info: Any = None, params: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    """Our ScoreItem. A label object's data_source, ground_truth, extra_info and params win over the arguments."""
    item: Dict[str, Any] = {"data_source": data_source, "solution_str": solution, "ground_truth": ground_truth}
    if isinstance(extra_info, Mapping):
        item["extra_info"] = dict(extra_info)
    if params:
        item["params"] = dict(params)
    obj = label_object(ground_truth)
    if obj is not None:
        item["data_source"] = obj["data_source"]
        reward_model = obj.get("reward_model") if isinstance(obj.get("reward_model"), dict) else {}
        item["ground_truth"] = obj.get("ground_truth", reward_model.get("ground_truth"))
        for key in ("extra_info", "params"):
            if obj.get(key) is not None:
                item[key] = obj[key]
    return item


def completion_text(completion: Any) -> str:
    """A TRL completion as text: a string, or (conversational) the content of its last assistant message."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list):
        for message in reversed(completion):
            if isinstance(message, dict) and message.get("role", "assistant") == "assistant":
                content = message.get("content", "")
                if isinstance(content, list):  # multimodal parts
                    return "".join(p.get("text", "") for p in content if isinstance(p, dict))
                return str(content)
    return str(completion)
