"""A streamed reply's lines come in batches, one per read: the events of one upstream
write reach the transport in one step of the reader, not one step per line.

The upstream is a socket server on loopback that writes a whole event stream at
once; both HTTP clients give the same lines, and the same events.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import httpx2
import pytest

from good_agent.http.http1_wire import Http1Wire
from good_agent.http.wire import AiohttpWire, HttpxWire, Wire
from good_agent.providers.openai.http_transport import OpenAIHttpTransport

pytestmark = pytest.mark.anyio

EVENTS = [{"n": number, "text": "caf\u00e9 \u2603"} for number in range(12)]
# LF and CRLF line ends both, as servers send either; then the terminator.
BODY = (
    "".join(
        f"data: {json.dumps(event)}\r\n\r\n" if event["n"] % 2 else f"data: {json.dumps(event)}\n\n"
        for event in EVENTS
    )
    + "data: [DONE]\n\n"
).encode()


@pytest.fixture
async def upstream() -> AsyncIterator[str]:
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        head = (
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
            f"content-length: {len(BODY)}\r\nconnection: close\r\n\r\n"
        ).encode()
        writer.write(head + BODY)  # one write: one read on the client's side
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        yield f"http://127.0.0.1:{port}/v1"


def make_wire(kind: str) -> Wire:
    if kind == "aiohttp":
        return AiohttpWire(connect_timeout=2.0, read_timeout=5.0)
    if kind == "http1":
        return Http1Wire(connect_timeout=2.0, read_timeout=5.0)
    return HttpxWire(httpx2.AsyncClient(), httpx2.Timeout(5.0, connect=2.0))


EXPECTED_LINES = BODY.decode().replace("\r\n", "\n").split("\n")[:-1]


@pytest.mark.parametrize("kind", ["aiohttp", "httpx", "http1"])
async def test_a_wire_gives_the_lines_of_one_read_in_one_batch(kind: str, upstream: str) -> None:
    wire = make_wire(kind)
    try:
        async with wire.stream(f"{upstream}/chat/completions", b"{}", {}, provider="t") as reply:
            batches = [batch async for batch in reply.line_batches()]
    finally:
        await wire.aclose()
    assert len(batches) == 1
    assert batches[0] == EXPECTED_LINES


@pytest.mark.parametrize("kind", ["aiohttp", "httpx", "http1"])
async def test_every_client_gives_the_same_lines(kind: str, upstream: str) -> None:
    wire = make_wire(kind)
    try:
        async with wire.stream(f"{upstream}/chat/completions", b"{}", {}, provider="t") as reply:
            lines = [line async for batch in reply.line_batches() for line in batch]
    finally:
        await wire.aclose()
    assert lines == EXPECTED_LINES
    assert [line for line in lines if line] == [line for line in EXPECTED_LINES if line]


@pytest.mark.parametrize("kind", ["aiohttp", "httpx", "http1"])
async def test_the_transport_gives_every_event(kind: str, upstream: str) -> None:
    wire = make_wire(kind)
    transport = OpenAIHttpTransport("m", base_url=upstream, api_key="sk-batches", wire=wire)
    try:
        events = [event async for event in transport.stream({"model": "m", "messages": []})]
    finally:
        await wire.aclose()
    assert events[:-1] == EVENTS
    assert len(events) == len(EVENTS) + 1  # the terminator, passed on as DONE_EVENT
