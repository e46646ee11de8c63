"""compute_score_async gathers concurrent calls into one POST /v1/score and answers each call alone.
No timing: batches close on `batch_size` or within one event-loop turn, never on a race with the clock."""

import asyncio
import unittest

from support import CountingRelay, service_url

from rl_rewards import verl

LONG = 60_000  # a window no test waits for: batches here close on batch_size


def call(url, data_source, solution, truth, extra=None, **kwargs):
    return verl.compute_score_async(data_source, solution, truth, extra, url=url, **kwargs)


class OneRequestForConcurrentCalls(unittest.TestCase):
    def test_calls_of_one_turn_share_a_request_and_keep_their_own_results_and_errors(self):
        with CountingRelay(service_url()) as relay:

            async def run():
                return await asyncio.gather(
                    call(relay.url, "openai/gsm8k", "#### 18", "18"),
                    call(relay.url, "openai/gsm8k", "#### 17", "18"),
                    call(relay.url, "no-such-source", "x", "y"),
                    call(relay.url, "openai/gsm8k", "the answer is 18", "18", params={"method": "bogus"}),
                    call(relay.url, None, "#### 18", "18"),  # no data source: answered here, not sent
                    call(relay.url, "openai/gsm8k", "#### 18", "18", {"handle": object()}),  # not JSON: answered here
                    call(relay.url, "openai/gsm8k", "the answer is 18", "18", params={"method": "flexible"}),
                )

            results = asyncio.run(run())
        self.assertEqual(relay.requests, 1)
        self.assertEqual(relay.items_per_request, [5])
        self.assertEqual([r["score"] for r in results], [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0])
        self.assertEqual([r["error_code"] for r in results], ["", "", "unknown_data_source", "invalid_params", "validation_failed", "validation_failed", ""])
        self.assertIn("no data_source", results[4]["error"])
        self.assertIn("as JSON", results[5]["error"])

    def test_an_item_the_service_refuses_is_answered_alone_and_the_rest_sent_again(self):
        with CountingRelay(service_url()) as relay:

            async def run():
                return await asyncio.gather(
                    call(relay.url, "openai/gsm8k", "#### 18", "18"),
                    call(relay.url, "openai/gsm8k", 5, "18"),  # not a string: the service's 400 names items[1]
                    call(relay.url, "openai/gsm8k", "#### 3", "3"),
                )

            results = asyncio.run(run())
        self.assertEqual(relay.items_per_request, [3, 2])
        self.assertEqual([r["score"] for r in results], [1.0, 0.0, 1.0])
        self.assertEqual(results[1]["error_code"], "validation_failed")
        self.assertIn("items[1].solution_str", results[1]["error"])

    def test_batch_size_closes_a_batch_and_the_window_gathers_calls_across_turns(self):
        with CountingRelay(service_url()) as relay:

            async def run():
                tasks = []
                for i in range(10):
                    tasks.append(asyncio.ensure_future(call(relay.url, "openai/gsm8k", f"#### {i}", str(i), batch_size=4, batch_window_ms=LONG)))
                    await asyncio.sleep(0)  # each call arrives in its own turn of the loop
                done = await asyncio.gather(*tasks[:8])  # two full batches went at once
                self.assertEqual(relay.items_per_request, [4, 4])
                last = await asyncio.gather(call(relay.url, "openai/gsm8k", "#### 10", "10", batch_size=4, batch_window_ms=LONG), call(relay.url, "openai/gsm8k", "#### 11", "11", batch_size=4, batch_window_ms=LONG))
                return done + list(await asyncio.gather(*tasks[8:])) + list(last)

            results = asyncio.run(run())
        self.assertEqual(relay.items_per_request, [4, 4, 4])
        self.assertEqual([r["score"] for r in results], [1.0] * 12)

    def test_a_zero_window_sends_the_calls_of_one_turn_together(self):
        with CountingRelay(service_url()) as relay:

            async def run():
                return await asyncio.gather(*(call(relay.url, "openai/gsm8k", "#### 1", "1", batch_window_ms=0) for _ in range(6)))

            results = asyncio.run(run())
        self.assertEqual(relay.items_per_request, [6])
        self.assertTrue(all(r["score"] == 1.0 for r in results))

    def test_a_caller_that_stops_waiting_is_not_sent_and_costs_the_others_nothing(self):
        # verl's rate_limited manager wraps each call in asyncio.wait_for: a time-out cancels that call only.
        with CountingRelay(service_url()) as relay:

            async def run():
                kw = {"batch_size": 4, "batch_window_ms": LONG}
                tasks = [asyncio.ensure_future(call(relay.url, "openai/gsm8k", f"#### {i}", str(i), **kw)) for i in range(3)]
                await asyncio.sleep(0)
                tasks[0].cancel()
                fourth = await call(relay.url, "openai/gsm8k", "#### 3", "3", **kw)  # the fourth item closes the batch
                timed_out = await asyncio.gather(tasks[0], return_exceptions=True)
                return timed_out[0], await asyncio.gather(*tasks[1:]), fourth

            cancelled, others, fourth = asyncio.run(run())
        self.assertIsInstance(cancelled, asyncio.CancelledError)
        self.assertEqual(relay.items_per_request, [3])
        self.assertEqual([r["score"] for r in others] + [fourth["score"]], [1.0, 1.0, 1.0])

    def test_different_settings_never_share_a_request(self):
        with CountingRelay(service_url()) as relay:

            async def run():
                return await asyncio.gather(call(relay.url, "openai/gsm8k", "#### 1", "1", auth_token="a"), call(relay.url, "openai/gsm8k", "#### 1", "1", auth_token="b"))

            asyncio.run(run())
        self.assertEqual(sorted(relay.authorizations), ["Bearer a", "Bearer b"])
        self.assertEqual(relay.items_per_request, [1, 1])


class RewardModelArguments(unittest.TestCase):
    """What verl's reward loop passes when a reward model is configured."""

    class Tokenizer:
        name_or_path = "Qwen/Qwen2.5-0.5B-Instruct"

    def test_accepted_and_ignored_by_default(self):
        with CountingRelay(service_url()) as relay:
            result = asyncio.run(call(relay.url, "openai/gsm8k", "#### 1", "1", {"index": 7}, reward_router_address="10.0.0.5:30000", reward_model_tokenizer=self.Tokenizer()))
        self.assertEqual(result["score"], 1.0)
        self.assertEqual(relay.bodies[0]["items"][0]["extra_info"], {"index": 7})

    def test_forwarded_in_extra_info_when_told(self):
        with CountingRelay(service_url()) as relay:
            result = asyncio.run(call(relay.url, "openai/gsm8k", "#### 1", "1", {"index": 7}, reward_router_address="10.0.0.5:30000", reward_model_tokenizer=self.Tokenizer(), forward_reward_router="true"))
        self.assertEqual(result["score"], 1.0)
        self.assertEqual(relay.bodies[0]["items"][0]["extra_info"], {"index": 7, "reward_router_address": "10.0.0.5:30000", "reward_model_tokenizer": "Qwen/Qwen2.5-0.5B-Instruct"})


class BearerToken(unittest.TestCase):
    def test_auth_token_is_sent_as_a_bearer_header_by_every_form(self):
        with CountingRelay(service_url()) as relay:
            verl.compute_score("openai/gsm8k", "#### 1", "1", url=relay.url, auth_token="s3cret")
            asyncio.run(call(relay.url, "openai/gsm8k", "#### 1", "1", auth_token="s3cret"))
        self.assertEqual(relay.authorizations, ["Bearer s3cret", "Bearer s3cret"])


if __name__ == "__main__":
    unittest.main()
