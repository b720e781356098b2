"""A run driven step by step: the run engine in a task, paused at each step."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import anyio

from good_agent.core.approvals import unanswered_calls
from good_agent.core.engine_task import EngineTask
from good_agent.core.results import RunResult
from good_agent.core.steps import RunStep
from good_agent.types.errors import AgentRunError
from good_agent.types.messages import Message

if TYPE_CHECKING:
    from good_agent.core.conversation import Conversation

OutputT = TypeVar("OutputT")

__all__ = ["AgentRun"]

StepEngine = Callable[[Callable[[RunStep], Awaitable[None]]], Awaitable[RunResult[Any]]]
"""Starts the run engine with a receiver for its steps."""


class AgentRun(EngineTask[RunStep], Generic[OutputT]):
    """The handle of [`good_agent.Agent.iter`][good_agent.Agent.iter]: iterate it for the
    run's steps.

    The run starts on entering ``async with`` and waits at each step until the next
    one is asked for, so the program can look at it and change what comes next:
    the calls of a [`ToolCallsStep`][good_agent.ToolCallsStep], or a message added with
    ``add_message`` before the next request. Leaving the block before the
    [`EndStep`][good_agent.EndStep] stops the run: every tool call in the history gets
    a result (an error saying the run stopped, for calls that had not run), and
    ``result`` stays ``None``. An error that ends the run is raised from the
    iteration (or on leaving the block, if the steps were not read).
    """

    def __init__(self, conversation: Conversation, engine: StepEngine) -> None:
        self._resume: anyio.Event | None = None

        async def start(send: Callable[[RunStep], Awaitable[None]]) -> RunResult[Any]:
            async def on_step(step: RunStep) -> None:
                self._resume = resume = anyio.Event()
                await send(step)
                await resume.wait()

            return await engine(on_step)

        super().__init__(start)
        self._outside = "use the run inside 'async with agent.iter(...)'"
        self._conversation = conversation

    async def __aenter__(self) -> AgentRun[OutputT]:
        await self._enter()
        return self

    def __aiter__(self) -> AsyncIterator[RunStep]:
        return self

    async def __anext__(self) -> RunStep:
        resume, self._resume = self._resume, None
        if resume is not None:
            resume.set()  # the step before is done with: the run goes on
        return await self._next()

    async def add_message(self, message: Message) -> None:
        """Append ``message`` to the history now, before the run's next request.

        Call it while the run waits at a step (a [`ToolResultsStep`][good_agent.ToolResultsStep],
        say); it is refused while a tool call in the history has no result yet (at a
        [`ToolCallsStep`][good_agent.ToolCallsStep]), since no provider accepts a message
        between a call and its result.
        """
        if self._resume is None or self._finished:
            raise AgentRunError(
                "add_message needs the run waiting at a step: call it inside "
                "'async for step in run'",
                self._conversation.messages,
            )
        pending = unanswered_calls(self._conversation.messages)
        if pending:
            ids = ", ".join(call.id for call in pending)
            raise AgentRunError(
                f"cannot add a message while tool calls wait for their results ({ids}): "
                "add it at the ToolResultsStep",
                self._conversation.messages,
            )
        await self._conversation.append(message)

    @property
    def result(self) -> RunResult[OutputT] | None:
        """The run's [`RunResult`][good_agent.RunResult] once it ended (``None`` before, or
        when the run was stopped early)."""
        return self._result
