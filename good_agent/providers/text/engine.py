"""The incremental parser behind every text format, one-shot and streaming.

Text is scanned once. Outside regions, content streams out as soon as it cannot
be the start of an opening; inside a region, a `BracketScanner`
or a literal search finds its end without re-reading earlier chunks. A finished
region is decoded once, then emitted as tool-call deltas (or put back into the
content). Decisions depend only on text already seen, and held-back text is
bounded, so any chunking gives the same result in linear total time.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any, Final

import pydantic_core

from good_agent.providers.streaming.deltas import (
    ReasoningDelta,
    TextDelta,
    ToolCallArgs,
    ToolCallEnd,
    ToolCallStart,
)
from good_agent.providers.text.errors import TextParseError
from good_agent.providers.text.markers import Marker, MarkerTable, Region, ValueSpan
from good_agent.providers.text.results import ParseResult, StreamEvent
from good_agent.providers.text.scanner import BracketScanner, json_depth_ok
from good_agent.providers.text.shapes import Decoded
from good_agent.providers.text.trim import Trimmer
from good_agent.types.messages import ToolCall

_TEXT: Final = 0
_UNTIL: Final = 1
_VALUE: Final = 2
_AFTER_VALUE: Final = 3
_DONE: Final = 4
_SEPARATOR_WS: Final = 16
_DECODER = json.JSONDecoder()
_CLOSERS: Final = frozenset("}])")


class StreamingParser:
    """Incremental tool-call parser: `feed` text deltas, then `finish`.

    Emits the package's stream deltas (`StreamEvent`):
    text and reasoning pieces, and each call when its region ends, as
    ``ToolCallStart`` (index, ``call_<index>`` id, name), one ``ToolCallArgs`` with
    all of its arguments and ``ToolCallEnd``. After `finish`,
    `result` gives the same `ParseResult` as a one-shot parse.

    Model output never makes it raise; misuse (and, defensively, any internal
    failure) raises `TextParseError` and ends the stream.

    The content is stripped like ``str.strip`` (whitespace around removed call
    regions goes with them); with ``trim=False`` it is the text outside the decoded
    regions exactly, whitespace included (for replies whose text is kept as sent
    when no call is found in it).
    """

    def __init__(
        self,
        table: MarkerTable,
        tools: Collection[str] | None = None,
        *,
        events: bool = True,
        trim: bool = True,
    ) -> None:
        self._table = table
        self._with_events = events
        self._starter_chars = table.starter_chars
        self._tools = frozenset(tools) if tools is not None else None
        self._carry = ""
        self._held: list[str] = []
        self._held_closes = 0
        self._closing_at: tuple[str, int, int] | None = None
        self._state = _TEXT
        self._marker: Marker | None = None
        self._until: str | None = None
        self._parts: list[str] = []
        self._opening = ""
        self._name: str | None = None
        self._values: list[ValueSpan] = []
        self._value_parts: list[str] = []
        self._scanner = BracketScanner()
        self._content = Trimmer(trim=trim)
        self._reasoning = Trimmer("\n")
        self._pending: list[str] = []
        self._events: list[StreamEvent] = []
        self._calls: list[ToolCall] = []
        self._content_parts: list[str] = []
        self._reasoning_parts: list[str] = []
        self._finished = False

    @property
    def calls(self) -> list[ToolCall]:
        """The tool calls completed so far."""
        return list(self._calls)

    def feed(self, delta: str) -> list[StreamEvent]:
        """Consume a text delta; return the events it completes."""
        state = self._state
        if state == _VALUE:
            # Inside a bracketed value nothing is emitted until it ends, and it
            # can only end at a closing bracket: other deltas are just held, and
            # scanned once when a closing bracket arrives (or at finish).
            if type(delta) is str:
                if _CLOSERS.isdisjoint(delta):
                    self._held.append(delta)
                    return []
                # Each closing bracket lowers the depth by at most one (it may
                # sit in a string), so while fewer have arrived than the depth
                # already scanned, the value cannot have ended yet.
                closes = self._held_closes + delta.count("}") + delta.count("]") + delta.count(")")
                if closes < self._scanner.depth:
                    self._held_closes = closes
                    self._held.append(delta)
                    return []
        elif state == _UNTIL and not self._carry and type(delta) is str:
            until = self._until
            if until is not None and until[0] not in delta:
                # Inside a region that ends at a literal: a delta that cannot
                # begin the literal is reasoning (streamed) or region text.
                marker = self._marker
                if marker is not None and marker.reasoning:
                    out = self._reasoning.push(delta)
                    if not out:
                        return []
                    self._reasoning_parts.append(out)
                    return [ReasoningDelta(out)]
                if delta:
                    self._parts.append(delta)
                return []
        elif (
            state == _TEXT
            and not self._carry
            and type(delta) is str
            and (
                delta not in self._starter_chars
                if len(delta) == 1
                else self._table.plain(delta)
            )
        ):
            # Plain text between calls: nothing pending, no opening in it and none
            # beginning at its end (a starter character alone, the "f" of "for",
            # does not send it through the scan).
            out = self._content.push(delta)
            if not out:
                return []
            self._content_parts.append(out)
            return [TextDelta(out)]
        return self._feed(delta)

    def _feed(self, delta: str) -> list[StreamEvent]:
        if self._finished:
            raise TextParseError("feed() called after finish()")
        if not isinstance(delta, str):
            raise TextParseError(f"expected str, got {type(delta).__name__}")
        try:
            if self._held:
                self._held.append(delta)
                text = "".join(self._held)
                self._held = []
                self._held_closes = 0
            elif self._carry:
                text = self._carry + delta
                self._carry = ""
            else:
                text = delta
            self._run(text, final=False)
        except Exception as exc:
            self._fail()
            raise TextParseError(f"internal error while parsing: {exc!r}") from exc
        return self._drain()

    def _fail(self) -> None:
        self._finished = True
        self._state = _DONE
        self._held = []
        self._held_closes = 0
        self._carry = ""

    def finish(self) -> list[StreamEvent]:
        """Signal the end of the text; return the remaining events."""
        if self._finished:
            raise TextParseError("finish() called twice")
        self._finished = True
        try:
            if self._held:
                text = "".join(self._held)
                self._held = []
                self._held_closes = 0
            else:
                text, self._carry = self._carry, ""
            self._run(text, final=True)
            if self._state == _UNTIL:
                self._complete(closed=False)
            elif self._state == _VALUE:
                self._close_value(complete=False)
                self._complete(closed=False)
            elif self._state == _AFTER_VALUE:
                self._complete(closed=self._marker is not None and self._marker.closing is None)
            self._state = _DONE
            self._flush_content()
            self._content.end_segment()
        except Exception as exc:
            self._fail()
            raise TextParseError(f"internal error while parsing: {exc!r}") from exc
        return self._drain()

    def result(self) -> ParseResult:
        """The accumulated result; call after `finish`."""
        if not self._finished:
            raise TextParseError("result() called before finish()")
        reasoning = "".join(self._reasoning_parts) if self._reasoning.emitted else None
        return ParseResult(list(self._calls), "".join(self._content_parts), reasoning)

    # -- scanning -------------------------------------------------------------

    def _run(self, text: str, *, final: bool) -> None:
        i = 0
        end = len(text)
        while i < end:
            state = self._state
            if state == _TEXT:
                i = self._scan_text(text, i, final)
            elif state == _VALUE:
                i = self._scan_value(text, i)
            elif state == _UNTIL:
                i = self._scan_until(text, i, final)
            else:
                i = self._scan_after_value(text, i, final)

    def _scan_text(self, text: str, i: int, final: bool) -> int:
        match = self._table.search(text, i)
        if match is None:
            stop = len(text) if final else self._table.hold_from(text, i)
            self._out_content(text[i:stop])
            self._carry = text[stop:]
            return len(text)
        if match.start > i:
            self._pending.append(text[i : match.start])
        if not final and self._table.could_grow(text, match.start):
            # The opening ends with the chunk; a longer opening (of a marker
            # listed earlier) may still appear here once more text arrives.
            self._carry = text[match.start :]
            return len(text)
        marker = match.marker
        self._marker = marker
        self._name = match.name
        self._values = []
        self._until = marker.until
        if marker.until is not None:
            self._opening = text[match.start : match.end]
            self._parts = [self._opening]
            self._state = _UNTIL
            return match.end
        self._opening = text[match.start : match.value_start]
        self._parts = [self._opening]
        return self._start_value(text, match.value_start)

    def _start_value(self, text: str, i: int) -> int:
        marker = self._marker
        assert marker is not None
        if marker.json_values:
            if marker.closing is not None:
                guessed = self._value_before_closing(text, i, marker.closing)
                if guessed is not None:
                    chunk, value = guessed
                    self._parts.append(chunk)
                    self._values.append(ValueSpan(chunk, (value,)))
                    return self._value_done(i + len(chunk))
            if _may_be_whole(text, i):
                try:
                    value, end = _DECODER.raw_decode(text, i)
                except (ValueError, RecursionError):
                    pass
                else:
                    chunk = text[i:end]
                    if json_depth_ok(chunk):
                        self._parts.append(chunk)
                        self._values.append(ValueSpan(chunk, (value,)))
                        return self._value_done(end)
        self._scanner = BracketScanner()
        self._value_parts = []
        self._state = _VALUE
        return i

    def _value_before_closing(self, text: str, i: int, closing: str) -> tuple[str, Any] | None:
        """Decode the usual case at once: the value runs up to the closing literal.

        The text before the first closing literal is decoded by pydantic-core
        (about twice as fast as the standard library, with equal results on
        valid JSON). A failure means nothing: the general path runs. Where the
        closing literal was searched for is remembered, so repeated openings
        never search the same text twice.
        """
        cached = self._closing_at
        if cached is not None and cached[0] is text and cached[1] <= i and not 0 <= cached[2] < i:
            at = cached[2]
        else:
            at = text.find(closing, i)
            self._closing_at = (text, i, at)
        if at < 0:
            return None
        chunk = text[i:at].rstrip()
        if not chunk.endswith(("}", "]")):
            return None
        try:
            return chunk, pydantic_core.from_json(chunk)
        except (ValueError, TypeError):
            return None

    def _scan_value(self, text: str, i: int) -> int:
        end = self._scanner.feed(text, i)
        if end < 0:
            self._value_parts.append(text[i:])
            return len(text)
        self._value_parts.append(text[i:end])
        self._close_value(complete=True)
        return self._value_done(end)

    def _close_value(self, *, complete: bool) -> None:
        chunk = "".join(self._value_parts)
        self._value_parts = []
        self._parts.append(chunk)
        self._values.append(ValueSpan(chunk, None, self._scanner.max_depth, complete))

    def _value_done(self, end: int) -> int:
        marker = self._marker
        assert marker is not None
        if marker.separator is not None or marker.closing is not None:
            self._state = _AFTER_VALUE
        else:
            self._complete(closed=True)
        return end

    def _scan_after_value(self, text: str, i: int, final: bool) -> int:
        marker = self._marker
        assert marker is not None
        j = _skip_ws(text, i) if i < len(text) and text[i] in " \t\r\n" else i
        if j >= len(text) and not final:
            self._carry = text[i:]
            return len(text)
        separator = marker.separator
        if separator is not None and text.startswith(separator, j):
            after = j + len(separator)
            k = _skip_ws(text, after)
            if k >= len(text) and not final:
                self._carry = text[i:]
                return len(text)
            if k < len(text) and text[k] in "{[":
                self._parts.append(text[i:k])
                return self._start_value(text, k)
            self._parts.append(text[i:after])
            self._complete(closed=True)
            return after
        closing = marker.closing
        if closing is not None and j < len(text):
            if text.startswith(closing, j):
                end = j + len(closing)
                self._parts.append(text[i:end])
                self._complete(closed=True)
                return end
            if not final and closing.startswith(text[j:]):
                self._carry = text[i:]
                return len(text)
            if marker.closing_optional:
                self._complete(closed=True)
                return i
            # Something other than the closing literal follows the value: the
            # whole body up to the closing literal is decoded as one piece.
            self._values = []
            self._until = closing
            self._state = _UNTIL
            return i
        self._complete(closed=closing is None)
        return i

    def _scan_until(self, text: str, i: int, final: bool) -> int:
        until = self._until
        assert until is not None
        found = text.find(until, i)
        if found >= 0:
            self._out_until(text[i:found])
            self._parts.append(until)
            self._complete(closed=True)
            return found + len(until)
        stop = len(text) if final else len(text) - _partial_suffix(text, i, until)
        self._out_until(text[i:stop])
        self._carry = text[stop:]
        return len(text)

    # -- output ---------------------------------------------------------------

    def _out_until(self, text: str) -> None:
        marker = self._marker
        assert marker is not None
        if marker.reasoning:
            self._out_reasoning(text)
        elif text:
            self._parts.append(text)

    def _complete(self, *, closed: bool) -> None:
        marker = self._marker
        assert marker is not None
        self._state = _TEXT
        self._marker = None
        if marker.reasoning:
            self._reasoning.end_segment()
            return
        text = "".join(self._parts)
        body = ""
        if self._until is not None:
            stop = len(text) - len(self._until) if closed else len(text)
            body = text[len(self._opening) : stop]
            self._until = None
            if marker.requires and not _contains_any(body, marker.requires):
                self._parts = []
                self._values = []
                self._out_content(text)
                return
        region = Region(text, self._opening, self._name, tuple(self._values), body, closed)
        self._parts = []
        self._values = []
        decoded = marker.decode(region)
        if decoded is None or not self._allowed(decoded):
            self._out_content(text)
            return
        self._emit(decoded)

    def _allowed(self, decoded: Decoded) -> bool:
        tools = self._tools
        return tools is None or all(call.name in tools for call in decoded.calls)

    def _emit(self, decoded: Decoded) -> None:
        if decoded.reasoning:
            self._out_reasoning(decoded.reasoning)
            self._reasoning.end_segment()
        self._out_content(decoded.content)
        if decoded.calls:
            self._flush_content()
        for spec in decoded.calls:
            index = len(self._calls)
            call_id = f"call_{index}"
            self._calls.append(
                ToolCall(
                    id=call_id,
                    name=spec.name,
                    arguments=spec.arguments or {},
                    raw_arguments=spec.raw_arguments,
                    arguments_error=spec.error,
                    arguments_problems=[spec.error] if spec.error else [],
                )
            )
            if self._with_events:
                self._events += (
                    ToolCallStart(index, call_id, spec.name),
                    ToolCallArgs(index, spec.raw_arguments),
                    ToolCallEnd(index),
                )

    def _out_content(self, text: str) -> None:
        # Raw pieces are trimmed together when flushed (trimming is
        # split-invariant), so many small pieces cost one push.
        if text:
            self._pending.append(text)

    def _out_reasoning(self, text: str) -> None:
        if text:
            out = self._reasoning.push(text)
            if out:
                self._flush_content()
                self._reasoning_parts.append(out)
                if self._with_events:
                    self._events.append(ReasoningDelta(out))

    def _flush_content(self) -> None:
        if self._pending:
            out = self._content.push("".join(self._pending))
            self._pending = []
            if out:
                self._content_parts.append(out)
                if self._with_events:
                    self._events.append(TextDelta(out))

    def _drain(self) -> list[StreamEvent]:
        self._flush_content()
        events, self._events = self._events, []
        return events


def _may_be_whole(text: str, i: int) -> bool:
    """Whether the JSON value at ``text[i]`` may be complete in ``text``: there is a
    value, and an object or array has a closing bracket of its kind after it (where
    none has arrived yet, decoding could only fail)."""
    head = text[i : i + 1]
    if head == "{":
        return text.find("}", i) >= 0
    if head == "[":
        return text.find("]", i) >= 0
    return bool(head)


def _contains_any(text: str, words: tuple[str, ...]) -> bool:
    for word in words:  # noqa: SIM110 - a plain loop; a generator costs more per call
        if word in text:
            return True
    return False


def _skip_ws(text: str, i: int) -> int:
    if i >= len(text) or text[i] not in " \t\r\n":
        return i
    limit = min(len(text), i + _SEPARATOR_WS)
    while i < limit and text[i] in " \t\r\n":
        i += 1
    return i


def _partial_suffix(text: str, start: int, literal: str) -> int:
    """Length of the longest suffix of ``text[start:]`` that begins ``literal``."""
    longest = min(len(literal) - 1, len(text) - start)
    for size in range(longest, 0, -1):
        if literal.startswith(text[len(text) - size :]):
            return size
    return 0
