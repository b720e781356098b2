"""The events a streamed run yields, in order (see :meth:`good_agent.Agent.stream`).

A model turn yields its text, reasoning and tool-call deltas as they arrive, then
:class:`TurnEndEvent`; each tool call of the turn then yields
:class:`ToolExecuteEvent` (after the adapter chain) and :class:`ToolResultEvent`;
the run ends with :class:`RunEndEvent`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from good_agent.core.results import RunResult
from good_agent.types.messages import AssistantMessage, ToolCall, ToolMessage
from good_agent.types.usage import Usage


@dataclass(frozen=True, slots=True)
class TextDeltaEvent:
    """A piece of the answer text."""

    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDeltaEvent:
    """A piece of the model's reasoning."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolCallStartEvent:
    """The model began a tool call: its position in the turn, id and name."""

    index: int
    id: str
    name: str


@dataclass(frozen=True, slots=True)
class ToolCallArgsEvent:
    """A fragment of a tool call's JSON argument text."""

    index: int
    id: str
    arguments: str


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
    TextDeltaEvent
    | ReasoningDeltaEvent
    | ToolCallStartEvent
    | ToolCallArgsEvent
    | TurnEndEvent
    | ToolExecuteEvent
    | ToolResultEvent
    | RunEndEvent
)
"""Any event of a streamed run."""
