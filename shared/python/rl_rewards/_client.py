"""POST /v1/score with the standard library. Never raises: a failure becomes each item's error slot."""

import json
import re
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


def _post_once(url: str, body: bytes, timeout_s: float, auth_token: str = ""):
    """One attempt: (status, headers, parsed JSON or None)."""
    headers = {"content-type": "application/json"}
    if auth_token:
        headers["authorization"] = f"Bearer {auth_token}"
    req = urllib.request.Request(url, data=body, method="POST", headers=headers)
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
    An item without a data source, or one that is not JSON, is its own error and is not sent (it would
    fail the whole request, and with it every other caller's sample)."""
    slots: List[Slot] = [error_slot("validation_failed", "no data_source: pass data_source (kwargs, dataset column or RL_REWARDS_DATA_SOURCE) or a label object")] * len(items)
    encoded: Dict[int, bytes] = {}
    for i, item in enumerate(items):
        if not (isinstance(item.get("data_source"), str) and item["data_source"]):
            continue
        try:
            encoded[i] = json.dumps(item, default=_jsonable).encode("utf-8")
        except (TypeError, ValueError) as err:
            slots[i] = error_slot("validation_failed", f"cannot send the sample as JSON: {err}")
    sendable = list(encoded)
    for start in range(0, len(sendable), config.batch_size):
        indices = sendable[start : start + config.batch_size]
        for index, slot in zip(indices, _score_chunk([encoded[i] for i in indices], config, sleep)):
            slots[index] = slot
    return slots


def _score_chunk(items: List[bytes], config: ClientConfig, sleep: Callable[[float], None]) -> List[Slot]:
    """One request for the chunk. A 400 that names some items (`items[3].solution_str`) answers those items with
    it and sends the rest again, so one caller's malformed sample does not fail the samples batched with it."""
    slots: List[Optional[Slot]] = [None] * len(items)
    remaining = list(range(len(items)))
    while remaining:
        answer, blamed = _post_chunk([items[i] for i in remaining], config, sleep)
        if blamed:
            for local, slot in blamed.items():
                slots[remaining[local]] = slot
            remaining = [index for local, index in enumerate(remaining) if local not in blamed]
            continue
        for index, slot in zip(remaining, answer):
            slots[index] = slot
        remaining = []
    return [slot for slot in slots if slot is not None]


def _blamed_items(problem: Dict[str, Any], count: int) -> Dict[int, Slot]:
    """The items a 400 validation problem names, each with its own issues; empty when it names anything else."""
    issues = problem.get("details", {}).get("issues") if isinstance(problem.get("details"), dict) else None
    if problem.get("code") != "validation_failed" or not isinstance(issues, list) or not issues:
        return {}
    blamed: Dict[int, List[str]] = {}
    for issue in issues:
        match = _ITEM_PATH.match(str(issue.get("path", ""))) if isinstance(issue, dict) else None
        if match is None or int(match.group(1)) >= count:
            return {}
        blamed.setdefault(int(match.group(1)), []).append(f"{issue['path']}: {issue.get('message', '')}")
    return {index: error_slot("validation_failed", "; ".join(messages)) for index, messages in blamed.items()}


_ITEM_PATH = re.compile(r"^items\[(\d+)\]")


def _post_chunk(items: List[bytes], config: ClientConfig, sleep: Callable[[float], None]):
    """(slots, {}) for an answer or a failure of the whole chunk; ([], blamed) when a 400 names some items."""
    body = b'{"items":[' + b",".join(items) + b"]}"
    url = f"{config.url}/v1/score"
    for attempt in range(config.max_retries + 1):
        try:
            status, headers, parsed = _post_once(url, body, config.timeout_s, config.auth_token)
        except TimeoutError as err:
            return [error_slot("timeout", f"{url}: no answer within {config.timeout_s} s ({err})")] * len(items), {}
        except (urllib.error.URLError, OSError) as err:
            reason = getattr(err, "reason", err)
            code = "timeout" if isinstance(reason, TimeoutError) else "unavailable"
            return [error_slot(code, f"{url}: {reason}")] * len(items), {}
        if status == 200 and isinstance(parsed, dict) and isinstance(parsed.get("results"), list) and len(parsed["results"]) == len(items):
            return parsed["results"], {}
        if status in RETRY_STATUSES and attempt < config.max_retries:
            sleep(retry_after_s(headers.get("retry-after"), attempt, config.max_retry_wait_s))
            continue
        problem = parsed.get("error") if isinstance(parsed, dict) else None
        if isinstance(problem, dict) and isinstance(problem.get("code"), str):
            blamed = _blamed_items(problem, len(items)) if status == 400 else {}
            if blamed:
                return [], blamed
            return [error_slot(problem["code"], str(problem.get("message", "")))] * len(items), {}
        return [error_slot(_failure_code(status), f"{url}: HTTP {status}")] * len(items), {}
    raise AssertionError("unreachable: the last attempt always returns")


def post_json(url: str, payload: Any, config: ClientConfig, sleep: Callable[[float], None] = time.sleep) -> Any:
    """POSTs `payload` and returns the answer's JSON; overload (429/503) is retried as score_batch does.
    Raises on anything else, with the service's reason: for callers whose framework handles a raised error."""
    body = json.dumps(payload, default=_jsonable).encode("utf-8")
    for attempt in range(config.max_retries + 1):
        status, headers, parsed = _post_once(url, body, config.timeout_s, config.auth_token)
        if status == 200:
            return parsed
        if status in RETRY_STATUSES and attempt < config.max_retries:
            sleep(retry_after_s(headers.get("retry-after"), attempt, config.max_retry_wait_s))
            continue
        problem = parsed.get("error") if isinstance(parsed, dict) else None
        reason = f"{problem.get('code')}: {problem.get('message')}" if isinstance(problem, dict) else _failure_code(status)
        raise RuntimeError(f"{url}: HTTP {status}: {reason}")
    raise AssertionError("unreachable: the last attempt always returns or raises")
