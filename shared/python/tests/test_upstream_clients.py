"""The frameworks' own HTTP client code, read from local git mirrors of OpenRLHF and slime at test time
(never stored in this repository; both Apache-2.0), run against our endpoints. Only the request functions
are taken (via ast): their modules import torch/ray, which are not installed here. Skipped without a mirror."""

import ast
import asyncio
import functools
import importlib
import logging
import random
import unittest
from types import SimpleNamespace

from support import CountingRelay, service_url, upstream_source

from rl_rewards import slime

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
    def fetch(self):
        source = upstream_source("OPENRLHF_MIRROR", "/work/.mirror/OpenRLHF+OpenRLHF/repo", "openrlhf/utils/agent.py")
        return load_functions(source, {"_fetch_rewards_via_http"}, {"asyncio": asyncio, "aiohttp": aiohttp, "logger": logging.getLogger("openrlhf")})["_fetch_rewards_via_http"]

    def test_single_turn_executor_sends_one_sample_per_request_decoded_with_special_tokens(self):
        fetch = self.fetch()
        prompt = "<|im_start|>user\nWhat is 9+9?<|im_end|>\n<|im_start|>assistant\n"
        # SingleTurnAgentExecutor.execute: query = decode(prompt + action tokens, skip_special_tokens=False).
        samples = [
            (prompt + "9 + 9 = 18. #### 18<|im_end|>", "18"),
            (prompt + "#### 17<|im_end|><|endoftext|>", "18"),
            (prompt + "x<|im_end|>", {"data_source": "no-such-source", "ground_truth": "x"}),
        ]
        with CountingRelay(service_url()) as relay:
            executor = SimpleNamespace(reward_endpoints=[f"{relay.url}/openrlhf/openai/gsm8k"])

            async def run():
                return await asyncio.gather(*(fetch(executor, [query], [prompt], [label]) for query, label in samples))

            answers = asyncio.run(run())
        self.assertEqual(relay.items_per_request, [1, 1, 1])
        infos = [answer[0] for answer in answers]  # what execute reads: rewards_info_list[0]
        self.assertEqual([info.get("rewards") for info in infos], [[1], [0], [0]])
        self.assertEqual([info.get("scores") for info in infos], [[1], [0], [0]])
        self.assertEqual([info.get("extra_logs") for info in infos], [{"reward_error": [0]}, {"reward_error": [0]}, {"reward_error": [1]}])
        for info in infos:  # each extra_logs value becomes torch.tensor(values): numbers only
            self.assertTrue(all(isinstance(v, (int, float)) for values in info["extra_logs"].values() for v in values))

    def test_a_second_endpoint_gets_the_empty_shard_of_a_one_sample_call(self):
        # --reward.remote_url a,b: the samples are split across endpoints; one sample leaves b an empty list.
        fetch = self.fetch()
        url = f"{service_url()}/openrlhf/openai/gsm8k"
        answers = asyncio.run(fetch(SimpleNamespace(reward_endpoints=[url, url]), ["q #### 18<|im_end|>"], ["q "], ["18"]))
        self.assertEqual(answers[0]["rewards"], [1])
        self.assertEqual(answers[1], {"rewards": [], "scores": [], "extra_logs": {"reward_error": []}, "errors": []})


@unittest.skipIf(aiohttp is None, "python3-aiohttp is not installed")
class SlimeRemoteRm(unittest.TestCase):
    def rm_hub(self):
        source = upstream_source("SLIME_MIRROR", "/work/.mirror/THUDM+slime/repo", "slime/rollout/rm_hub/__init__.py")
        misc = load_functions(upstream_source("SLIME_MIRROR", "/work/.mirror/THUDM+slime/repo", "slime/utils/misc.py"), {"load_function"}, {"importlib": importlib, "cache": functools.cache})
        names = {"_get_shared_session", "remote_rm", "async_rm", "batched_async_rm"}
        return load_functions(source, names, {"asyncio": asyncio, "aiohttp": aiohttp, "random": random, "logger": logging.getLogger("slime"), "_shared_session": None, "Sample": object, "load_function": misc["load_function"]})

    def test_remote_rm_gets_a_bare_number_and_a_detail_for_reward_key(self):
        ns = self.rm_hub()

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

    GROUP = [
        SimpleNamespace(prompt="9+9?", response="9 + 9 = 18. #### 18<|im_end|>", label="18", custom_rm_path=None, metadata={}),
        SimpleNamespace(prompt="9+9?", response="#### 17", label="18", custom_rm_path=None, metadata={}),
        SimpleNamespace(prompt="1/2?", response="\\boxed{\\frac{1}{2}}", label={"data_source": "lighteval/MATH", "ground_truth": "\\frac12"}, custom_rm_path=None, metadata={}),
        SimpleNamespace(prompt="q", response="x", label={"data_source": "no-such-source", "ground_truth": "y"}, custom_rm_path=None, metadata={}),
    ]

    def group_rewards(self, custom_rm_path, rm_url):
        """generate_and_rm_group under --group-rm: batched_async_rm(args, group) once the group is generated."""
        ns = self.rm_hub()
        args = SimpleNamespace(rm_url=rm_url, rm_type="remote_rm", custom_rm_path=custom_rm_path, group_rm=True)

        async def run():
            try:
                return await ns["batched_async_rm"](args, self.GROUP)
            finally:
                await ns["_get_shared_session"]().close()

        return asyncio.run(run())

    def test_group_rm_with_our_batch_function_sends_the_group_as_one_list(self):
        with CountingRelay(service_url()) as relay:
            rewards = self.group_rewards("rl_rewards.slime.group_rm", f"{relay.url}/slime/openai/gsm8k")
            details = self.group_rewards("rl_rewards.slime.group_rm", f"{relay.url}/slime/openai/gsm8k?detail=true")
        self.assertEqual(rewards, [1, 0, 1, 0])
        self.assertEqual([d["score"] for d in details], [1, 0, 1, 0])
        self.assertEqual(details[3]["error"]["code"], "unknown_data_source")
        self.assertEqual(relay.items_per_request, [4, 4])

    def test_group_rm_with_remote_rm_posts_each_sample_on_its_own(self):
        with CountingRelay(service_url()) as relay:
            rewards = self.group_rewards(None, f"{relay.url}/slime/openai/gsm8k")
        self.assertEqual(rewards, [1, 0, 1, 0])
        self.assertEqual(relay.items_per_request, [1, 1, 1, 1])

    def test_a_refused_group_raises_with_the_reason_as_slimes_remote_rm_does(self):
        group = [SimpleNamespace(prompt="q", response="r", label="x")]
        with self.assertRaisesRegex(RuntimeError, r"HTTP 400: validation_failed: .*\[0\]\.label"):
            asyncio.run(slime.group_rm(SimpleNamespace(rm_url=f"{service_url()}/slime"), group))


if __name__ == "__main__":
    unittest.main()
