"""What a request costs the bridge, counted rather than timed: reference cycles left
for the garbage collector, tasks started, and writes of a streamed reply.

The bridge's ASGI application is called directly, as an ASGI server calls it (a
``receive`` that gives the body, then ``http.disconnect`` once the response is sent,
as the ASGI spec says), so that what is counted is the bridge's alone: an HTTP
client or server in this process would add its own objects and tasks. The upstream
is real: the benchmark's fast fake (plain asyncio, in its own process) over
loopback, or, for the write counts, a socket server here that writes its reply in
the parts a test chooses.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from good_agent.server import create_app, parse_config

pytestmark = pytest.mark.anyio

UPSTREAM = Path(__file__).resolve().parents[2] / "benchmarks" / "bridge_upstream.py"
os.environ.setdefault("GA_LEAN_UPSTREAM_KEY", "sk-lean-test")
BODY = {
    "model": "m",
    "messages": [{"role": "user", "content": "Weather in Paris?"}],
    "tools": [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
            },
        }
    ],
}
REQUESTS = 1_000


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def fast_upstream() -> Iterator[str]:
    """The benchmark's fake upstream (one tool call; streamed: 20 events, one write)."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(UPSTREAM), str(port), "raw"], stdout=subprocess.PIPE
    )
    try:
        assert process.stdout is not None
        process.stdout.readline()  # "upstream ready"
        yield f"http://127.0.0.1:{port}"
    finally:
        process.kill()
        process.wait()


def bridge_app(upstream: str) -> Any:
    config = {
        "models": [
            {
                "name": "m",
                "provider": "openai",
                "model": "fake-gpt",
                "mode": "native",
                "base_url": f"{upstream}/v1",
                "api_key_env": "GA_LEAN_UPSTREAM_KEY",
            }
        ]
    }
    return create_app(parse_config(config))


async def call(app: Any, stream: bool, *, gone_after: int | None = None) -> list[dict[str, Any]]:
    """One request through the ASGI app; the messages it sent. With ``gone_after``,
    sending raises ``OSError`` once that many messages were sent (an ASGI 2.4 server
    telling of a client that left)."""
    body = json.dumps({**BODY, "stream": stream}).encode()
    pending = [{"type": "http.request", "body": body, "more_body": False}]
    sent: list[dict[str, Any]] = []
    finished = asyncio.Event()

    async def receive() -> dict[str, Any]:
        if pending:
            return pending.pop()
        await finished.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if gone_after is not None and len(sent) >= gone_after:
            raise OSError("the client disconnected")
        sent.append(message)
        if message["type"] == "http.response.body" and not message.get("more_body"):
            finished.set()

    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/v1/chat/completions",
        "raw_path": b"/v1/chat/completions",
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }
    await app(scope, receive, send)
    assert sent[0]["status"] == 200, sent
    return sent


def body_of(sent: list[dict[str, Any]]) -> bytes:
    return b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")


async def count_cycles(upstream: str, stream: bool) -> int:
    """Objects the garbage collector finds in cycles after :data:`REQUESTS` requests."""
    app = bridge_app(upstream)
    try:
        for _ in range(20):  # warm up: connections, caches, first-use imports
            sent = await call(app, stream)
        assert b"get_weather" in body_of(sent)
        gc.collect()
        gc.disable()
        try:
            for _ in range(REQUESTS):
                await call(app, stream)
            return gc.collect()
        finally:
            gc.enable()
    finally:
        await app.state.bridge.aclose()


