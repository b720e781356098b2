"""A run driven step by step: the run engine in a task, paused at each step."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from types import TracebackType
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import anyio
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from good_agent.core.approvals import unanswered_calls
from good_agent.core.results import RunResult
from good_agent.core.steps import RunStep
from good_agent.types.errors import AgentRunError
from good_agent.types.messages import Message

if TYPE_CHECKING:
    from good_agent.core.agent import Agent

OutputT = TypeVar("OutputT")

__all__ = ["AgentRun"]

StepEngine = Callable[[Callable[[RunStep], Awaitable[None]]], Awaitable[RunResult[Any]]]
"""Starts the run engine with a receiver for its steps."""


class AgentRun(Generic[OutputT]):
    """The handle of :meth:`good_agent.Agent.iter`: iterate it for the run's steps.

    The run starts on entering ``async with`` and waits at each step until the next
    one is asked for, so the program can look at it and change what comes next:
    the calls of a :class:`~good_agent.ToolCallsStep`, or a message added with
    :meth:`add_message` before the next request. Leaving the block before the
    :class:`~good_agent.EndStep` stops the run: every tool call in the history gets
    a result (an error saying the run stopped, for calls that had not run), and
    :attr:`result` stays ``None``. An error that ends the run is raised from the
    iteration (or on leaving the block, if the steps were not read).
    """

    def __init__(self, agent: Agent, engine: StepEngine) -> None:
        self._agent = agent
        self._engine = engine
        self._result: RunResult[Any] | None = None
        self._error: BaseException | None = None
        self._raised = False
        self._finished = False
        self._resume: anyio.Event | None = None
        self._group: TaskGroup | None = None
        self._receive: MemoryObjectReceiveStream[RunStep] | None = None

    async def __aenter__(self) -> AgentRun[OutputT]:
        send, self._receive = anyio.create_memory_object_stream[RunStep](0)
        self._group = anyio.create_task_group()
        await self._group.__aenter__()
        self._group.start_soon(self._drive, send)
        return self

    async def _drive(self, send: MemoryObjectSendStream[RunStep]) -> None:
        async def on_step(step: RunStep) -> None:
            self._resume = resume = anyio.Event()
            await send.send(step)
            await resume.wait()

        async with send:
            try:
                self._result = await self._engine(on_step)
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
            await self._group.__aexit__(None, None, None)
        finally:
            self._receive.close()
        if exc_type is None and self._error is not None and not self._raised:
            self._raised = True
            raise self._error
        return None

    def __aiter__(self) -> AsyncIterator[RunStep]:
        return self

    async def __anext__(self) -> RunStep:
        if self._receive is None:
            raise RuntimeError("use the run inside 'async with agent.iter(...)'")
        resume, self._resume = self._resume, None
        if resume is not None:
            resume.set()  # the step before is done with: the run goes on
        try:
            return await self._receive.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            if self._error is not None and not self._raised:
                self._raised = True
                raise self._error from None
            raise StopAsyncIteration from None

    async def add_message(self, message: Message) -> None:
        """Append ``message`` to the history now, before the run's next request.

        Call it while the run waits at a step (a :class:`~good_agent.ToolResultsStep`,
        say); it is refused while a tool call in the history has no result yet (at a
        :class:`~good_agent.ToolCallsStep`), since no provider accepts a message
        between a call and its result.
        """
        if self._resume is None or self._finished:
            raise AgentRunError(
                "add_message needs the run waiting at a step: call it inside "
                "'async for step in run'",
                self._agent.messages,
            )
        pending = unanswered_calls(self._agent.messages)
        if pending:
            ids = ", ".join(call.id for call in pending)
            raise AgentRunError(
                f"cannot add a message while tool calls wait for their results ({ids}): "
                "add it at the ToolResultsStep",
                self._agent.messages,
            )
        await self._agent.append(message)

    @property
    def result(self) -> RunResult[OutputT] | None:
        """The run's :class:`~good_agent.RunResult` once it ended (``None`` before, or
        when the run was stopped early)."""
        return self._result
