"""The events a streamed run yields, in order (see `good_agent.Agent.stream`).

A model turn yields its text, reasoning and tool-call deltas as they arrive, then
`TurnEndEvent`; each tool call of the turn then yields
`ToolExecuteEvent` (after the adapter chain) and `ToolResultEvent`;
the run ends with `RunEndEvent`.

The deltas are the model stream's own objects (one family, from the vendor's stream
decoder to the reader of the run): ``TextDeltaEvent`` *is*
`TextDelta`, and so on; an argument
fragment is a ``ToolCallArgs`` that also carries its call's id
(`ToolCallArgsEvent`, made by the run, so the decoders build nothing more).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from good_agent.core.results import RunResult
from good_agent.providers.streaming.deltas import (
    ReasoningDelta,
    TextDelta,
    ToolCallArgs,
    ToolCallStart,
)
from good_agent.types.messages import AssistantMessage, ToolCall, ToolMessage
from good_agent.types.usage import Usage

TextDeltaEvent = TextDelta
"""A piece of the answer text: the model stream's own ``TextDelta``."""

ReasoningDeltaEvent = ReasoningDelta
"""A piece of the model's reasoning: the model stream's own ``ReasoningDelta``."""

ToolCallStartEvent = ToolCallStart
"""The model began a tool call (``index``, ``id``, ``name``): the stream's own
``ToolCallStart``."""


@dataclass(frozen=True, slots=True)
class ToolCallArgsEvent(ToolCallArgs):
    """A fragment of a tool call's JSON argument text: the stream's ``ToolCallArgs``
    (``index``, ``arguments``) with the ``id`` of its call."""

    id: str


@dataclass(frozen=True, slots=True)
class TurnEndEvent:
    """A model turn is complete: the assistant message as appended, and its usage."""

    message: AssistantMessage
    usage: Usage


@dataclass(frozen=True, slots=True)
class ToolExecuteEvent:
    """A tool call is about to run; ``parameters`` are after the adapter chain."""

    call: ToolCall
    parameters: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ToolResultEvent:
    """A tool call's result, as appended to the history."""

    call: ToolCall
    message: ToolMessage


@dataclass(frozen=True, slots=True)
class RunEndEvent:
    """The run finished; ``result`` is what [`run`][good_agent.Agent.run] returns."""

    result: RunResult[Any]


RunEvent = (
    TextDelta
    | ReasoningDelta
    | ToolCallStart
    | ToolCallArgsEvent
    | TurnEndEvent
    | ToolExecuteEvent
    | ToolResultEvent
    | RunEndEvent
)
"""Any event of a streamed run."""
