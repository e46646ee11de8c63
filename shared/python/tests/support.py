"""Shared test settings: the running reward-rules service the vitest runner started (test/python-adapters.test.ts)."""

import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def service_url() -> str:
    url = os.environ.get("RL_REWARDS_TEST_URL")
    if not url:
        raise RuntimeError("RL_REWARDS_TEST_URL must name a running reward-rules (test/python-adapters.test.ts starts one)")
    return url


def upstream_source(mirror_env: str, default_mirror: str, path: str) -> str:
    """A file of an upstream project read from its local git mirror at test time (never stored here)."""
    mirror = os.environ.get(mirror_env, default_mirror)
    if not os.path.isdir(mirror):
        raise unittest.SkipTest(f"no mirror of the upstream project at {mirror} (set {mirror_env})")
    return subprocess.run(["git", "-C", mirror, "show", f"HEAD:{path}"], check=True, capture_output=True, text=True, timeout=30).stdout
