"""A stream whose connection is reset mid-reply is a cut stream, not an unreachable upstream.

The upstream here is a raw loopback socket: it sends the response head and a few
chunks, waits until the first piece has reached the client, then resets the
connection (``SO_LINGER`` 0). Checked through the bridge with each of its HTTP
clients (its own HTTP/1.1 wire, aiohttp and httpx) on both endpoints, and in the
model core.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
from collections.abc import Iterator

import httpx2
import pytest
from bridge_fakes import sse
from bridge_harness import CLIENT_KEY, USER

from good_agent import ModelIncompleteStreamError
from good_agent.http.http1_wire import Http1Wire
from good_agent.http.wire import AiohttpWire, Wire
from good_agent.models.provider_model import ProviderModel
from good_agent.providers.openai.http_transport import OpenAIHttpTransport
from good_agent.providers.streaming import TextDelta
from good_agent.providers.types import ChatRequest
from good_agent.server import create_app, parse_config
from good_agent.server.background import BackgroundServer

pytestmark = [pytest.mark.anyio, pytest.mark.both_paths]
AUTH = {"authorization": f"Bearer {CLIENT_KEY}"}


def text_chunk(text: str) -> bytes:
    choice = {"index": 0, "delta": {"content": text}, "finish_reason": None}
    return sse({"id": "c", "object": "chat.completion.chunk", "model": "m", "choices": [choice]})


class ResettingUpstream:
    """Answers each POST with a streamed head and three chunks, then resets the
    connection once :attr:`cut` is set."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/v1"
        self.cut = threading.Event()
        self.resets = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        data = b""
        while b"\r\n\r\n" not in data:
            data += conn.recv(65536)
        head, body = data.split(b"\r\n\r\n", 1)
        length = next(
            int(line.split(b":", 1)[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        while len(body) < length:
            body += conn.recv(65536)
        conn.sendall(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
            b"transfer-encoding: chunked\r\n\r\n"
        )
        for piece in ("Hel", "lo ", "wor"):
            frame = text_chunk(piece)
            conn.sendall(f"{len(frame):x}\r\n".encode() + frame + b"\r\n")
        self.cut.wait(20)
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        conn.close()
        self.resets += 1

    def close(self) -> None:
        self.cut.set()
        self.listener.close()


@pytest.fixture
def upstream() -> Iterator[ResettingUpstream]:
    server = ResettingUpstream()
    yield server
    server.close()


def bridge_for(
    upstream: ResettingUpstream,
    wire: str,
    monkeypatch: pytest.MonkeyPatch,
    pass_through: bool = True,
) -> BackgroundServer:
    config = parse_config(
        {
            "server": {"api_keys_env": "GA_TEST_CLIENT_KEYS", "pass_through": pass_through},
            "models": [
                {
                    "name": "gpt",
                    "provider": "openai",
                    "model": "m",
                    "mode": "native",
                    "base_url": upstream.url,
                }
            ],
        }
    )
    client = httpx2.AsyncClient() if wire == "httpx" else None
    if wire == "aiohttp":  # as when httptools is not installed
        monkeypatch.setattr("good_agent.server.bridge.http1_available", lambda: False)
    app = create_app(config, client=client)
    kinds = {"http1": Http1Wire, "aiohttp": AiohttpWire, "httpx": type(None)}
    assert type(app.state.bridge.wire) is kinds[wire]
    return BackgroundServer(app).start()


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/messages"])
@pytest.mark.parametrize("wire", ["http1", "aiohttp", "httpx"])
async def test_a_reset_mid_stream_is_a_cut_stream(
    upstream: ResettingUpstream,
    wire: str,
    path: str,
    monkeypatch: pytest.MonkeyPatch,
    pass_through: bool,
) -> None:
    bridge = bridge_for(upstream, wire, monkeypatch, pass_through)
    body = {"model": "gpt", "messages": USER, "max_tokens": 50, "stream": True}
    lines: list[str] = []
    try:
        async with (
            httpx2.AsyncClient(timeout=30) as http,
            http.stream("POST", f"{bridge.url}{path}", json=body, headers=AUTH) as response,
        ):
            assert response.status_code == 200
            async for line in response.aiter_lines():
                lines.append(line)
                if "Hel" in line:
                    upstream.cut.set()  # the first piece has arrived: now reset
    finally:
        bridge.stop()
    assert upstream.resets == 1
    events = [json.loads(line[6:]) for line in lines if line.startswith("data: {")]
    assert any("Hel" in json.dumps(event) for event in events)
    assert "data: [DONE]" not in lines
    assert not any(event.get("type") == "message_stop" for event in events)
    assert not any(
        choice.get("finish_reason") for event in events for choice in event.get("choices") or []
    )
    error = events[-1]["error"]
    if path == "/v1/chat/completions":
        assert error["code"] == "upstream_stream_cut"
    assert "cut before its final event" in error["message"]
    assert "cannot" not in error["message"] and "reach" not in error["message"]


@pytest.mark.parametrize("wire", ["http1", "aiohttp", "httpx"])
async def test_the_model_core_says_the_stream_was_cut(
    upstream: ResettingUpstream, wire: str
) -> None:
    own_wire: Wire | None = None
    if wire == "aiohttp":
        own_wire = AiohttpWire()
    elif wire == "http1":
        own_wire = Http1Wire()
    transport = OpenAIHttpTransport("m", base_url=upstream.url, wire=own_wire)
    model = ProviderModel("m", transport, mode="native")
    texts: list[str] = []
    try:
        with pytest.raises(ModelIncompleteStreamError) as cut:
            async for item in model.stream(ChatRequest(list(USER))):
                if isinstance(item, TextDelta):
                    texts.append(item.text)
                    upstream.cut.set()
    finally:
        await transport.aclose()
        if own_wire is not None:
            await own_wire.aclose()
    assert texts and texts[0] == "Hel"
    assert "cut before its final event" in str(cut.value)
    assert "cannot reach" not in str(cut.value)
