"""POST /v1/score with the standard library. Never raises: a failure becomes each item's error slot."""

import json
import time
import urllib.error
import urllib.request
from typing import Any, Callable, Dict, List, Optional, Sequence

from rl_rewards._config import ClientConfig

Slot = Dict[str, Any]  # {"score", "extra"} or {"error": {"code", "message"}}

# The statuses that mean "overloaded, try again": rate limited, or no capacity right now.
RETRY_STATUSES = (429, 503)


def error_slot(code: str, message: str) -> Slot:
    return {"error": {"code": code, "message": message}}


def retry_after_s(header: Optional[str], attempt: int, cap_s: float) -> float:
    """Seconds to wait before the next attempt: Retry-After when it is a number, else 1, 2, 4 ... s; capped."""
    try:
        wait = float(header) if header is not None else float(2**attempt)
    except ValueError:  # an HTTP-date: not worth a clock comparison here
        wait = float(2**attempt)
    return max(0.0, min(wait, cap_s))


def _post_once(url: str, body: bytes, timeout_s: float):
    """One attempt: (status, headers, parsed JSON or None)."""
    req = urllib.request.Request(url, data=body, method="POST", headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout_s) as res:
            return res.status, res.headers, json.loads(res.read())
    except urllib.error.HTTPError as err:
        raw = err.read()
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = None
        return err.code, err.headers, parsed


def _failure_code(status: int) -> str:
    return {400: "bad_request", 401: "unauthorized", 404: "not_found", 413: "payload_too_large", 429: "busy", 503: "unavailable", 504: "timeout"}.get(status, "internal")


def _jsonable(value: Any) -> Any:
    """verl hands numpy values (parquet columns) in ground truths and extra_info."""
    for method in ("tolist", "item"):
        if callable(getattr(value, method, None)):
            return getattr(value, method)()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def score_batch(items: Sequence[Dict[str, Any]], config: ClientConfig, sleep: Callable[[float], None] = time.sleep) -> List[Slot]:
    """Scores `items` (our ScoreItem dicts) in chunks of `batch_size`; one slot per item, in order.
    An item without a data source is its own error and is not sent (it would fail the whole request)."""
    slots: List[Slot] = [error_slot("validation_failed", "no data_source: pass data_source (kwargs, dataset column or RL_REWARDS_DATA_SOURCE) or a label object")] * len(items)
    sendable = [i for i, item in enumerate(items) if isinstance(item.get("data_source"), str) and item["data_source"]]
    for start in range(0, len(sendable), config.batch_size):
        indices = sendable[start : start + config.batch_size]
        for index, slot in zip(indices, _score_chunk([items[i] for i in indices], config, sleep)):
            slots[index] = slot
    return slots


def _score_chunk(items: List[Dict[str, Any]], config: ClientConfig, sleep: Callable[[float], None]) -> List[Slot]:
    try:
        body = json.dumps({"items": items}, default=_jsonable).encode("utf-8")
    except (TypeError, ValueError) as err:
        return [error_slot("validation_failed", f"cannot send the batch as JSON: {err}")] * len(items)
    url = f"{config.url}/v1/score"
    for attempt in range(config.max_retries + 1):
        try:
            status, headers, parsed = _post_once(url, body, config.timeout_s)
        except TimeoutError as err:
            return [error_slot("timeout", f"{url}: no answer within {config.timeout_s} s ({err})")] * len(items)
        except (urllib.error.URLError, OSError) as err:
            reason = getattr(err, "reason", err)
            code = "timeout" if isinstance(reason, TimeoutError) else "unavailable"
            return [error_slot(code, f"{url}: {reason}")] * len(items)
        if status == 200 and isinstance(parsed, dict) and isinstance(parsed.get("results"), list) and len(parsed["results"]) == len(items):
            return parsed["results"]
        if status in RETRY_STATUSES and attempt < config.max_retries:
            sleep(retry_after_s(headers.get("retry-after"), attempt, config.max_retry_wait_s))
            continue
        problem = parsed.get("error") if isinstance(parsed, dict) else None
        if isinstance(problem, dict) and isinstance(problem.get("code"), str):
            return [error_slot(problem["code"], str(problem.get("message", "")))] * len(items)
        return [error_slot(_failure_code(status), f"{url}: HTTP {status}")] * len(items)
    raise AssertionError("unreachable: the last attempt always returns")
