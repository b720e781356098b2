"""A connection's writes of one step of the event loop leave as one
(`good_agent.server.common.batched_writes`): a response's head goes out with the body
sent in the same step, nothing waits for a later step, and nothing is lost or
reordered; a reply that is the only request in flight leaves the moment it is
complete.

The transport under a `BatchedWrites` is a real socket connection; what it is asked to
write is recorded on its way in, and the peer reads what arrived. The server tests run
a real uvicorn server on each of its two HTTP/1.1 parsers (httptools, h11)."""

from __future__ import annotations

import asyncio
import socket
import threading
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from good_agent.server.background import BackgroundServer
from good_agent.server.common.batched_writes import (
    HELD_LIMIT,
    BatchedHTTP,
    BatchedProtocol,
    BatchedWrites,
)


class Recorded:
    """A real transport whose writes are recorded on their way in."""

    def __init__(self, transport: asyncio.Transport) -> None:
        self.transport = transport
        self.writes: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))
        self.transport.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)


async def connection() -> tuple[BatchedWrites, Recorded, socket.socket]:
    """A `BatchedWrites` over one end of a connected socket pair (its writes recorded),
    and the other end to read from."""
    ours, theirs = socket.socketpair()
    theirs.setblocking(False)
    loop = asyncio.get_running_loop()
    transport, _ = await loop.connect_accepted_socket(asyncio.Protocol, ours)
    recorded = Recorded(transport)
    return BatchedWrites(recorded, loop), recorded, theirs  # type: ignore[arg-type]


async def read_all(sock: socket.socket, size: int) -> bytes:
    loop = asyncio.get_running_loop()
    data = b""
    while len(data) < size:
        chunk = await loop.sock_recv(sock, 1 << 16)
        if not chunk:
            break
        data += chunk
    return data


async def next_step() -> None:
    await asyncio.sleep(0)


def test_the_writes_of_one_step_leave_in_one_write_when_it_ends() -> None:
    async def main() -> None:
        batched, recorded, peer = await connection()
        batched.write(b"HTTP/1.1 200 OK\r\n\r\n")
        batched.write(memoryview(b"body"))
        batched.write(b"")
        assert recorded.writes == []  # held until the step ends
        assert batched.get_write_buffer_size() == len(b"HTTP/1.1 200 OK\r\n\r\nbody")
        await next_step()
        assert recorded.writes == [b"HTTP/1.1 200 OK\r\n\r\nbody"]
        batched.writelines([b"a", b"b"])
        await next_step()
        assert recorded.writes[1:] == [b"ab"]
        expected = b"HTTP/1.1 200 OK\r\n\r\nbodyab"
        assert await read_all(peer, len(expected)) == expected
        batched.close()
        peer.close()

    asyncio.run(main())


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.lists(st.binary(min_size=0, max_size=300), max_size=6),
        min_size=1,
        max_size=6,
    )
)
def test_what_is_written_arrives_whole_and_in_order(steps: list[list[bytes]]) -> None:
    """Any writes over any steps: one write a step that wrote anything, and the peer
    reads every byte in the order written."""

    async def main() -> None:
        batched, recorded, peer = await connection()
        for step in steps:
            for data in step:
                batched.write(data)
            await next_step()
        expected = b"".join(b"".join(step) for step in steps)
        assert recorded.writes == [b"".join(step) for step in steps if any(step)]
        assert await read_all(peer, len(expected)) == expected
        batched.close()
        peer.close()

    asyncio.run(main())


def test_a_large_write_leaves_at_once() -> None:
    async def main() -> None:
        batched, recorded, peer = await connection()
        batched.write(b"head")
        batched.write(b"x" * HELD_LIMIT)
        assert recorded.writes == [b"head" + b"x" * HELD_LIMIT]  # before the step ends
        assert batched.get_write_buffer_size() == recorded.transport.get_write_buffer_size()
        await next_step()
        assert len(recorded.writes) == 1  # nothing left to write when the step ended
        batched.close()
        peer.close()

    asyncio.run(main())


