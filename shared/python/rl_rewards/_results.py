"""Result slots of /v1/score as each framework wants them. Every sample gets the same keys."""

from typing import Any, Dict, Optional

from rl_rewards._client import Slot

# verl: reward_extra_info gathers every key into per-sample lists, so the key set must not vary;
# strings are skipped by its validation metrics, numbers are averaged (reward_error -> error rate).
VERL_KEYS = ("score", "acc", "error", "error_code", "reward_error")


def slot_error(slot: Slot) -> Optional[Dict[str, str]]:
    error = slot.get("error")
    if isinstance(error, dict):
        return {"code": str(error.get("code", "internal")), "message": str(error.get("message", ""))}
    if not isinstance(slot.get("score"), (int, float)) or isinstance(slot.get("score"), bool):
        return {"code": "internal", "message": f"malformed result slot: {slot!r}"[:500]}
    return None


def to_verl_result(slot: Slot) -> Dict[str, Any]:
    """{"score", "acc", "error", "error_code", "reward_error"}: an error is score 0.0 with its reason."""
    error = slot_error(slot)
    if error is not None:
        return {"score": 0.0, "acc": 0.0, "error": f"{error['code']}: {error['message']}", "error_code": error["code"], "reward_error": 1.0}
    score = float(slot["score"])
    acc = slot.get("extra", {}).get("acc") if isinstance(slot.get("extra"), dict) else None
    acc_value = float(acc) if isinstance(acc, (bool, int, float)) else score
    return {"score": score, "acc": acc_value, "error": "", "error_code": "", "reward_error": 0.0}


def to_float_or_none(slot: Slot) -> Optional[float]:
    """TRL: None for an errored sample (TRL skips it), else the score."""
    return None if slot_error(slot) is not None else float(slot["score"])
