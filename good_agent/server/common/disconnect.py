"""Noticing a client that leaves: one waiting task per request, no task group.

`DisconnectWatch` is started once the request body has been read. It waits
on the request's ASGI ``receive`` channel in one small task, which ends by itself:
at ``http.disconnect``, which an ASGI server sends when the client goes away *or*
once the response has been sent (the ASGI spec says so; uvicorn and httpx's ASGI
transport do). Work run through `DisconnectWatch.run` is cancelled when the
client leaves first. Nothing is cancelled in the usual case, so a request leaves
no ``CancelledError``, traceback or task group behind (they are reference cycles,
which the garbage collector would have to find).

The bridge runs on uvicorn, so on asyncio; the task is an ``asyncio`` task.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable
from typing import TypeVar

from starlette.types import Receive

T = TypeVar("T")


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

    __slots__ = ("_timeout", "gone")

    def __init__(self, receive: Receive) -> None:
        self.gone = False
        """Whether ``http.disconnect`` has arrived (the client left, or the reply
        was sent)."""
        self._timeout: asyncio.Timeout | None = None
        task = asyncio.get_running_loop().create_task(_until_disconnect(receive))
        task.add_done_callback(self._ended)

    def _ended(self, task: asyncio.Future[None]) -> None:
        if task.cancelled() or task.exception() is not None:
            return
        self.left()

    def left(self) -> None:
        """The client is gone: cancel the work running through `run`."""
        self.gone = True
        timeout = self._timeout
        if timeout is not None and not timeout.expired():
            timeout.reschedule(-math.inf)  # cancelled at its next wait

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
        without it): one `asyncio.Timeout` serves both (the bridge runs on asyncio; a
        timeout is a fraction of an anyio cancel scope's cost)."""
        timeout = asyncio.timeout(within)
        try:
            async with timeout:
                self._timeout = timeout
                if self.gone:
                    timeout.reschedule(-math.inf)
                try:
                    return await work()
                finally:
                    self._timeout = None
        except TimeoutError:
            if not timeout.expired():
                raise  # the work's own
        if self.gone:
            raise ClientGone
        raise expired() if expired is not None else TimeoutError
