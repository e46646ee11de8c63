"""How many /v1/score requests and how much wall time N concurrent `compute_score_async` calls cost, the way
verl's reward loop makes them (one coroutine per sample, gathered). Not a test: a measurement.

    /usr/bin/python3 tests/bench_batching.py --url http://127.0.0.1:8101 [--package DIR] [--calls 1024]

`--package` names the directory holding the `rl_rewards` to measure (another checkout, for a before/after)."""

import argparse
import asyncio
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from support import CountingRelay  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--package", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser.add_argument("--calls", type=int, default=1024)
    parser.add_argument("--auth-token", default="")
    args = parser.parse_args()
    sys.path.insert(0, args.package)
    for name in [m for m in sys.modules if m == "rl_rewards" or m.startswith("rl_rewards.")]:
        del sys.modules[name]
    from rl_rewards import verl

    kwargs = {"auth_token": args.auth_token} if args.auth_token else {}
    with CountingRelay(args.url) as relay:

        async def run():
            calls = [verl.compute_score_async("openai/gsm8k", f"so #### {i % 7}", str(i % 5), {"index": i}, url=relay.url, **kwargs) for i in range(args.calls)]
            return await asyncio.gather(*calls)

        started = time.perf_counter()
        results = asyncio.run(run())
        wall = time.perf_counter() - started
    errors = sum(r["reward_error"] for r in results)
    right = sum(r["score"] for r in results)
    print(f"package={verl.__file__} calls={args.calls} requests={relay.requests} items_per_request_max={max(relay.items_per_request)} wall_s={wall:.3f} scored_1={right:.0f} errors={errors:.0f}")


if __name__ == "__main__":
    main()
