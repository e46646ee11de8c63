"""The frameworks' own HTTP client code, read from local git mirrors of OpenRLHF and slime at test time
(never stored in this repository; both Apache-2.0), run against our endpoints. Only the request functions
are taken (via ast): their modules import torch/ray, which are not installed here. Skipped without a mirror."""

import ast
import asyncio
import logging
import random
import unittest
from types import SimpleNamespace

from support import service_url, upstream_source

try:
    import aiohttp
except ImportError:  # Debian package python3-aiohttp (the Makefile installs it)
    aiohttp = None


def load_functions(source: str, names, namespace):
    """Executes only the named top-level functions or class methods of `source` in `namespace`."""
    tree = ast.parse(source)
    wanted = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in names:
            wanted.append(node)
    module = ast.Module(body=wanted, type_ignores=[])
    exec(compile(module, "<upstream>", "exec"), namespace)
    return namespace


@unittest.skipIf(aiohttp is None, "python3-aiohttp is not installed")
class OpenRlhfRemoteRewardClient(unittest.TestCase):
    def test_single_turn_executor_fetches_our_rewards(self):
        source = upstream_source("OPENRLHF_MIRROR", "/work/.mirror/OpenRLHF+OpenRLHF/repo", "openrlhf/utils/agent.py")
        ns = load_functions(source, {"_fetch_rewards_via_http"}, {"asyncio": asyncio, "aiohttp": aiohttp, "logger": logging.getLogger("openrlhf")})
        executor = SimpleNamespace(reward_endpoints=[f"{service_url()}/openrlhf/openai/gsm8k"])
        prompt = "<|im_start|>user\nWhat is 9+9?<|im_end|>\n<|im_start|>assistant\n"
        queries = [prompt + "9 + 9 = 18. #### 18<|im_end|>", prompt + "#### 17<|im_end|>"]
        infos = asyncio.run(ns["_fetch_rewards_via_http"](executor, queries, [prompt, prompt], ["18", {"data_source": "no-such-source", "ground_truth": "x"}]))
        info = infos[0]
        # What SingleTurnAgentExecutor.execute and the samples generator read back.
        self.assertEqual(info.get("rewards"), [1, 0])
        self.assertEqual(info.get("scores"), [1, 0])
        self.assertEqual(info.get("extra_logs"), {"reward_error": [0, 1]})
        for values in info["extra_logs"].values():  # each becomes torch.tensor(values): numbers only
            self.assertTrue(all(isinstance(v, (int, float)) for v in values))


@unittest.skipIf(aiohttp is None, "python3-aiohttp is not installed")
class SlimeRemoteRm(unittest.TestCase):
    def test_remote_rm_gets_a_bare_number_and_a_detail_for_reward_key(self):
        source = upstream_source("SLIME_MIRROR", "/work/.mirror/THUDM+slime/repo", "slime/rollout/rm_hub/__init__.py")
        ns = load_functions(source, {"_get_shared_session", "remote_rm"}, {"asyncio": asyncio, "aiohttp": aiohttp, "random": random, "logger": logging.getLogger("slime"), "_shared_session": None, "Sample": object})

        async def run():
            sample = SimpleNamespace(prompt=[{"role": "user", "content": "9+9?"}], response="#### 18", label="18")
            try:
                bare = await ns["remote_rm"](SimpleNamespace(rm_url=f"{service_url()}/slime/openai/gsm8k"), sample)
                detail = await ns["remote_rm"](SimpleNamespace(rm_url=f"{service_url()}/slime/openai/gsm8k?detail=true"), sample)
                wrong = await ns["remote_rm"](SimpleNamespace(rm_url=f"{service_url()}/slime/openai/gsm8k"), SimpleNamespace(prompt="q", response="#### 17", label="18"))
            finally:
                await ns["_get_shared_session"]().close()
            return bare, detail, wrong

        bare, detail, wrong = asyncio.run(run())
        self.assertEqual((bare, wrong), (1, 0))
        self.assertEqual(detail["score"], 1)  # what slime's --reward-key score reads


if __name__ == "__main__":
    unittest.main()
