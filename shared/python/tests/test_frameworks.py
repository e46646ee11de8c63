import asyncio
import inspect
import os
import unittest
from unittest import mock

from support import service_url

from rl_rewards import areal, easyr1, trl


class EasyR1BatchFunction(unittest.TestCase):
    def test_module_declares_a_batch_function(self):
        self.assertEqual(easyr1.REWARD_TYPE, "batch")

    def test_scores_with_data_source_from_kwargs_or_label_object(self):
        inputs = [
            {"response": "9 + 9 = 18. #### 18", "response_length": 9, "ground_truth": "18"},
            {"response": "#### 17", "response_length": 3, "ground_truth": "18"},
            {"response": "\\boxed{2}", "response_length": 4, "ground_truth": '{"data_source": "lighteval/MATH", "ground_truth": "2"}'},
            {"response": "x", "response_length": 1, "ground_truth": {"data_source": "no-such-source", "ground_truth": "y"}},
        ]
        scores = easyr1.compute_score(inputs, url=service_url(), data_source="openai/gsm8k")
        self.assertEqual(scores, [
            {"overall": 1.0, "reward_error": 0.0},
            {"overall": 0.0, "reward_error": 0.0},
            {"overall": 1.0, "reward_error": 0.0},
            {"overall": 0.0, "reward_error": 1.0},
        ])

    def test_no_data_source_anywhere_is_a_flagged_zero_not_a_failed_batch(self):
        with mock.patch.dict(os.environ, {"RL_REWARDS_DATA_SOURCE": ""}):
            scores = easyr1.compute_score([{"response": "#### 1", "response_length": 2, "ground_truth": "1"}], url=service_url())
        self.assertEqual(scores, [{"overall": 0.0, "reward_error": 1.0}])


class TrlRewardFuncs(unittest.TestCase):
    def test_sync_function_with_conversational_completions_and_none_for_errors(self):
        logged, metrics = {}, {}
        func = trl.make_reward_func(url=service_url())
        rewards = func(
            prompts=[[{"role": "user", "content": "9+9?"}]] * 3,
            completions=[[{"role": "assistant", "content": "#### 18"}], [{"role": "assistant", "content": "#### 17"}], [{"role": "assistant", "content": "x"}]],
            completion_ids=[[1], [2], [3]],
            data_source=["openai/gsm8k", "openai/gsm8k", "no-such-source"],
            solution=["18", "18", "y"],
            trainer_state=None,
            log_extra=lambda column, values: logged.__setitem__(column, values),
            log_metric=lambda name, value: metrics.__setitem__(name, value),
        )
        self.assertEqual(rewards, [1.0, 0.0, None])
        self.assertEqual(logged["reward_error"][:2], ["", ""])
        self.assertTrue(logged["reward_error"][2].startswith("unknown_data_source: "))
        self.assertAlmostEqual(metrics["reward_error_rate"], 1 / 3)

    def test_async_function_reads_verl_rows_and_a_fixed_data_source(self):
        func = trl.make_async_reward_func(url=service_url(), data_source="openai/gsm8k", params={"method": "flexible"})
        self.assertTrue(inspect.iscoroutinefunction(func))
        rewards = asyncio.run(func(prompts=["q", "q"], completions=["the answer is 18", "the answer is 7"], reward_model=[{"ground_truth": "18"}, {"ground_truth": "18"}]))
        self.assertEqual(rewards, [1.0, 0.0])


class ArealRewardFn(unittest.TestCase):
    def test_signature_and_scores_with_special_tokens_left_by_decode(self):
        params = list(inspect.signature(areal.reward_fn).parameters)
        self.assertEqual(params[:4], ["prompt", "completions", "prompt_ids", "completion_ids"])
        with mock.patch.dict(os.environ, {"RL_REWARDS_URL": service_url()}):
            self.assertEqual(areal.reward_fn("q", "#### 18<|im_end|>", [1], [2], answer="18", data_source="openai/gsm8k"), 1.0)
            self.assertEqual(areal.reward_fn("q", "#### 17<|im_end|>", [1], [2], answer="18", data_source="openai/gsm8k"), 0.0)

    def test_an_error_is_zero_and_a_warning(self):
        with mock.patch.dict(os.environ, {"RL_REWARDS_URL": service_url()}), self.assertLogs("rl_rewards", "WARNING") as logs:
            self.assertEqual(areal.reward_fn("q", "x", [], [], answer="y", data_source="no-such-source"), 0.0)
        self.assertIn("unknown_data_source", logs.output[0])


if __name__ == "__main__":
    unittest.main()
