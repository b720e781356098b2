"""Noticing a client that leaves: watched only while work outlasts `WATCH_AFTER`.

Work run through `DisconnectWatch.run` (the upstream call, the relay of a stream) is
cancelled, and `ClientGone` raised, when the request's client goes away. The ASGI
server says so on the request's ``receive`` channel (``http.disconnect``, which it
also sends once the response has been sent: the ASGI spec says so; uvicorn and
httpx's ASGI transport do), so something must be waiting there. A small task does
that, started only when a run has gone on for `WATCH_AFTER` seconds (one timer a run
until then): most requests are answered sooner, and a task, its ``receive`` and its
end cost about as much as the rest of the plumbing of a request together. A client
that leaves is then noticed at most `WATCH_AFTER` after the run began, and at once
from then on; a write to a client gone (``OSError`` from an ASGI 2.4 server) is
reported with `DisconnectWatch.left` by the writer.

The cancellation is the task's own (``Task.cancel``, counted back with
``Task.uncancel``, as `asyncio.timeout` counts its own): nothing is cancelled in the
usual case, so a request leaves no ``CancelledError``, traceback or task group behind
(they are reference cycles, which the garbage collector would have to find). A run
with a time limit (``within``) also has one `asyncio.Timeout`.

The bridge runs on uvicorn, so on asyncio; the task is an ``asyncio`` task.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from starlette.types import Receive

T = TypeVar("T")

WATCH_AFTER = 0.05
"""Seconds a run goes on before the client is watched (then for the rest of the
request)."""


class ClientGone(Exception):
    """The client disconnected before the reply was ready."""


async def _until_disconnect(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


class DisconnectWatch:
    """Watches one request for its client leaving (see the module docstring).

    Args:
        receive: The request's ASGI ``receive``, its body already read.
    """

    __slots__ = ("_asked", "_receive", "_task", "_watched", "gone")

    def __init__(self, receive: Receive) -> None:
        self.gone = False
        """Whether the client is known to have left (``http.disconnect`` arrived while
        watched, which it also does once the reply was sent, or a write failed)."""
        self._receive = receive
        self._watched: asyncio.Task[None] | None = None
        self._task: asyncio.Task[object] | None = None  # the task in `run`
        self._asked = False  # whether its run's cancellation was asked for

    @property
    def watching(self) -> bool:
        """Whether a task waits on ``receive`` for the client leaving (or did)."""
        return self._watched is not None

    def watch(self) -> None:
        """Start waiting on ``receive`` now (once; `run` does it after `WATCH_AFTER`)."""
        if self._watched is None:
            task = asyncio.get_running_loop().create_task(_until_disconnect(self._receive))
            task.add_done_callback(self._ended)
            self._watched = task

    def _ended(self, task: asyncio.Future[None]) -> None:
        if task.cancelled() or task.exception() is not None:
            return
        self.left()

    def left(self) -> None:
        """The client is gone: cancel the work running through `run` (at its next
        wait: the cancellation is a callback of the loop, so it never lands after the
        run has ended)."""
        self.gone = True
        if self._task is not None:
            asyncio.get_running_loop().call_soon(self._cancel)

    def _cancel(self) -> None:
        task = self._task
        if task is not None and not self._asked:
            self._asked = True
            task.cancel()

    async def run(
        self,
        work: Callable[[], Awaitable[T]],
        *,
        within: float | None = None,
        expired: Callable[[], Exception] | None = None,
    ) -> T:
        """``work()``'s result; cancelled, and `ClientGone` raised, if the client
        leaves first (or has left: then ``work`` is cancelled at its first wait, so
        that its own ``finally`` blocks still run). With ``within``, ``work`` is also
        cancelled after that many seconds, and ``expired()`` raised (``TimeoutError``
        without it)."""
        task = asyncio.current_task()
        if task is None:  # (not in a task: nothing could cancel it)
            raise RuntimeError("DisconnectWatch.run runs in an asyncio task")
        loop = asyncio.get_running_loop()
        self._task, self._asked = task, False
        cancelling = task.cancelling()
        timer = loop.call_later(WATCH_AFTER, self.watch) if self._watched is None else None
        if self.gone:
            loop.call_soon(self._cancel)
        limit = None if within is None else asyncio.timeout(within)
        try:
            if limit is None:
                return await work()
            async with limit:
                return await work()
        except asyncio.CancelledError:
            if self._asked:
                self._asked = False
                if task.uncancel() <= cancelling:
                    raise ClientGone from None
            raise
        except TimeoutError:
            if limit is None or not limit.expired():
                raise  # the work's own
            if self.gone:
                raise ClientGone from None
            raise (expired() if expired is not None else TimeoutError()) from None
        finally:
            self._task = None
            if self._asked:  # asked for and taken back by the work: counted back here
                task.uncancel()
            if timer is not None:
                timer.cancel()
