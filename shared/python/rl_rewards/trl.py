"""TRL reward functions (GRPOTrainer reward_funcs) backed by a reward service's POST /v1/score.

    from rl_rewards.trl import make_reward_func
    trainer = GRPOTrainer(..., reward_funcs=[make_reward_func(url="http://reward-rules:8101", data_source="openai/gsm8k")])

Each call returns list[float | None]: None for a sample whose scoring failed (TRL skips it rather than
training on a fake 0); the reason goes to the completions table (`log_extra`) and the error rate to the
metrics (`log_metric`) when the trainer provides them.
"""

import asyncio
from typing import Any, Callable, List, Optional, Sequence

from rl_rewards._client import score_batch
from rl_rewards._config import default_data_source, resolve_config
from rl_rewards._items import build_item, completion_text
from rl_rewards._results import slot_error, to_float_or_none

# Dataset columns read as the ground truth, first present wins (TRL's own accuracy_reward uses "solution").
GROUND_TRUTH_COLUMNS = ("ground_truth", "solution", "answer")


def _ground_truths(n: int, kwargs: dict, column: Optional[str]) -> List[Any]:
    for key in (column,) if column else GROUND_TRUTH_COLUMNS:
        if key in kwargs and kwargs[key] is not None:
            return list(kwargs[key])
    if "reward_model" in kwargs:  # verl-format rows: reward_model.ground_truth
        return [rm.get("ground_truth") if isinstance(rm, dict) else None for rm in kwargs["reward_model"]]
    return [None] * n


def _score(prompts: Sequence[Any], completions: Sequence[Any], settings: dict, kwargs: dict) -> List[Optional[float]]:
    merged = {**kwargs, **settings}
    config = resolve_config(merged)
    n = len(completions)
    sources = kwargs.get("data_source") or [default_data_source(settings) or default_data_source({})] * n
    truths = _ground_truths(n, kwargs, settings.get("ground_truth_column"))
    extras = kwargs.get("extra_info") or [None] * n
    items = [build_item(d, completion_text(c), g, e, settings.get("params")) for d, c, g, e in zip(sources, completions, truths, extras)]
    slots = score_batch(items, config)
    errors = [slot_error(s) for s in slots]
    log_extra: Optional[Callable] = kwargs.get("log_extra")
    log_metric: Optional[Callable] = kwargs.get("log_metric")
    if log_extra is not None:
        log_extra("reward_error", ["" if e is None else f"{e['code']}: {e['message']}" for e in errors])
    if log_metric is not None and n:
        log_metric("reward_error_rate", sum(e is not None for e in errors) / n)
    return [to_float_or_none(s) for s in slots]


def make_reward_func(**settings: Any) -> Callable[..., List[Optional[float]]]:
    """A sync reward function; settings: url, data_source, ground_truth_column, params, timeout_s, max_retries, batch_size."""

    def rl_reward(prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any) -> List[Optional[float]]:
        return _score(prompts, completions, settings, kwargs)

    return rl_reward


def make_async_reward_func(**settings: Any):
    """The async form (TRL runs async reward functions concurrently on its event-loop thread)."""

    async def rl_reward_async(prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any) -> List[Optional[float]]:
        return await asyncio.to_thread(_score, prompts, completions, settings, kwargs)

    return rl_reward_async


# Ready-made functions configured from RL_REWARDS_* environment variables.
rl_reward = make_reward_func()
rl_reward_async = make_async_reward_func()
