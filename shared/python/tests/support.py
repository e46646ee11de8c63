"""Shared test settings: the running reward-rules service the vitest runner started (test/python-adapters.test.ts)."""

import json
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


class CountingRelay:
    """A real HTTP relay in front of the service that counts the requests and their samples (/v1/score items,
    OpenRLHF queries, a slime group; 1 for a single slime sample).
    `with CountingRelay(url) as relay:` then point clients at `relay.url`."""

    def __init__(self, target: str) -> None:
        import threading
        import urllib.error
        import urllib.request
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        relay = self
        self.requests = 0
        self.items_per_request = []
        self.bodies = []
        self.authorizations = []
        self._lock = threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802  http.server's naming
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                with relay._lock:
                    relay.requests += 1
                    relay.authorizations.append(self.headers.get("authorization"))
                    try:
                        relay.bodies.append(json.loads(body))
                    except ValueError:
                        relay.bodies.append(None)
                    sent = relay.bodies[-1]
                    items = sent.get("items", sent.get("query")) if isinstance(sent, dict) else sent  # /v1/score, OpenRLHF, a slime group
                    relay.items_per_request.append(len(items) if isinstance(items, list) else 1)
                headers = {k: v for k, v in self.headers.items() if k.lower() in ("content-type", "authorization")}
                req = urllib.request.Request(target + self.path, data=body, method="POST", headers=headers)
                try:
                    with urllib.request.urlopen(req, timeout=60) as res:
                        status, payload, ctype = res.status, res.read(), res.headers.get("content-type", "application/json")
                except urllib.error.HTTPError as err:
                    status, payload, ctype = err.code, err.read(), err.headers.get("content-type", "application/json")
                self.send_response(status)
                self.send_header("content-type", ctype)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> "CountingRelay":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()
