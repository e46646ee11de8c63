"""Drives verl's own sandbox_fusion reward code against our /run_code endpoint.

Reads {"url": ..., "cases": [{"name", "completion", "test_cases", "continuous", "memory_limit_mb", "timeout"}]}
as JSON on stdin and prints [{"name", "score", "statuses"}] as JSON. The verl
package directory (sandbox_fusion/) is put on PYTHONPATH by the test; nothing of
verl is stored in this repository.
"""
import json
import sys
import threading

from sandbox_fusion import compute_score  # noqa: E402  (verl/utils/reward_score/sandbox_fusion)


def main() -> None:
    req = json.load(sys.stdin)
    semaphore = threading.Semaphore(8)
    out = []
    for case in req["cases"]:
        score, metadata = compute_score(
            req["url"],
            semaphore,
            case.get("memory_limit_mb", 1024),
            case["completion"],
            case["test_cases"],
            continuous=case.get("continuous", False),
            timeout=case.get("timeout", 10),
        )
        out.append({"name": case["name"], "score": score, "statuses": [m.get("status") for m in metadata]})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