def test_closing_sends_what_is_held_first() -> None:
    async def main() -> None:
        batched, recorded, peer = await connection()
        batched.write(b"last words")
        batched.close()
        assert recorded.writes == [b"last words"]
        assert await read_all(peer, 100) == b"last words"  # then the end
        peer.close()

    asyncio.run(main())


def test_half_closing_and_a_new_protocol_send_what_is_held_first() -> None:
    async def main() -> None:
        batched, recorded, peer = await connection()
        batched.write(b"before upgrade")
        batched.set_protocol(asyncio.Protocol())
        assert recorded.writes == [b"before upgrade"]
        batched.write(b"before eof")
        assert batched.can_write_eof()
        batched.write_eof()
        assert recorded.writes[1:] == [b"before eof"]
        assert await read_all(peer, 100) == b"before upgradebefore eof"
        batched.close()
        peer.close()

    asyncio.run(main())


def test_aborting_or_losing_the_connection_drops_what_is_held() -> None:
    async def main() -> None:
        batched, recorded, peer = await connection()
        batched.write(b"never sent")
        batched.lost()
        await next_step()
        assert recorded.writes == []
        assert batched.get_write_buffer_size() == 0
        batched.write(b"not sent either")
        batched.abort()
        await next_step()
        assert recorded.writes == []
        assert await read_all(peer, 100) == b""
        peer.close()

    asyncio.run(main())


def test_a_closed_connection_is_not_written_to() -> None:
    async def main() -> None:
        batched, recorded, peer = await connection()
        batched.write(b"held")
        recorded.transport.close()  # (closed under it: the connection was lost)
        await next_step()
        assert recorded.writes == []
        assert batched.is_closing()
        peer.close()

    asyncio.run(main())


class RecordingProtocol(BatchedProtocol):
    """A batched protocol whose real transport's writes are recorded, a list a
    connection, in order (``writes``) and by the client's address (``peers``)."""

    writes: list[list[bytes]]
    peers: dict[tuple[str, int], list[bytes]]

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        recorded = Recorded(transport)  # type: ignore[arg-type]
        self.writes.append(recorded.writes)
        self.peers[tuple(transport.get_extra_info("peername"))] = recorded.writes
        super().connection_made(recorded)  # type: ignore[arg-type]


@pytest.fixture(params=["httptools", "h11"])
def recording(request: pytest.FixtureRequest) -> type[RecordingProtocol]:
    """uvicorn's protocol (each of its two HTTP/1.1 parsers) batched and recorded."""
    base = HttpToolsProtocol if request.param == "httptools" else H11Protocol
    name = f"Recording{base.__name__}"
    return type(name, (RecordingProtocol, base), {"writes": [], "peers": {}})


def served_app(go_on: asyncio.Event | None = None) -> Starlette:
    async def whole(request: Request) -> Response:
        return JSONResponse({"answer": 42})

    async def together(request: Request) -> Response:
        async def parts() -> Any:
            yield b"data: 1\n\n"
            yield b"data: 2\n\n"

        return StreamingResponse(parts(), media_type="text/event-stream")

    async def apart(request: Request) -> Response:
        async def parts() -> Any:
            yield b"data: 1\n\n"
            assert go_on is not None
            await go_on.wait()
            yield b"data: 2\n\n"

        return StreamingResponse(parts(), media_type="text/event-stream")

    return Starlette(
        routes=[Route("/whole", whole), Route("/together", together), Route("/apart", apart)]
    )


def test_uvicorn_sends_a_whole_reply_in_one_write(recording: type[RecordingProtocol]) -> None:
    with BackgroundServer(served_app(), http=recording) as server:
        reply = httpx.get(f"{server.url}/whole")
        assert reply.json() == {"answer": 42}
        writes = [write for connection in recording.writes for write in connection]
    assert len(writes) == 1
    assert writes[0].startswith(b"HTTP/1.1 200 OK\r\n")
    assert writes[0].endswith(b'{"answer":42}')


