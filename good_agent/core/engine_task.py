"""The run engine in a task of its own, what it yields read through a channel.

`StreamedRun` (events) and `AgentRun` (steps)
share it: the run starts on entering ``async with``, the channel has no buffer (the
engine goes on as its items are read), leaving the block before the run ends
cancels it, and an error that ends the run is raised from the iteration (or on
leaving the block, if nothing was read).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import anyio

from good_agent.core.results import RunResult

if TYPE_CHECKING:  # anyio loads these on first use: a run makes its stream then
    from anyio.abc import TaskGroup
    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

ItemT = TypeVar("ItemT")

__all__ = ["EngineTask"]


class EngineTask(Generic[ItemT]):
    """Runs ``start(send)`` in a task on entering ``async with``; `_next` reads
    what it sends. ``outside`` is the error text for reading outside the block."""

    def __init__(
        self, start: Callable[[Callable[[ItemT], Awaitable[None]]], Awaitable[RunResult[Any]]]
    ) -> None:
        self._start = start
        self._outside = "use the run inside its 'async with' block"
        self._result: RunResult[Any] | None = None
        self._error: BaseException | None = None
        self._raised = False
        self._finished = False
        self._group: TaskGroup | None = None
        self._receive: MemoryObjectReceiveStream[ItemT] | None = None

    async def _enter(self) -> None:
        send, self._receive = anyio.create_memory_object_stream[ItemT](0)
        self._group = anyio.create_task_group()
        await self._group.__aenter__()
        self._group.start_soon(self._drive, send)

    async def _drive(self, send: MemoryObjectSendStream[ItemT]) -> None:
        async with send:
            try:
                self._result = await self._start(send.send)
            except anyio.get_cancelled_exc_class():
                raise
            except Exception as error:
                self._error = error
            finally:
                self._finished = True

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        assert self._group is not None and self._receive is not None
        if not self._finished:
            self._group.cancel_scope.cancel()
        try:
            # The block's own exception propagates as is, not inside an exception group.
            await self._group.__aexit__(None, None, None)
        finally:
            self._receive.close()
        if exc_type is None and self._error is not None and not self._raised:
            self._raised = True
            raise self._error
        return None

    async def _next(self) -> ItemT:
        """The next item; ``StopAsyncIteration`` at the end, or the run's error."""
        if self._receive is None:
            raise RuntimeError(self._outside)
        try:
            return await self._receive.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            if self._error is not None and not self._raised:
                self._raised = True
                raise self._error from None
            raise StopAsyncIteration from None
