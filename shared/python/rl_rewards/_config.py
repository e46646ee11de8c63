"""Where the reward service is and how long to wait: call kwargs first, then env, then defaults."""

import os
from dataclasses import dataclass
from typing import Any, Mapping

DEFAULT_URL = "http://127.0.0.1:8101"
DEFAULT_TIMEOUT_S = 60.0
DEFAULT_MAX_RETRIES = 3
DEFAULT_MAX_RETRY_WAIT_S = 30.0
DEFAULT_BATCH_SIZE = 512
DEFAULT_BATCH_WINDOW_MS = 5.0

# Keys read from a framework's kwargs (verl reward_kwargs, EasyR1 reward_function_kwargs, TRL factory
# arguments); anything else a framework passes (verl's reward_router_address, TRL's trainer_state) is ignored.
CONFIG_KEYS = ("url", "timeout_s", "max_retries", "max_retry_wait_s", "batch_size", "batch_window_ms", "auth_token", "forward_reward_router", "data_source", "params")


@dataclass(frozen=True)
class ClientConfig:
    """Resolved settings of one call."""

    url: str = DEFAULT_URL
    timeout_s: float = DEFAULT_TIMEOUT_S  # per HTTP request
    max_retries: int = DEFAULT_MAX_RETRIES  # extra attempts after a 429/503 answer
    max_retry_wait_s: float = DEFAULT_MAX_RETRY_WAIT_S  # cap on one Retry-After wait
    batch_size: int = DEFAULT_BATCH_SIZE  # items per HTTP request
    batch_window_ms: float = DEFAULT_BATCH_WINDOW_MS  # how long concurrent coroutine calls gather into one request
    auth_token: str = ""  # sent as `Authorization: Bearer <token>` when set (the service's AUTH_TOKEN)
    forward_reward_router: bool = False  # verl's reward_router_address goes to the scorer in extra_info


def resolve_config(kwargs: Mapping[str, Any], env: Mapping[str, str] = os.environ, **defaults: Any) -> ClientConfig:
    """kwargs win over RL_REWARDS_* environment variables, which win over `defaults`, then the built-in defaults."""
    base = ClientConfig(**defaults)

    def pick(key: str, env_name: str, cast):
        if kwargs.get(key) is not None:
            return cast(kwargs[key])
        if env.get(env_name):
            return cast(env[env_name])
        return getattr(base, key)

    return ClientConfig(
        url=pick("url", "RL_REWARDS_URL", str).rstrip("/"),
        timeout_s=pick("timeout_s", "RL_REWARDS_TIMEOUT_S", float),
        max_retries=pick("max_retries", "RL_REWARDS_MAX_RETRIES", int),
        max_retry_wait_s=pick("max_retry_wait_s", "RL_REWARDS_MAX_RETRY_WAIT_S", float),
        batch_size=max(1, pick("batch_size", "RL_REWARDS_BATCH_SIZE", int)),
        batch_window_ms=max(0.0, pick("batch_window_ms", "RL_REWARDS_BATCH_WINDOW_MS", float)),
        auth_token=pick("auth_token", "RL_REWARDS_AUTH_TOKEN", str),
        forward_reward_router=pick("forward_reward_router", "RL_REWARDS_FORWARD_REWARD_ROUTER", _flag),
    )


def _flag(value: Any) -> bool:
    """A boolean from a kwarg (bool, or Hydra's string) or an environment variable ("1", "true", "yes")."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off", ""):
        return False
    raise ValueError(f"forward_reward_router: expected true or false, got {value!r}")


def default_data_source(kwargs: Mapping[str, Any], env: Mapping[str, str] = os.environ):
    """The data source for samples that do not name one: kwargs `data_source`, else RL_REWARDS_DATA_SOURCE."""
    value = kwargs.get("data_source")
    if isinstance(value, str) and value:
        return value
    return env.get("RL_REWARDS_DATA_SOURCE") or None
