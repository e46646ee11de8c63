import asyncio
import inspect
import unittest

from support import service_url

from rl_rewards import verl

KEYS = {"score", "acc", "error", "error_code", "reward_error"}


class VerlCustomRewardFunction(unittest.TestCase):
    def test_single_sample_matches_verl_gsm8k(self):
        right = verl.compute_score("openai/gsm8k", "9 + 9 = 18. #### 18", "18", {}, url=service_url())
        wrong = verl.compute_score("openai/gsm8k", "the answer is 18", "18", None, url=service_url())
        self.assertEqual(right, {"score": 1.0, "acc": 1.0, "error": "", "error_code": "", "reward_error": 0.0})
        self.assertEqual(wrong["score"], 0.0)  # strict mode needs "#### N", as verl's default
        self.assertEqual(wrong["reward_error"], 0.0)

    def test_batch_convention_with_params_and_errors_keeps_one_key_set(self):
        results = verl.compute_score_batch(
            data_sources=["openai/gsm8k", "lighteval/MATH", "no-such-source", "math_dapo"],
            solution_strs=["the answer is 18", "so \\boxed{\\frac{1}{2}}", "x", "Answer: 42"],
            ground_truths=["18", "\\frac12", "y", "42"],
            extra_infos=[{"index": 0}, {"index": 1}, {"index": 2}, {"index": 3}],
            url=service_url(),
        )
        self.assertEqual([r["score"] for r in results], [0.0, 1.0, 0.0, 1.0])
        self.assertTrue(all(set(r) == KEYS for r in results))
        self.assertEqual(results[2]["error_code"], "unknown_data_source")
        self.assertEqual(results[2]["reward_error"], 1.0)
        self.assertTrue(results[2]["error"].startswith("unknown_data_source: "))

    def test_reward_kwargs_params_reach_the_scorer(self):
        result = verl.compute_score("openai/gsm8k", "the answer is 18", "18", None, url=service_url(), params={"method": "flexible"})
        self.assertEqual(result["score"], 1.0)

    def test_async_variant_is_a_coroutine_function_verl_awaits(self):
        self.assertTrue(inspect.iscoroutinefunction(verl.compute_score_async))
        result = asyncio.run(verl.compute_score_async(data_source="openai/gsm8k", solution_str="#### 18", ground_truth="18", extra_info={}, url=service_url()))
        self.assertEqual(result["score"], 1.0)

    def test_unreachable_service_is_score_zero_with_the_reason(self):
        result = verl.compute_score("openai/gsm8k", "#### 18", "18", None, url="http://127.0.0.1:9", timeout_s=2)
        self.assertEqual(result["score"], 0.0)
        self.assertEqual(result["error_code"], "unavailable")
        self.assertEqual(set(result), KEYS)

    def test_url_from_environment_when_kwargs_have_none(self):
        import os
        from unittest import mock

        with mock.patch.dict(os.environ, {"RL_REWARDS_URL": service_url()}):
            self.assertEqual(verl.compute_score("openai/gsm8k", "#### 18", "18")["score"], 1.0)


if __name__ == "__main__":
    unittest.main()


class LoadedByFilePath(unittest.TestCase):
    def test_verl_and_easyr1_load_the_file_without_the_package_installed(self):
        import os
        import subprocess
        import sys

        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        # What verl's load_extern_object and EasyR1's AutoRewardManager do: spec_from_file_location on the file.
        script = (
            "import importlib.util, sys\n"
            "for path, name in ((sys.argv[1], 'compute_score_batch'), (sys.argv[2], 'compute_score')):\n"
            "    spec = importlib.util.spec_from_file_location('custom_module', path)\n"
            "    module = importlib.util.module_from_spec(spec)\n"
            "    spec.loader.exec_module(module)\n"
            "    print(getattr(module, name).__module__)\n"
        )
        out = subprocess.run(
            [sys.executable, "-I", "-c", script, os.path.join(here, "rl_rewards", "verl.py"), os.path.join(here, "rl_rewards", "easyr1.py")],
            cwd="/", capture_output=True, text=True, timeout=60, check=True,
        )
        self.assertEqual(out.stdout.split(), ["custom_module", "custom_module"])
