"""Shared test configuration: async tests run on asyncio through anyio's pytest plugin."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@pytest.fixture
def anyio_backend() -> str:
    """Run ``@pytest.mark.anyio`` tests on asyncio."""
    return "asyncio"


class FakeUpstream:
    """An HTTP server on loopback that answers POSTs from a script of replies.

    Each reply is ``(status, json_body)`` or a callable taking the request body and
    returning one. ``bodies`` keeps every JSON body received, ``paths`` the paths,
    ``headers`` the request headers (names in lower case).
    """

    def __init__(self, replies: list[Any]) -> None:
        self.replies = list(replies)
        self.bodies: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.headers: list[dict[str, str]] = []
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                upstream.bodies.append(body)
                upstream.paths.append(self.path)
                upstream.headers.append({k.lower(): v for k, v in self.headers.items()})
                reply = (
                    upstream.replies.pop(0) if upstream.replies else (500, {"error": "no reply"})
                )
                status, payload = reply(body) if callable(reply) else reply
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        """Stop serving."""
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fake_upstream() -> Iterator[Callable[[list[Any]], FakeUpstream]]:
    """Start fake upstreams on loopback; all are stopped after the test."""
    started: list[FakeUpstream] = []

    def start(replies: list[Any]) -> FakeUpstream:
        upstream = FakeUpstream(replies)
        started.append(upstream)
        return upstream

    yield start
    for upstream in started:
        upstream.close()
