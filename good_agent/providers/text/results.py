"""Result and stream event types of the text tool-call parsers."""

from __future__ import annotations

from dataclasses import dataclass, field

from good_agent.providers.streaming.deltas import (
    ReasoningDelta,
    TextDelta,
    ToolCallArgs,
    ToolCallEnd,
    ToolCallStart,
)
from good_agent.types.messages import ToolCall


@dataclass(frozen=True, slots=True)
class ParseResult:
    """What a one-shot parse found in a model's text.

    ``calls`` are the tool calls in order of appearance, ``content`` is the text
    around them (stripped of leading and trailing whitespace), and ``reasoning``
    joins ``<think>`` blocks and ``scratchpad`` fields with newlines, or is
    ``None`` when there was none.
    """

    calls: list[ToolCall] = field(default_factory=list)
    content: str = ""
    reasoning: str | None = None


StreamEvent = TextDelta | ReasoningDelta | ToolCallStart | ToolCallArgs | ToolCallEnd
"""One event emitted by a streaming parser: the package's stream deltas.

Text pieces concatenate to ``ParseResult.content`` and reasoning pieces to
``ParseResult.reasoning``. A call is reported when it is complete, as
`ToolCallStart` (``index`` from 0, ``id`` ``call_<index>``, the name),
one `ToolCallArgs` carrying its ``raw_arguments`` and `ToolCallEnd`.
"""
