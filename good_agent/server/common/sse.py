"""The server-sent events response both servers stream with, in as few writes as its
source allows.

Chunks that are ready one after another, without waiting (because they came from
one upstream read), go to the client in one ``http.response.body`` message, so in
one socket write; the pending chunks are sent as soon as the next one would have to
wait. `next_or_flush` is the one piece that knows this: it steps the awaitable
of the next chunk, and when that awaitable is about to suspend (nothing more is
buffered upstream) it first runs the flush, then hands the wait to the event loop
as ``await`` would. A chunk never waits for a later one.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Generator, Mapping
from typing import Any, TypeVar

from starlette.types import Receive, Scope, Send

from good_agent.server.common.closing import close_shielded
from good_agent.server.common.disconnect import ClientGone, DisconnectWatch

T = TypeVar("T")

SSE_HEADERS = {"cache-control": "no-cache", "x-accel-buffering": "no"}
"""The headers of a streamed (server-sent events) reply."""


class next_or_flush(Awaitable[T]):
    """Await ``step`` (the awaitable of the next item); if it has to wait, await
    ``flush()`` before the wait begins.

    Args:
        step: For instance ``anext(chunks)``.
        flush: Sends what is pending (called at most once).
    """

    __slots__ = ("flush", "step")

    def __init__(self, step: Awaitable[T], flush: Callable[[], Awaitable[None]]) -> None:
        self.step = step
        self.flush = flush

    def __await__(self) -> Generator[Any, Any, T]:
        steps = self.step.__await__()
        try:
            signal = steps.send(None)
        except StopIteration as ready:
            result: T = ready.value
            return result
        try:
            try:
                yield from self.flush().__await__()
            except GeneratorExit:
                steps.close()
                raise
            except BaseException as exc:
                # Cancelled (or failed) while flushing: the step gets the exception,
                # as if it had come while it waited.
                signal = _throw(steps, exc)
            return (yield from _resume(steps, signal))
        except _Done as done:
            finished: T = done.value
            return finished


class _Done(Exception):
    """The step finished (with ``value``) while an exception was thrown into it."""

    def __init__(self, value: Any) -> None:
        self.value = value


def _throw(steps: Generator[Any, Any, Any], exc: BaseException) -> Any:
    try:
        return steps.throw(exc)
    except StopIteration as stop:
        raise _Done(stop.value) from None


def _resume(steps: Generator[Any, Any, T], signal: Any) -> Generator[Any, Any, T]:
    """``yield from steps`` for a generator already started (it yielded ``signal``)."""
    while True:
        try:
            value = yield signal
        except GeneratorExit:
            steps.close()
            raise
        except BaseException as exc:
            signal = _throw(steps, exc)
        else:
            try:
                signal = steps.send(value)
            except StopIteration as stop:
                result: T = stop.value
                return result


class EventStream:
    """A streamed reply (server-sent events) as an ASGI response.

    The chunks ready together go out in one ``http.response.body`` message
    (`next_or_flush`), the last of them with the end of the body. A client
    that leaves cancels the stream (through ``watch``, or when a write fails with
    ``OSError``, as an ASGI 2.4 server reports a client gone); the chunks' generator
    then closes its upstream and logs in its own ``finally``.

    Args:
        chunks: The encoded events.
        watch: The request's disconnect watch.
        headers: Response headers besides ``content-type``.
    """

    __slots__ = ("chunks", "raw_headers", "watch")

    def __init__(
        self, chunks: AsyncIterator[bytes], watch: DisconnectWatch, headers: Mapping[str, str]
    ) -> None:
        self.chunks = chunks
        self.watch = watch
        self.raw_headers = [
            *((key.encode("latin-1"), value.encode("latin-1")) for key, value in headers.items()),
            (b"content-type", b"text/event-stream; charset=utf-8"),
        ]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Send the response."""
        await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
        chunks = self.chunks
        pending: list[bytes] = []

        async def flush() -> None:
            if pending:
                body = b"".join(pending)
                pending.clear()
                try:
                    await send({"type": "http.response.body", "body": body, "more_body": True})
                except OSError:  # the client left (an ASGI 2.4 server says so here)
                    self.watch.left()

        async def relay() -> None:
            while True:
                try:
                    chunk = await next_or_flush(anext(chunks), flush)
                except StopAsyncIteration:
                    return
                pending.append(chunk)

        try:
            await self.watch.run(relay)
        except ClientGone:
            return
        finally:
            await close_shielded(chunks)
        await send({"type": "http.response.body", "body": b"".join(pending), "more_body": False})
