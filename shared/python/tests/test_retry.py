"""Overload handling against a local HTTP server that answers 429/503 a given number of times and then
relays the request to the real reward service, so the final results are real. Waits are recorded, not slept."""

import json
import threading
import unittest
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from support import service_url

from rl_rewards._client import score_batch
from rl_rewards._config import ClientConfig

ITEM = {"data_source": "openai/gsm8k", "solution_str": "#### 18", "ground_truth": "18"}


def start_gate(refusals):
    """refusals: list of (status, retry_after or None) answered before relaying."""
    state = {"attempts": 0}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers["content-length"]))
            state["attempts"] += 1
            if refusals:
                status, retry_after = refusals.pop(0)
                payload = json.dumps({"type": "urn:rl:error:busy", "title": "busy", "status": status, "detail": "full", "error": {"code": "busy", "message": "full"}}).encode()
                self.send_response(status)
                if retry_after is not None:
                    self.send_header("retry-after", retry_after)
                self.send_header("content-type", "application/problem+json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
                return
            req = urllib.request.Request(service_url() + self.path, data=body, method="POST", headers={"content-type": "application/json"})
            with urllib.request.urlopen(req, timeout=30) as res:
                payload = res.read()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, state


class RetriesOnOverloadOnly(unittest.TestCase):
    def run_gate(self, refusals, **config):
        server, state = start_gate(list(refusals))
        waits = []
        try:
            cfg = ClientConfig(url=f"http://127.0.0.1:{server.server_address[1]}", timeout_s=10, **config)
            slots = score_batch([ITEM], cfg, sleep=waits.append)
        finally:
            server.shutdown()
            server.server_close()
        return slots, state["attempts"], waits

    def test_429_and_503_are_retried_after_retry_after_then_scored(self):
        slots, attempts, waits = self.run_gate([(429, "2"), (503, "0.5")], max_retries=3)
        self.assertEqual(slots[0]["score"], 1)
        self.assertEqual(attempts, 3)
        self.assertEqual(waits, [2.0, 0.5])

    def test_waits_are_capped_and_default_to_backoff_without_retry_after(self):
        _, _, waits = self.run_gate([(503, "600"), (503, None), (503, "Wed, 21 Oct 2015 07:28:00 GMT")], max_retries=3, max_retry_wait_s=5)
        self.assertEqual(waits, [5.0, 2.0, 4.0])

    def test_retries_are_bounded_and_the_last_refusal_is_each_item_error(self):
        slots, attempts, waits = self.run_gate([(503, "0")] * 5, max_retries=2)
        self.assertEqual(attempts, 3)
        self.assertEqual(len(waits), 2)
        self.assertEqual(slots, [{"error": {"code": "busy", "message": "full"}}])

    def test_other_errors_are_not_retried(self):
        slots, attempts, waits = self.run_gate([(400, None)], max_retries=3)
        self.assertEqual((attempts, waits), (1, []))
        self.assertEqual(slots[0]["error"]["code"], "busy")  # the problem body's code is kept


if __name__ == "__main__":
    unittest.main()
