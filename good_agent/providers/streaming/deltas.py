"""The one family of stream deltas every model stream is decoded into.

Provider stream decoders, the prompted-mode text parser, the model core
(`good_agent.models.LanguageModel.stream`), the agent's streamed runs and the
bridge server all speak these types: a streamed run yields the text, reasoning and
tool-call start deltas themselves as its events (``TextDeltaEvent`` is
`TextDelta`), and each argument fragment as a `ToolCallArgs` that also
names its call.

Tool calls follow OpenAI chunk semantics, made explicit: a call opens with
`ToolCallStart` (``index`` counts calls from 0 within one response, ``id``
and ``name`` are known), its argument text arrives as `ToolCallArgs`
fragments that concatenate to the call's JSON arguments, and `ToolCallEnd`
closes it. Calls may interleave only by ``index``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of answer text; the pieces concatenate to the response's content."""

    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    """A piece of the model's reasoning (thinking blocks, ``<think>`` text)."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolCallStart:
    """A tool call begins: its position in the response, id and (tool-facing) name."""

    index: int
    id: str
    name: str


@dataclass(frozen=True, slots=True)
class ToolCallArgs:
    """A fragment of a call's JSON argument text."""

    index: int
    arguments: str


@dataclass(frozen=True, slots=True)
class ToolCallEnd:
    """A tool call's arguments are complete."""

    index: int


@dataclass(frozen=True, slots=True)
class UsageDelta:
    """Token counts reported so far; ``None`` means not reported in this event."""

    input_tokens: int | None = None
    output_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class FinishDelta:
    """Why the model stopped, in the OpenAI vocabulary (``stop``, ``tool_calls``, ...)."""

    reason: str | None


ModelDelta = (
    TextDelta
    | ReasoningDelta
    | ToolCallStart
    | ToolCallArgs
    | ToolCallEnd
    | UsageDelta
    | FinishDelta
)
"""Any one stream delta."""

__all__ = [
    "FinishDelta",
    "ModelDelta",
    "ReasoningDelta",
    "TextDelta",
    "ToolCallArgs",
    "ToolCallEnd",
    "ToolCallStart",
    "UsageDelta",
]
