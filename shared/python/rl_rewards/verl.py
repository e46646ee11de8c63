"""verl custom reward functions backed by a reward service's POST /v1/score.

verl since 2026 (reward settings under `reward.`, computed in its reward loop):
    reward.custom_reward_function.path=pkg://rl_rewards.verl   (or the path of this file)
    reward.custom_reward_function.name=compute_score_async     (batches the loop's concurrent calls)
    +reward.custom_reward_function.reward_kwargs.url=http://reward-rules:8101
Older verl (top-level `custom_reward_function.*`, `reward_model.reward_manager`):
    custom_reward_function.name=compute_score           (naive manager, one sample per call)
                               =compute_score_batch     (reward_model.reward_manager=batch)

Every sample returns {"score", "acc", "error", "error_code", "reward_error"}: an error is score 0.0 with
`error` saying why and `reward_error` 1.0, so it can be seen, averaged into an error rate and filtered.
"""

import os
import sys
from typing import Any, Dict, List, Optional, Sequence

try:
    import rl_rewards  # noqa: F401  installed, or imported as part of the package
except ImportError:  # loaded by file path (verl's load_extern_object), package not installed
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from rl_rewards._batcher import score_one
from rl_rewards._client import score_batch
from rl_rewards._config import ClientConfig, resolve_config
from rl_rewards._items import build_item
from rl_rewards._results import to_verl_result


def compute_score_batch(data_sources: Sequence[str], solution_strs: Sequence[str], ground_truths: Sequence[Any], extra_infos: Optional[Sequence[Any]] = None, **kwargs: Any) -> List[Dict[str, Any]]:
    """verl's BatchRewardManager convention: lists in, one result dict per sample out, one HTTP call per batch_size samples."""
    config = resolve_config(kwargs)
    extras = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    params = kwargs.get("params")
    items = [build_item(d, s, g, e, params) for d, s, g, e in zip(data_sources, solution_strs, ground_truths, extras)]
    return [to_verl_result(slot) for slot in score_batch(items, config)]


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: Any = None, **kwargs: Any) -> Dict[str, Any]:
    """verl's `compute_score(data_source, solution_str, ground_truth, extra_info, **kwargs)` for one sample."""
    return compute_score_batch([data_source], [solution_str], [ground_truth], [extra_info], **kwargs)[0]


# What verl's reward loop adds when a reward model is configured. They address verl's own reward-model
# servers, which the rule, sandbox and story scorers do not call: dropped unless `forward_reward_router`.
REWARD_MODEL_KWARGS = ("reward_router_address", "reward_model_tokenizer")


async def compute_score_async(data_source: str, solution_str: str, ground_truth: Any, extra_info: Any = None, **kwargs: Any) -> Dict[str, Any]:
    """The reward loop's coroutine form. Concurrent calls within `batch_window_ms` (default 5) go out as one
    request of up to `batch_size` samples; each call still answers only its own sample."""
    router = {key: kwargs.pop(key, None) for key in REWARD_MODEL_KWARGS}
    config = resolve_config(kwargs)
    item = build_item(data_source, solution_str, ground_truth, _with_router(extra_info, router, config), kwargs.get("params"))
    return to_verl_result(await score_one(item, config))


def _with_router(extra_info: Any, router: Dict[str, Any], config: ClientConfig) -> Any:
    """extra_info plus the reward router's address and the reward model's tokenizer name, when told to forward them."""
    if not config.forward_reward_router or router["reward_router_address"] is None:
        return extra_info
    tokenizer = router["reward_model_tokenizer"]
    return {
        **(extra_info if isinstance(extra_info, dict) else {}),
        "reward_router_address": str(router["reward_router_address"]),
        "reward_model_tokenizer": getattr(tokenizer, "name_or_path", None) if tokenizer is not None else None,
    }
