"""Coalesces concurrent coroutine calls into one POST /v1/score.

verl's reward loop awaits one `compute_score` per sample, all at once. Each call adds its item to the
batch of its event loop and settings; the batch goes out `batch_window_ms` after its first item arrived,
or as soon as it holds `batch_size` items. Every caller gets its own slot back: its own score, its own
error (an item the service refuses is answered alone, see _client), and a caller that stops waiting
(verl's `rate_limited` manager cancels on its timeout) costs the others nothing.
"""

import asyncio
import weakref
from typing import Any, Callable, Dict, List, Set, Tuple

from rl_rewards._client import Slot, error_slot, score_batch
from rl_rewards._config import ClientConfig

Send = Callable[[List[Dict[str, Any]], ClientConfig], List[Slot]]


class Batcher:
    """The pending batch of one event loop and one ClientConfig. The blocking HTTP call runs on the loop's executor."""

    def __init__(self, loop: asyncio.AbstractEventLoop, config: ClientConfig, send: Send = score_batch) -> None:
        self._loop = loop
        self._config = config
        self._send = send
        self._pending: List[Tuple[Dict[str, Any], "asyncio.Future[Slot]"]] = []
        self._timer: "asyncio.TimerHandle | None" = None
        self._inflight: Set["asyncio.Task[None]"] = set()  # held so the loop does not drop running sends

    def submit(self, item: Dict[str, Any]) -> "asyncio.Future[Slot]":
        """Adds `item` to the pending batch; the future resolves to its slot. Never raises, never blocks."""
        future: "asyncio.Future[Slot]" = self._loop.create_future()
        self._pending.append((item, future))
        if len(self._pending) >= self._config.batch_size:
            self.flush()
        elif self._timer is None:
            self._timer = self._loop.call_later(self._config.batch_window_ms / 1000.0, self.flush)
        return future

    def flush(self) -> None:
        """Sends what is pending now."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        batch, self._pending = self._pending, []
        if batch:
            task = self._loop.create_task(self._run(batch))
            self._inflight.add(task)
            task.add_done_callback(self._inflight.discard)

    async def _run(self, batch: List[Tuple[Dict[str, Any], "asyncio.Future[Slot]"]]) -> None:
        live = [(item, future) for item, future in batch if not future.done()]  # callers that gave up are not sent
        if not live:
            return
        try:
            slots = await self._loop.run_in_executor(None, self._send, [item for item, _ in live], self._config)
        except Exception as err:  # score_batch answers failures as slots; this keeps a bug from leaving callers waiting forever
            slots = [error_slot("internal", f"rl_rewards batch failed: {type(err).__name__}: {err}")] * len(live)
        for (_, future), slot in zip(live, slots):
            if not future.done():
                future.set_result(slot)


_batchers: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Dict[ClientConfig, Batcher]]" = weakref.WeakKeyDictionary()


def batcher_for(config: ClientConfig) -> Batcher:
    """The running loop's batcher for `config`: calls with different settings (url, token, window) never share a request."""
    loop = asyncio.get_running_loop()
    per_loop = _batchers.setdefault(loop, {})
    if config not in per_loop:
        per_loop[config] = Batcher(loop, config)
    return per_loop[config]


async def score_one(item: Dict[str, Any], config: ClientConfig) -> Slot:
    """Scores one item as part of whatever batch the running loop is gathering."""
    return await batcher_for(config).submit(item)
