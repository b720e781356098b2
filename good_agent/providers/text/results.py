"""Result and stream event types of the text tool-call parsers."""

from __future__ import annotations

from dataclasses import dataclass, field

from good_agent.providers.types import ParsedToolCall


@dataclass(frozen=True, slots=True)
class ParseResult:
    """What a one-shot parse found in a model's text.

    ``calls`` are the tool calls in order of appearance, ``content`` is the text
    around them (stripped of leading and trailing whitespace), and ``reasoning``
    joins ``<think>`` blocks and ``scratchpad`` fields with newlines, or is
    ``None`` when there was none.
    """

    calls: list[ParsedToolCall] = field(default_factory=list)
    content: str = ""
    reasoning: str | None = None


@dataclass(frozen=True, slots=True)
class ContentDelta:
    """A piece of answer text; all pieces concatenate to ``ParseResult.content``."""

    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    """A piece of reasoning; all pieces concatenate to ``ParseResult.reasoning``."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """A fragment of one tool call, with OpenAI chunk semantics.

    ``index`` counts calls from 0. ``id`` and ``name`` are set on a call's first
    delta only; the ``arguments`` fragments of one index concatenate to the
    call's ``raw_arguments`` (a JSON object, unless the call has an ``error``).
    """

    index: int
    id: str | None
    name: str | None
    arguments: str


StreamEvent = ContentDelta | ReasoningDelta | ToolCallDelta
"""One event emitted by a streaming parser."""
