"""The FSDP2 sharding tests (shared/python/tests/test_distributed.py ShardedTest) on this machine's torch:
two CPU processes over gloo against one process. Debian's torch 1.13, which `make test` uses, cannot import
FSDP2, so this is where they run; on a torch without FSDP2 they are skipped and the part says why."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from typing import Any, Dict

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TESTS = os.path.join(ROOT, "shared", "python", "tests")


def run_sharding_check(timeout_s: float = 420.0) -> Dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.path.join(ROOT, "shared", "python"), TESTS])}
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "unittest", "-v", "test_distributed.ShardedTest"],
        cwd=TESTS, env=env, capture_output=True, text=True, timeout=timeout_s,
    )
    text = done.stderr
    ran = re.search(r"^Ran (\d+) tests?", text, re.M)
    skipped = re.search(r"skipped=(\d+)", text)
    reasons = sorted(set(m.group(2) for m in re.finditer(r"skipped (['\"])(.*)\1$", text, re.M)))
    out: Dict[str, Any] = {
        "ok": done.returncode == 0,
        "ran": int(ran.group(1)) if ran else 0,
        "skipped": int(skipped.group(1)) if skipped else 0,
        "skip_reasons": reasons,
        "tests": re.findall(r"^(test_\w+) .*\.\.\. (ok|FAIL|ERROR|skipped)", text, re.M),
        "seconds": round(time.perf_counter() - began, 1),
    }
    if done.returncode != 0:
        out["error"] = f"unittest exit status {done.returncode}"
        out["output_tail"] = text[-4000:]
    return out