@pytest.mark.parametrize("kind", ["whole", "streamed"])
def test_a_request_leaves_no_reference_cycles(fast_upstream: str, kind: str) -> None:
    # Counted in a process of its own: the servers other tests leave running in
    # this one make garbage of their own while the requests are made.
    root = str(Path(__file__).resolve().parents[2])
    path = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, __file__, fast_upstream, kind],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": path},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = int(done.stdout.split()[-1])
    # Each request used to leave about 65 objects in cycles (a cancelled task
    # group's task, its exception and traceback, Starlette's closures).
    assert found / REQUESTS < 0.05, f"{found} objects in cycles after {REQUESTS} requests"


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
async def test_a_request_answered_at_once_starts_no_task(fast_upstream: str, stream: bool) -> None:
    app = bridge_app(fast_upstream)
    loop = asyncio.get_running_loop()
    started: list[Any] = []
    previous = loop.get_task_factory()

    def counting(loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> asyncio.Task[Any]:
        # The bridge's own tasks (aiohttp, its upstream client, starts one to send
        # each request body, as it does in any proxy built on it).
        if "aiohttp" not in coro.cr_code.co_filename:
            started.append(coro.__qualname__)
        return asyncio.Task(coro, loop=loop, **kwargs)

    try:
        await call(app, stream)  # warm up: the upstream connection is opened once
        loop.set_task_factory(counting)
        for _ in range(10):
            await call(app, stream)
    finally:
        loop.set_task_factory(previous)
        await app.state.bridge.aclose()
    # No task group around the reply, and no task watching for the client leaving:
    # that starts only once a run outlasts WATCH_AFTER (the fast upstream answers at
    # once).
    assert started == []


async def test_chunks_of_one_upstream_read_go_out_in_one_write(fast_upstream: str) -> None:
    app = bridge_app(fast_upstream)
    try:
        sent = await call(app, stream=True)
    finally:
        await app.state.bridge.aclose()
    bodies = [m for m in sent if m["type"] == "http.response.body"]
    data = body_of(sent)
    assert data.count(b"data: ") > 10 and data.endswith(b"data: [DONE]\n\n")
    assert len(bodies) == 1 and not bodies[0]["more_body"]


async def python_calls(app: Any, stream: bool) -> float:
    """Python function calls per request (the bridge's and its upstream client's)."""
    for _ in range(5):  # warm up: the upstream connection, caches
        await call(app, stream)
    calls = 0

    def count(frame: Any, event: str, arg: Any) -> None:
        nonlocal calls
        if event == "call":
            calls += 1

    sys.setprofile(count)
    try:
        for _ in range(20):
            await call(app, stream)
    finally:
        sys.setprofile(None)
    return calls / 20


async def test_a_streamed_event_costs_few_python_calls(fast_upstream: str) -> None:
    # The fake upstream streams 20 events in one write; what a streamed request
    # costs beyond a whole one is the work per event (read, decode, re-encode,
    # write), counted rather than timed. It was 27 calls an event (one generator
    # step per line read, one more per item primed before the reply began).
    app = bridge_app(fast_upstream)
    try:
        whole = await python_calls(app, stream=False)
        streamed = await python_calls(app, stream=True)
    finally:
        await app.state.bridge.aclose()
    per_event = (streamed - whole) / 20
    assert per_event <= 25, f"{per_event:.1f} Python calls per streamed event"


def _sse(delta: dict[str, Any], finish: str | None = None) -> bytes:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    chunk = {"id": "c", "object": "chat.completion.chunk", "model": "fake-gpt", "choices": [choice]}
    return b"data: " + json.dumps(chunk).encode() + b"\n\n"


class SplitUpstream:
    """Answers each request with a streamed reply written in ``parts``, with a pause
    between them, each part in one socket write (its length given up front, so the
    end of the last part is the end of the reply)."""

    def __init__(self, parts: list[bytes], pause: float = 0.3) -> None:
        self.parts = parts
        self.pause = pause
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                data = b""
                while b"\r\n\r\n" not in data:
                    data += conn.recv(65536)
                head, _, rest = data.partition(b"\r\n\r\n")
                length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
                while len(rest) < length:
                    rest += conn.recv(65536)
                length = sum(len(part) for part in self.parts)
                conn.sendall(
                    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                    b"content-length: %d\r\nconnection: close\r\n\r\n" % length + self.parts[0]
                )
                for part in self.parts[1:]:
                    time.sleep(self.pause)
                    conn.sendall(part)

    def close(self) -> None:
        self.sock.close()


async def test_chunks_go_out_as_their_upstream_reads_arrive() -> None:
    words = ["one ", "two ", "three ", "four ", "five ", "six "]
    first = _sse({"role": "assistant", "content": ""}) + b"".join(
        _sse({"content": w}) for w in words[:3]
    )
    second = b"".join(_sse({"content": w}) for w in words[3:])
    second += _sse({}, "stop") + b"data: [DONE]\n\n"
    upstream = SplitUpstream([first, second])
    app = bridge_app(upstream.url)
    try:
        sent = await call(app, stream=True)
    finally:
        await app.state.bridge.aclose()
        upstream.close()
    bodies = [m["body"] for m in sent if m["type"] == "http.response.body"]
    # One write for what came in the first read (sent before the second arrived),
    # one for the rest and the end of the stream.
    assert len(bodies) == 2, bodies
    texts = [
        [
            json.loads(line[6:])["choices"][0]["delta"].get("content")
            for line in body.decode().split("\n\n")
            if line.startswith("data: {")
        ]
        for body in bodies
    ]
    assert texts[0] == ["", *words[:3]]
    assert texts[1] == [*words[3:], None]
    assert bodies[1].endswith(b"data: [DONE]\n\n")


async def test_a_failed_write_is_a_client_gone(caplog: pytest.LogCaptureFixture) -> None:
    first = _sse({"role": "assistant", "content": ""}) + _sse({"content": "one "})
    second = _sse({"content": "two "}) + _sse({}, "stop") + b"data: [DONE]\n\n"
    upstream = SplitUpstream([first, second], pause=0.5)
    app = bridge_app(upstream.url)
    caplog.set_level(logging.INFO, logger="good_agent.server")
    try:
        with anyio.fail_after(5):
            sent = await call(app, stream=True, gone_after=1)  # only the head went out
    finally:
        await app.state.bridge.aclose()
        upstream.close()
    assert [m["type"] for m in sent] == ["http.response.start"]
    statuses = [r.status for r in caplog.records if r.name == "good_agent.server.access"]
    assert statuses == [499]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


if __name__ == "__main__":
    print(asyncio.run(count_cycles(sys.argv[1], sys.argv[2] == "streamed")))