def test_a_stream_whose_parts_are_ready_leaves_in_one_write(
    recording: type[RecordingProtocol],
) -> None:
    with BackgroundServer(served_app(), http=recording) as server:
        reply = httpx.get(f"{server.url}/together")
        assert reply.text == "data: 1\n\ndata: 2\n\n"
        writes = [write for connection in recording.writes for write in connection]
    # Starlette's streaming response sends each part as it comes (each awaits the
    # generator): the head leaves with the first part, not alone.
    assert writes[0].startswith(b"HTTP/1.1 200 OK\r\n")
    assert b"data: 1" in writes[0]
    assert b"".join(writes).count(b"data: ") == 2


def test_nothing_waits_for_a_later_step(recording: type[RecordingProtocol]) -> None:
    """The first part reaches the client while the app still waits to send the second:
    what a step wrote is sent when the step ends, not held for the next write."""
    go_on = asyncio.Event()  # (waited for and set on the server's loop)
    with BackgroundServer(served_app(go_on), http=recording) as server:

        async def client() -> list[bytes]:
            received = []
            async with (
                httpx.AsyncClient() as http,
                http.stream("GET", f"{server.url}/apart") as reply,
            ):
                async for chunk in reply.aiter_bytes():
                    received.append(chunk)
                    if len(received) == 1:
                        server.loop.call_soon_threadsafe(go_on.set)  # type: ignore[union-attr]
            return received

        received = asyncio.run(asyncio.wait_for(client(), 10))
    assert received == [b"data: 1\n\n", b"data: 2\n\n"]
    writes = [write for connection in recording.writes for write in connection]
    assert writes[0].startswith(b"HTTP/1.1 200 OK\r\n") and b"data: 1" in writes[0]
    assert b"data: 2" not in writes[0]


def completion_app(
    peers: dict[tuple[str, int], list[bytes]],
    held: asyncio.Event,
    seen: dict[str, int],
    holding: threading.Event | None = None,
) -> Any:
    """``/hold`` stays in flight until ``held`` is set (``holding`` set once it is in
    flight); ``/reply`` sends a whole reply and notes how many writes its connection
    had made right after, and once its step has ended."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        if scope["path"] == "/hold":
            assert holding is not None
            holding.set()
            await held.wait()
        writes = peers[tuple(scope["client"])]
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"done"})
        if scope["path"] == "/reply":
            seen["at_completion"] = len(writes)
            await asyncio.sleep(0)
            await asyncio.sleep(0)
            seen["after_the_step"] = len(writes)

    return app


def test_a_lone_reply_leaves_when_it_is_complete(recording: type[RecordingProtocol]) -> None:
    """With no other request in flight a reply is written as soon as it is complete,
    not when the step that completed it ends."""
    seen: dict[str, int] = {}
    app = completion_app(recording.peers, asyncio.Event(), seen)
    with BackgroundServer(app, http=recording) as server:
        assert httpx.get(f"{server.url}/reply").text == "done"
    assert seen == {"at_completion": 1, "after_the_step": 1}


def test_with_other_requests_in_flight_a_reply_leaves_when_the_step_ends(
    recording: type[RecordingProtocol],
) -> None:
    seen: dict[str, int] = {}
    held, holding = asyncio.Event(), threading.Event()
    app = completion_app(recording.peers, held, seen, holding)
    with BackgroundServer(app, http=recording) as server:

        async def client() -> list[str]:
            async with httpx.AsyncClient() as http:
                hold = asyncio.create_task(http.get(f"{server.url}/hold"))
                assert await asyncio.to_thread(holding.wait, 5)  # (/hold is in flight)
                replied = await http.get(f"{server.url}/reply")
                server.loop.call_soon_threadsafe(held.set)  # type: ignore[union-attr]
                return [replied.text, (await hold).text]

        assert asyncio.run(asyncio.wait_for(client(), 10)) == ["done", "done"]
    assert seen == {"at_completion": 0, "after_the_step": 1}


@pytest.mark.parametrize("path", ["/whole", "/together"])
def test_the_background_server_serves_with_batched_writes(path: str) -> None:
    with BackgroundServer(served_app()) as server:
        assert server.server.config.http is BatchedHTTP
        assert httpx.get(f"{server.url}{path}").status_code == 200
