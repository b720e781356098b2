"""Stream shapers: neutral upstream events in, the client's events out, per mode.

``native`` upstreams already stream tool-call deltas: :class:`NativeShaper`
passes them through. ``validated`` and ``parsed`` upstreams write calls as text:
:class:`TextCallShaper` runs the text through the incremental parser of
:mod:`good_agent.providers.text`, so tool-call syntax never reaches the content.
``structured`` replies are one JSON object: :class:`StructuredShaper` decodes it
when it is complete. Every shaper honours ``parallel_tool_calls=False`` by keeping
only the first call.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Sequence

from good_agent.providers.strategies.structured import decode_action
from good_agent.providers.text import ContentDelta, ReasoningDelta, ToolCallDelta, get_parser
from good_agent.providers.tool_names import tool_name
from good_agent.providers.types import JSONDict
from good_agent.server import events as neutral
from good_agent.server.events import CallDelta, StreamEvent, TextDelta


def new_call_id() -> str:
    """A fresh, unique tool-call id."""
    return f"call_{uuid.uuid4().hex[:24]}"


class Shaper:
    """Base shaper: counts calls and applies the parallel limit."""

    def __init__(self, *, parallel: bool | None = None) -> None:
        self.parallel = parallel
        self.calls = 0
        self._ids: dict[int, int] = {}

    def call(self, delta: CallDelta) -> list[StreamEvent]:
        """Renumber an upstream call delta; drop calls beyond the parallel limit."""
        index = self._ids.get(delta.index)
        if index is None:
            if self.parallel is False and self.calls >= 1:
                return []
            index = self._ids[delta.index] = self.calls
            self.calls += 1
            return [CallDelta(index, delta.id or new_call_id(), delta.name or "", delta.arguments)]
        return [CallDelta(index, None, None, delta.arguments)] if delta.arguments else []

    def feed(self, event: StreamEvent) -> list[StreamEvent]:
        """Shape one upstream event."""
        if isinstance(event, CallDelta):
            return self.call(event)
        return [event]

    def finish(self) -> list[StreamEvent]:
        """Events held back until the upstream ends."""
        return []


class NativeShaper(Shaper):
    """Pass-through for upstreams with native tool calling."""


class TextCallShaper(Shaper):
    """Tool calls parsed out of streamed text (``validated`` and ``parsed`` modes).

    Args:
        tools: The names of the offered tools (calls to others stay text).
        text_format: The text format to parse (``auto`` detects any).
        parallel: ``False`` keeps only the first call.
    """

    def __init__(
        self, tools: Collection[str], *, text_format: str = "auto", parallel: bool | None = None
    ) -> None:
        super().__init__(parallel=parallel)
        self._parser = get_parser(text_format).streaming(tools)
        self._base = 1_000_000

    def feed(self, event: StreamEvent) -> list[StreamEvent]:
        """Feed text to the parser; pass other events on."""
        if isinstance(event, TextDelta):
            return self._convert(self._parser.feed(event.text))
        return super().feed(event)

    def finish(self) -> list[StreamEvent]:
        """Flush text the parser held back."""
        return self._convert(self._parser.finish())

    def _convert(self, events: Sequence[object]) -> list[StreamEvent]:
        out: list[StreamEvent] = []
        for event in events:
            if isinstance(event, ContentDelta) and event.text:
                out.append(TextDelta(event.text))
            elif isinstance(event, ReasoningDelta) and event.text:
                out.append(neutral.ReasoningDelta(event.text))
            elif isinstance(event, ToolCallDelta):
                fresh = event.id is not None or event.name is not None
                out += self.call(
                    CallDelta(
                        self._base + event.index,
                        new_call_id() if fresh else None,
                        event.name,
                        event.arguments,
                    )
                )
        return out


class StructuredShaper(Shaper):
    """A structured-output reply decoded once complete into an answer or one call."""

    def __init__(self, tools: list[JSONDict], *, parallel: bool | None = None) -> None:
        super().__init__(parallel=parallel)
        self._tools = {tool_name(tool): tool for tool in tools}
        self._parts: list[str] = []

    def feed(self, event: StreamEvent) -> list[StreamEvent]:
        """Buffer text; pass other events on."""
        if isinstance(event, TextDelta):
            self._parts.append(event.text)
            return []
        return super().feed(event)

    def finish(self) -> list[StreamEvent]:
        """Decode the buffered JSON reply."""
        answer, _, calls = decode_action("".join(self._parts), self._tools)
        out: list[StreamEvent] = []
        if answer:
            out.append(TextDelta(answer))
        for index, call in enumerate(calls):
            out += self.call(CallDelta(index, new_call_id(), call.name, call.raw_arguments))
        return out
