"""verl's reward loop, as of the mirror's commit, scoring through compute_score_async against the running service.

verl's own files run unchanged, read from a local git mirror of verl-project/verl at test time (never stored
here; Apache-2.0): the reward managers (`naive`, `rate_limited`: reward_loop/reward_manager/{base,registry,
naive,limited}.py), `load_reward_manager` and `get_custom_reward_fn` (trainer/ppo/reward.py), the module loader
(utils/import_utils.py), `get_event_loop` (utils/ray_utils.py) and RewardLoopWorker's compute_score_batch.
Their package __init__ files are reduced to those modules (the full ones import vllm, sglang, ray actors), and
torch, omegaconf, transformers, ray and DataProto are stand-ins (tests/verl_standins: stub tensors). It runs
in a child process so no stand-in leaks into the other tests. Skipped without a mirror."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from support import CountingRelay, service_url, upstream_source

HERE = os.path.dirname(os.path.abspath(__file__))
MIRROR = ("VERL_MIRROR", "/work/.mirror/verl-project+verl/repo")
LONG = 60_000  # batching window no test waits for: batches close on batch_size

VERL_FILES = (
    "verl/experimental/reward_loop/reward_manager/base.py",
    "verl/experimental/reward_loop/reward_manager/registry.py",
    "verl/experimental/reward_loop/reward_manager/naive.py",
    "verl/experimental/reward_loop/reward_manager/limited.py",
    "verl/trainer/ppo/reward.py",
    "verl/utils/import_utils.py",
    "verl/utils/ray_utils.py",
    "verl/utils/reward_score/__init__.py",
    "verl/workers/reward_manager/registry.py",
    "verl/workers/reward_manager/abstract.py",
)
REDUCED_INITS = {
    "verl/__init__.py": "from .protocol import DataProto\n",
    "verl/experimental/reward_loop/reward_manager/__init__.py": "from .registry import get_reward_manager_cls, register\nfrom .naive import NaiveRewardManager\nfrom .limited import RateLimitedRewardManager\n",
    "verl/workers/reward_manager/__init__.py": "from .registry import get_reward_manager_cls, register\n",
}


def build_verl_tree(root):
    for path in VERL_FILES:
        write(root, path, upstream_source(*MIRROR, path))
    write(root, "verl/experimental/reward_loop/reward_loop.py.txt", upstream_source(*MIRROR, "verl/experimental/reward_loop/reward_loop.py"))
    for path, text in REDUCED_INITS.items():
        write(root, path, text)
    for dirpath, _, files in os.walk(os.path.join(root, "verl")):
        if "__init__.py" not in files:
            write(dirpath, "__init__.py", "")
    shutil.copy(os.path.join(HERE, "verl_standins", "verl_protocol.py"), os.path.join(root, "verl", "protocol.py"))


def write(root, path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)


def mirror_commit():
    mirror = os.environ.get(*MIRROR)
    return subprocess.run(["git", "-C", mirror, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()


PROMPT = "<|im_start|>user\nWhat is 9+9?<|im_end|>\n<|im_start|>assistant\n"
SAMPLES = [
    {"prompt": PROMPT, "response": "9 + 9 = 18. #### 18", "data_source": "openai/gsm8k", "ground_truth": "18", "extra_info": {"index": 0}},
    {"prompt": "Q", "response": "#### 17", "data_source": "openai/gsm8k", "ground_truth": "18", "extra_info": {"index": 1}},
    {"prompt": PROMPT, "response": "so \\boxed{\\frac{1}{2}}", "data_source": "lighteval/MATH", "ground_truth": "\\frac12", "extra_info": {"index": 2}},
    {"prompt": "Q", "response": "x", "data_source": "no-such-source", "ground_truth": "y", "extra_info": {"index": 3}},
    {"prompt": "a longer prompt", "response": "Answer: 42", "data_source": "math_dapo", "ground_truth": "42", "extra_info": {"index": 4}},
]
EXPECTED = [1.0, 0.0, 1.0, 0.0, 1.0]
VERL_KEYS = {"score", "acc", "error", "error_code", "reward_error"}


class VerlRewardLoop(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = tempfile.mkdtemp(prefix="verl-reward-loop-")
        build_verl_tree(cls.root)  # skips the class without a mirror

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.root, ignore_errors=True)

    def drive(self, **spec):
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([self.root, os.path.join(HERE, "verl_standins"), os.path.dirname(HERE)]),
            "VERL_REWARD_LOOP_PY": os.path.join(self.root, "verl/experimental/reward_loop/reward_loop.py.txt"),
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        done = subprocess.run([sys.executable, os.path.join(HERE, "verl_reward_loop_driver.py")], input=json.dumps(spec), env=env, capture_output=True, text=True, timeout=120)
        self.assertEqual(done.returncode, 0, f"verl {mirror_commit()}: {done.stderr}")
        return json.loads(done.stdout.strip().splitlines()[-1])

    def assert_scored(self, outputs, rm_scores):
        self.assertEqual([o["reward_score"] for o in outputs], EXPECTED)
        for output in outputs:
            self.assertEqual(set(output["reward_extra_info"]), VERL_KEYS)  # the loop keeps the first sample's keys for all
        self.assertEqual(outputs[3]["reward_extra_info"]["error_code"], "unknown_data_source")
        for row, sample, score in zip(rm_scores, SAMPLES, EXPECTED):  # the score sits on the response's last token (EOS)
            self.assertEqual(row[len(sample["response"])], score)
            self.assertEqual(sum(row), score)

    def test_naive_manager_awaits_one_call_per_sample_and_they_go_as_one_request(self):
        with CountingRelay(service_url()) as relay:
            result = self.drive(manager="naive", samples=SAMPLES, reward_kwargs={"url": relay.url, "batch_size": len(SAMPLES), "batch_window_ms": LONG})
        self.assert_scored(result["outputs"], result["rm_scores"])
        self.assertEqual(relay.items_per_request, [len(SAMPLES)])
        first = next(item for item in relay.bodies[0]["items"] if item["extra_info"]["index"] == 0)
        self.assertEqual(first["solution_str"], "9 + 9 = 18. #### 18")  # decoded without special tokens, as verl does
        self.assertEqual(first["extra_info"], {"index": 0, "num_turns": None, "rollout_reward_scores": {}})

    def test_with_a_reward_model_configured_the_router_arguments_are_accepted_and_ignored(self):
        with CountingRelay(service_url()) as relay:
            result = self.drive(manager="naive", router=True, samples=SAMPLES, reward_kwargs={"url": relay.url, "batch_size": len(SAMPLES), "batch_window_ms": LONG})
        self.assert_scored(result["outputs"], result["rm_scores"])
        self.assertNotIn("reward_router_address", relay.bodies[0]["items"][0]["extra_info"])

    def test_rate_limited_manager_through_the_loop_and_its_own_call(self):
        reward = {"max_concurrent": len(SAMPLES), "timeout": 60.0}
        with CountingRelay(service_url()) as relay:
            result = self.drive(manager="rate_limited", reward=reward, call=True, samples=SAMPLES, reward_kwargs={"url": relay.url, "batch_size": len(SAMPLES), "batch_window_ms": LONG})
        self.assert_scored(result["outputs"], result["rm_scores"])
        self.assertEqual(result["call"]["reward_tensor"], result["rm_scores"])
        self.assertEqual(result["call"]["reward_extra_info"]["reward_error"], [0.0, 0.0, 0.0, 1.0, 0.0])
        self.assertEqual(relay.items_per_request, [len(SAMPLES), len(SAMPLES)])

    def test_rate_limited_time_outs_are_each_callers_own_and_send_nothing(self):
        # A batch that never fills within verl's reward.timeout: each call is cancelled by verl's wait_for and
        # answered by verl as a time-out; a cancelled caller is not sent.
        reward = {"max_concurrent": len(SAMPLES), "timeout": 0.05}
        with CountingRelay(service_url()) as relay:
            result = self.drive(manager="rate_limited", reward=reward, samples=SAMPLES, reward_kwargs={"url": relay.url, "batch_size": len(SAMPLES) + 1, "batch_window_ms": LONG})
        self.assertEqual([o["reward_score"] for o in result["outputs"]], [0.0] * len(SAMPLES))
        self.assertTrue(all(o["reward_extra_info"].get("timeout") is True for o in result["outputs"]))
        self.assertEqual(relay.requests, 0)

    def test_with_the_default_window_every_sample_is_scored_once(self):
        samples = [dict(SAMPLES[i % len(SAMPLES)], extra_info={"index": i}) for i in range(64)]
        with CountingRelay(service_url()) as relay:
            result = self.drive(manager="naive", samples=samples, reward_kwargs={"url": relay.url})
        self.assertEqual([o["reward_score"] for o in result["outputs"]], [EXPECTED[i % len(SAMPLES)] for i in range(64)])
        self.assertEqual(sum(relay.items_per_request), 64)  # how many windows the calls span depends on verl's decode threads


if __name__ == "__main__":
    unittest.main()
