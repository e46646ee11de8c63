"""EasyR1 batch reward function backed by a reward service's POST /v1/score.

    worker.reward.reward_function=/path/to/rl_rewards/easyr1.py:compute_score
    worker.reward.reward_function_kwargs='{"url": "http://reward-rules:8101", "data_source": "openai/gsm8k"}'

EasyR1 passes no data source: it comes from the kwargs (or RL_REWARDS_DATA_SOURCE), or from a ground truth
that is a label object {"data_source", "ground_truth", ...} (or its JSON text). Every sample returns
{"overall", "reward_error"}: numbers only, since EasyR1 averages every key into a metric.
"""

import os
import sys
from typing import Any, Dict, List

try:
    import rl_rewards  # noqa: F401
except ImportError:  # loaded by file path (EasyR1's AutoRewardManager), package not installed
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from rl_rewards._client import score_batch
from rl_rewards._config import default_data_source, resolve_config
from rl_rewards._items import build_item
from rl_rewards._results import slot_error

REWARD_NAME = "rl_rewards"
REWARD_TYPE = "batch"


def compute_score(reward_inputs: List[Dict[str, Any]], **kwargs: Any) -> List[Dict[str, float]]:
    """EasyR1's BatchRewardFunction: [{"response", "response_length", "ground_truth"}] -> [{"overall", ...}]."""
    config = resolve_config(kwargs)
    source = default_data_source(kwargs)
    items = [build_item(source, r["response"], r.get("ground_truth"), None, kwargs.get("params")) for r in reward_inputs]
    scores = []
    for slot in score_batch(items, config):
        failed = slot_error(slot) is not None
        scores.append({"overall": 0.0 if failed else float(slot["score"]), "reward_error": 1.0 if failed else 0.0})
    return scores
