"""Decoding helpers shared by the format modules."""

from __future__ import annotations

from typing import Any

from good_agent.providers.text.lenient import lenient_json, stdlib_json
from good_agent.providers.text.markers import Region, ValueSpan
from good_agent.providers.text.openings import Alt, Element, Lit
from good_agent.providers.text.scanner import MAX_DEPTH, json_depth_ok
from good_agent.providers.text.shapes import Decoded, calls_from_value, error_call, recover_name

QUOTE: Element = Alt(((Lit('"'),), (Lit("'"),)))
"""A double or single quote (the start of a key in a call object)."""


def span_value(span: ValueSpan, *, repair: bool = True) -> tuple[bool, Any]:
    """Decode a value span: the value decoded while scanning, or a lenient decode.

    A complete value is first decoded as strict JSON (within the limit of
    `json_depth_ok`), as the one-shot fast path does, so
    chunking never changes the result. ``repair=False`` (values outside a
    tool-call marker) skips json-repair.
    """
    if span.decoded is not None:
        return True, span.decoded[0]
    if span.complete and json_depth_ok(span.text):
        ok, value = stdlib_json(span.text)
        if ok:
            return True, value
    if span.depth > MAX_DEPTH:
        return False, None
    return lenient_json(span.text, repair=repair)


def explicit_calls(text: str, decoded: tuple[bool, Any]) -> Decoded | None:
    """Calls from text found inside an explicit tool-call marker.

    When the text does not decode to calls but a ``"name"`` can be recovered,
    the result is one call with ``arguments=None`` and an ``error``; otherwise None.
    """
    ok, value = decoded
    if ok:
        result = calls_from_value(value, explicit=True)
        if result is not None:
            return result
    name = recover_name(text)
    if name is None:
        return None
    return Decoded((error_call(name, text.strip(), "the tool call is not valid JSON"),))


def decode_explicit_value(region: Region) -> Decoded | None:
    """Decode a region holding one JSON value after an explicit marker."""
    if not region.values:
        return None
    span = region.values[0]
    return explicit_calls(span.text, span_value(span))


def merge(parts: list[Decoded]) -> Decoded:
    """Concatenate the calls, content and reasoning of several decoded parts."""
    if len(parts) == 1:
        return parts[0]
    calls = tuple(call for part in parts for call in part.calls)
    content = "".join(part.content for part in parts)
    reasoning = "\n".join(part.reasoning for part in parts if part.reasoning)
    return Decoded(calls, content, reasoning)
