"""A connection's writes of one step of the event loop, sent as one.

uvicorn writes a response's head to the socket when the application sends
``http.response.start``, and each part of the body when it is sent. A reply whose
body follows at once (a whole JSON reply, a stream whose first events are ready)
therefore costs two writes, two system calls and two TCP segments that the client
reads apart, where one would carry both. `aiohttp`'s server, the bridge benchmark's
floor, sends the head with the first part of the body.

`BatchedWrites` wraps a connection's transport so that the writes made in one step
of the event loop are joined and sent when the step ends (`asyncio`'s ``call_soon``,
which runs after the callbacks already due), so a head and a body sent one after the
other leave in one write. Nothing waits on a later event: what is held goes out
before the loop waits for anything, at once when `HELD_LIMIT` bytes are held, and
before the connection is closed or half-closed. A connection that is lost drops what
it held, as the transport drops what it could not send.

`BatchedHTTP` is uvicorn's own HTTP/1.1 protocol (``httptools``, or ``h11`` where
``httptools`` is missing, as uvicorn's ``auto`` picks it) over a `BatchedWrites`.
When a response is sent whole and it is the only request in flight, it is written
at once, when uvicorn notes it complete, not when the step ends: a lone client gets
its reply as soon as it did before. With other requests in flight, the replies of one
step leave together when it ends: under load (``wrk`` at concurrency 32) that cost
the bridge 4% to 10% less CPU a request than writing each reply at its completion
(fewer wake-ups of the clients and of the server).

The serving commands and `good_agent.server.background.BackgroundServer` run
uvicorn with it (``uvicorn.run(app, http=BatchedHTTP)``); an application served by
another program keeps that program's choice.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.auto import AutoHTTPProtocol

HELD_LIMIT = 64 * 1024
"""The bytes a connection holds before it writes them without waiting for the step
to end."""


class BatchedWrites(asyncio.Transport):
    """A transport whose writes made in one step of the event loop are sent in one
    write when the step ends (see the module docstring).

    Args:
        transport: The connection's transport.
        loop: The event loop the connection runs on.
    """

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__()
        self.transport = transport
        self._loop = loop
        self._held: list[bytes] = []
        self._size = 0
        self._due: asyncio.Handle | None = None

    def write(self, data: bytes | bytearray | memoryview) -> None:
        """Hold ``data``, to be sent with the rest of this step's writes."""
        if not data:
            return
        self._held.append(bytes(data))
        self._size += len(data)
        if self._size >= HELD_LIMIT:
            self.flush()
        elif self._due is None:
            self._due = self._loop.call_soon(self.flush)

    def writelines(self, list_of_data: Any) -> None:
        """Hold each of ``list_of_data``."""
        for data in list_of_data:
            self.write(data)

    def flush(self) -> None:
        """Send what is held, in one write (nothing when the connection is closing:
        it was lost, and could not take it)."""
        held = self._take()
        if held and not self.transport.is_closing():
            self.transport.write(held[0] if len(held) == 1 else b"".join(held))

    def close(self) -> None:
        """Send what is held, then close the connection."""
        self.flush()
        self.transport.close()

    def abort(self) -> None:
        """Drop what is held and close the connection at once."""
        self._take()
        self.transport.abort()

    def write_eof(self) -> None:
        """Send what is held, then close the write end."""
        self.flush()
        self.transport.write_eof()

    def can_write_eof(self) -> bool:
        """Whether the connection can close its write end alone."""
        return self.transport.can_write_eof()

    def is_closing(self) -> bool:
        """Whether the connection is closing or closed."""
        return self.transport.is_closing()

    def get_write_buffer_size(self) -> int:
        """The bytes held here and in the transport's own buffer."""
        return self._size + self.transport.get_write_buffer_size()

    def get_write_buffer_limits(self) -> tuple[int, int]:
        """The transport's write buffer limits."""
        return self.transport.get_write_buffer_limits()

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        """Set the transport's write buffer limits."""
        self.transport.set_write_buffer_limits(high, low)

    def pause_reading(self) -> None:
        """Stop reading from the connection."""
        self.transport.pause_reading()

    def resume_reading(self) -> None:
        """Read from the connection again."""
        self.transport.resume_reading()

    def is_reading(self) -> bool:
        """Whether the connection is being read."""
        return self.transport.is_reading()

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        """Hand the connection to ``protocol`` (a WebSocket upgrade), what is held sent
        first."""
        self.flush()
        self.transport.set_protocol(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        """The connection's protocol."""
        return self.transport.get_protocol()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        """The transport's extra information (``socket``, ``peername``, ...)."""
        return self.transport.get_extra_info(name, default)

    def lost(self) -> None:
        """The connection was lost: what is held is dropped."""
        self._take()

    def _take(self) -> list[bytes]:
        """What is held, no longer held (and no flush due)."""
        if self._due is not None:
            self._due.cancel()
            self._due = None
        held, self._held, self._size = self._held, [], 0
        return held


class BatchedProtocol:
    """What makes one of uvicorn's HTTP/1.1 protocols write through a `BatchedWrites`
    (see the module docstring); mixed in before the protocol's class, as
    `BatchedHTTP` does with uvicorn's ``auto`` choice."""

    tasks: set[Any]
    _batched: BatchedWrites

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Serve the connection through a `BatchedWrites` of ``transport``."""
        batched = BatchedWrites(transport, asyncio.get_running_loop())  # type: ignore[arg-type]
        self._batched = batched
        super().connection_made(batched)  # type: ignore[misc]

    def on_response_complete(self) -> None:
        """A response was sent whole: when it is the only request in flight, out it
        goes now, not when the step ends (see the module docstring)."""
        if len(self.tasks) <= 1:
            self._batched.flush()
        super().on_response_complete()  # type: ignore[misc]

    def connection_lost(self, exc: Exception | None) -> None:
        """Drop what the connection held, then end it as uvicorn does."""
        self._batched.lost()
        super().connection_lost(exc)  # type: ignore[misc]


class BatchedHTTP(BatchedProtocol, AutoHTTPProtocol):  # type: ignore[misc,valid-type]
    """uvicorn's HTTP/1.1 protocol (its ``auto`` choice: ``httptools``, or ``h11``)
    writing through a `BatchedWrites`: a response's head leaves with the body sent in
    the same step. Give it to uvicorn as ``http=BatchedHTTP``."""
