"""A streamed run: the run engine in a task, its events read through a channel."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Generic, TypeVar

import pydantic_core

from good_agent.core.engine_task import EngineTask
from good_agent.core.output import OUTPUT_TOOL_NAME, WRAPPER_KEY, OutputSpec
from good_agent.core.results import RunResult
from good_agent.core.run_events import (
    RunEndEvent,
    RunEvent,
    TextDeltaEvent,
    ToolCallArgsEvent,
    ToolCallStartEvent,
    TurnEndEvent,
)
from good_agent.types.messages import AssistantMessage
from good_agent.types.usage import RunUsage

OutputT = TypeVar("OutputT")

Engine = Callable[[Callable[[RunEvent], Awaitable[None]]], Awaitable[RunResult[Any]]]
"""Starts the run engine with a sink for its events."""


class StreamedRun(EngineTask[RunEvent], Generic[OutputT]):
    """The handle of [`good_agent.Agent.stream`][good_agent.Agent.stream]: iterate it
    for the run's events.

    The run starts on entering ``async with`` and advances as events are read (the
    channel has no buffer, so a slow reader slows the model stream down rather than
    piling events up). Leaving the block before the run ends cancels it: the
    upstream request is closed, every tool call in the history gets a result, and
    a reply cut short stays as an ``incomplete`` assistant turn holding the text
    that was read.
    An error that ends the run is raised from the iteration (or on leaving the
    block, if the events were not read).
    """

    def __init__(self, engine: Engine, output: OutputSpec | None = None) -> None:
        async def start(send: Callable[[RunEvent], Awaitable[None]]) -> RunResult[Any]:
            async def sink(event: RunEvent) -> None:
                if isinstance(event, RunEndEvent):
                    # The run is complete even if nobody reads this last event.
                    self._result = event.result
                await send(event)

            return await engine(sink)

        super().__init__(start)
        self._outside = "use the streamed run inside 'async with agent.stream(...)'"
        self._output = output
        self._text: list[str] = []
        self._args: list[str] = []
        self._final_index: int | None = None
        self._partial: Any = None

    async def __aenter__(self) -> StreamedRun[OutputT]:
        await self._enter()
        return self

    def __aiter__(self) -> AsyncIterator[RunEvent]:
        return self

    async def __anext__(self) -> RunEvent:
        event = await self._next()
        self._track(event)
        return event

    def _track(self, event: RunEvent) -> None:
        if isinstance(event, TextDeltaEvent):
            self._text.append(event.text)
        elif isinstance(event, ToolCallStartEvent) and event.name == OUTPUT_TOOL_NAME:
            self._final_index, self._args = event.index, []
        elif isinstance(event, ToolCallArgsEvent) and event.index == self._final_index:
            self._args.append(event.arguments)
        elif isinstance(event, TurnEndEvent):
            self._text, self._final_index, self._partial = [], None, None

    def partial_output(self) -> Any:
        """The output of the current model turn as read so far, typed.

        The answer text for a run without an output type; otherwise a value of the
        output type validated from the partial answer (pydantic's partial validation:
        an unfinished string is kept as far as it has arrived, an unfinished last
        item left out): a ``Report`` that fills in as it streams. When the part
        received so far does not validate yet (a required field still missing), the
        last value that did is returned (``None`` before the first). Each call
        parses everything received so far, so call it when needed, not on every
        event. [`output`][good_agent.StreamedRun.output] is the final, fully validated output.
        """
        value = self.partial_json()
        if self._output is None:
            return value
        if value is not None:
            typed = self._output.partial(value)
            if typed is not None:
                self._partial = typed
        return self._partial

    def partial_json(self) -> Any:
        """The output of the current model turn as read so far, untyped.

        The answer text for a run without an output type; otherwise the JSON value
        parsed from the partial answer (the output tool's arguments, or the JSON text
        of a prompted or ``response_format`` answer), ``None`` before it starts. It is
        not validated (required fields may be missing yet):
        [`partial_output`][good_agent.StreamedRun.partial_output]
        is.
        """
        text = "".join(self._text)
        if self._output is None:
            return text
        if self._output.allows_text and (
            self._final_index is None
            if self._output.mode == "tool"
            else not text.lstrip().startswith(("{", "[", "`"))
        ):
            return text  # a text answer of a union with str
        if self._output.mode == "tool":
            raw = "".join(self._args)
        else:
            starts = [i for i in (text.find("{"), text.find("[")) if i != -1]
            raw = text[min(starts) :] if starts else ""
        if not raw:
            return None
        try:
            value = pydantic_core.from_json(raw, allow_partial="trailing-strings")
        except ValueError:
            return None
        if self._output.wrapped and isinstance(value, dict) and set(value) <= {WRAPPER_KEY}:
            return value.get(WRAPPER_KEY)
        return value

    async def text_deltas(self) -> AsyncIterator[str]:
        """Only the answer text, piece by piece (the other events are read and dropped)."""
        async for event in self:
            if isinstance(event, TextDeltaEvent):
                yield event.text

    async def wait(self) -> RunResult[OutputT]:
        """Read the remaining events and return the run's [`RunResult`][good_agent.RunResult]."""
        async for _ in self:
            pass
        return self.run_result

    @property
    def run_result(self) -> RunResult[OutputT]:
        """The [`RunResult`][good_agent.RunResult] (what [`run`][good_agent.Agent.run] returns)."""
        if self._result is None:
            raise RuntimeError("the run has not finished: read its events first")
        return self._result

    @property
    def result(self) -> AssistantMessage:
        """The final assistant message: the same object [`call`][good_agent.Agent.call] returns."""
        return self.run_result.message

    @property
    def output(self) -> OutputT:
        """The validated output (the answer text for a run without an output type);
        [`RunDeferredError`][good_agent.RunDeferredError] for a run that waits for
        approvals (see [`RunResult.output`][good_agent.RunResult.output])."""
        return self.run_result.output

    @property
    def usage(self) -> RunUsage:
        """The usage totals of the run."""
        return self.run_result.usage
