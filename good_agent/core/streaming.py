"""A streamed run: the run engine in a task, its events read through a channel."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from types import TracebackType
from typing import Any, Generic, TypeVar

import anyio
import pydantic_core
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

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


class StreamedRun(Generic[OutputT]):
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
        self._engine = engine
        self._output = output
        self._text: list[str] = []
        self._args: list[str] = []
        self._final_index: int | None = None
        self._partial: Any = None
        self._result: RunResult[Any] | None = None
        self._error: BaseException | None = None
        self._raised = False
        self._finished = False
        self._group: TaskGroup | None = None
        self._send: MemoryObjectSendStream[RunEvent] | None = None
        self._receive: MemoryObjectReceiveStream[RunEvent] | None = None

    async def __aenter__(self) -> StreamedRun[OutputT]:
        self._send, self._receive = anyio.create_memory_object_stream[RunEvent](0)
        self._group = anyio.create_task_group()
        await self._group.__aenter__()
        self._group.start_soon(self._drive, self._send)
        return self

    async def _drive(self, send: MemoryObjectSendStream[RunEvent]) -> None:
        async def sink(event: RunEvent) -> None:
            if isinstance(event, RunEndEvent):
                # The run is complete even if nobody reads this last event.
                self._result = event.result
            await send.send(event)

        async with send:
            try:
                self._result = await self._engine(sink)
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

    def __aiter__(self) -> AsyncIterator[RunEvent]:
        return self

    async def __anext__(self) -> RunEvent:
        if self._receive is None:
            raise RuntimeError("use the streamed run inside 'async with agent.stream(...)'")
        try:
            event = await self._receive.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            if self._error is not None and not self._raised:
                self._raised = True
                raise self._error from None
            raise StopAsyncIteration from None
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
        """The validated output (the answer text for a run without an output type)."""
        return self.run_result.output

    @property
    def usage(self) -> RunUsage:
        """The usage totals of the run."""
        return self.run_result.usage
