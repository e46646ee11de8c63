"""AReaL reward function backed by a reward service's POST /v1/score.

    from rl_rewards.areal import reward_fn      # RLVRWorkflow(reward_fn=reward_fn, ...) or "rl_rewards.areal.reward_fn"

AReaL calls reward_fn(prompt, completions, prompt_ids, completion_ids, **dataset_fields) in a process pool
under a 15 s timeout and needs a float, so settings come from RL_REWARDS_* environment variables (default
timeout 10 s), the data source from the `data_source` field or RL_REWARDS_DATA_SOURCE, and an error is 0.0
with a warning on the `rl_rewards` logger: AReaL's float has no room for it.
"""

import logging
from typing import Any, List

from rl_rewards._client import score_batch
from rl_rewards._config import default_data_source, resolve_config
from rl_rewards._items import build_item, strip_trailing_special_tokens
from rl_rewards._results import slot_error

logger = logging.getLogger("rl_rewards")

# Below AReaL's AsyncRewardWrapper timeout (15 s), so our answer, not its timeout, decides.
AREAL_TIMEOUT_S = 10.0
GROUND_TRUTH_FIELDS = ("ground_truth", "answer", "solution")


def reward_fn(prompt: str, completions: str, prompt_ids: List[int], completion_ids: List[int], **kwargs: Any) -> float:
    """AReaL's reward_fn signature (areal/api/reward_api.py)."""
    config = resolve_config({}, timeout_s=AREAL_TIMEOUT_S)
    truth = next((kwargs[k] for k in GROUND_TRUTH_FIELDS if kwargs.get(k) is not None), None)
    if truth is None and isinstance(kwargs.get("reward_model"), dict):
        truth = kwargs["reward_model"].get("ground_truth")
    item = build_item(default_data_source(kwargs), strip_trailing_special_tokens(str(completions)), truth, kwargs.get("extra_info"))
    [slot] = score_batch([item], config)
    error = slot_error(slot)
    if error is not None:
        logger.warning("reward error, scored 0.0: %s: %s", error["code"], error["message"])
        return 0.0
    return float(slot["score"])
