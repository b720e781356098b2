"""Pythonic calls: ``[f(a=1), g(x="y")]`` (Llama 3.2/4 style), decoded from the AST.

Only keyword arguments with literal values are accepted; nothing is evaluated.
Llama 4 wraps the list in ``<|python_start|>`` ... ``<|python_end|>``: those
tokens belong to the call and never reach the content. A bare list (without
the tokens) whose arguments hold a placeholder (``f(q="...")``) stays content.
"""

from __future__ import annotations

from good_agent.providers.text.literals import python_calls
from good_agent.providers.text.markers import Marker, Region
from good_agent.providers.text.openings import Ident, Lit, Open, Ws
from good_agent.providers.text.placeholders import has_placeholder
from good_agent.providers.text.shapes import Decoded, make_call


def decode_pythonic(region: Region) -> Decoded | None:
    """Decode a complete bare list of calls; anything else (placeholders too) stays content."""
    return _decode(region, bare=True)


def decode_python_start(region: Region) -> Decoded | None:
    """Decode a complete list of calls after ``<|python_start|>``; anything else stays content."""
    return _decode(region, bare=False)


def _decode(region: Region, *, bare: bool) -> Decoded | None:
    span = region.values[0]
    calls = python_calls(span.text) if span.complete else None
    if calls is None or (bare and any(has_placeholder(kwargs) for _, kwargs in calls)):
        return None
    return Decoded(tuple(make_call(name, kwargs) for name, kwargs in calls))


_CALL_LIST = (Open("["), Ws(), Ident(extra="."), Ws(), Lit("("))

PYTHON_START = Marker(
    "pythonic",
    (Lit("<|python_start|>"), Ws(), *_CALL_LIST),
    decode_python_start,
    closing="<|python_end|>",
    closing_optional=True,
    json_values=False,
)
"""A list of calls after Llama 4's ``<|python_start|>``, with its ``<|python_end|>``."""

PYTHONIC = Marker(
    "pythonic",
    _CALL_LIST,
    decode_pythonic,
    closing="<|python_end|>",
    closing_optional=True,
    json_values=False,
)
"""A list literal whose first element is a call (with a ``<|python_end|>`` after it, if any)."""

MARKERS = (PYTHON_START, PYTHONIC)
"""Markers of the ``pythonic`` format."""
