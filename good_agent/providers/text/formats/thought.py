"""The thought/tool protocol: ``{"thought": ..., "tool_name": ..., "tool_args": {...}}``.

The reply is one JSON object. A call names the tool in ``tool_name`` and its
arguments in ``tool_args`` (an object, or JSON object text); ``thought`` is the
model's reasoning. A final answer is ``{"thought": ..., "answer": "..."}``
(``final_answer`` is accepted too). Objects of any other shape stay content, so
ordinary JSON in an answer is never mistaken for a call. Several calls may be
written as a JSON array of such objects.
"""

from __future__ import annotations

from typing import Any

from good_agent.providers.text.formats.common import QUOTE, span_value
from good_agent.providers.text.markers import Marker, Region
from good_agent.providers.text.openings import Lit, Open, Ws
from good_agent.providers.text.shapes import CallSpec, Decoded, make_call

CALL_KEYS = frozenset({"id", "thought", "tool_name", "tool_args"})
"""The keys of a call object (``thought``, ``tool_args`` and ``id`` may be missing; an
``id``, as rewritten history writes it, is not the call's: each parsed call gets a new one)."""

ANSWER_KEYS = ("answer", "final_answer")
"""The keys that carry a final answer."""


def thought_value(value: Any) -> Decoded | None:
    """Interpret one decoded JSON value in the thought protocol (None: not one)."""
    if isinstance(value, list):
        parts = [thought_value(item) for item in value]
        if not parts or any(p is None or not p.calls for p in parts):
            return None
        calls = tuple(call for p in parts if p is not None for call in p.calls)
        reasoning = "\n".join(p.reasoning for p in parts if p is not None and p.reasoning)
        return Decoded(calls, "", reasoning)
    if not isinstance(value, dict):
        return None
    thought = value.get("thought")
    reasoning = thought if isinstance(thought, str) else ""
    for key in ANSWER_KEYS:
        if key in value and value.keys() <= {"thought", key}:
            answer = value[key]
            return Decoded((), answer, reasoning) if isinstance(answer, str) else None
    if "tool_name" not in value or not value.keys() <= CALL_KEYS:
        return None
    call = _call(value.get("tool_name"), value.get("tool_args"))
    return Decoded((call,), "", reasoning) if call is not None else None


def _call(name: Any, arguments: Any) -> CallSpec | None:
    if not isinstance(name, str) or not name.strip():
        return None
    return make_call(name.strip(), arguments)


def decode_thought(region: Region) -> Decoded | None:
    """Decode a complete thought-protocol value; anything else stays content."""
    span = region.values[0]
    if not span.complete:
        return None
    ok, value = span_value(span)
    return thought_value(value) if ok else None


OBJECT = Marker("thought", (Open("{"), Ws(), QUOTE), decode_thought)
"""A JSON object in the thought protocol."""

ARRAY = Marker("thought", (Open("["), Ws(), Lit("{")), decode_thought)
"""A JSON array of thought-protocol call objects."""

MARKERS = (OBJECT, ARRAY)
"""Markers of the ``thought`` format."""
