"""Pythonic calls: ``[f(a=1), g(x="y")]`` (Llama 3.2/4 style), decoded from the AST.

Only keyword arguments with literal values are accepted; nothing is evaluated.
A list whose arguments hold a placeholder (``f(q="...")``) stays content.
"""

from __future__ import annotations

from good_agent.providers.text.literals import python_calls
from good_agent.providers.text.markers import Marker, Region
from good_agent.providers.text.openings import Ident, Lit, Open, Ws
from good_agent.providers.text.placeholders import has_placeholder
from good_agent.providers.text.shapes import Decoded, make_call


def decode_pythonic(region: Region) -> Decoded | None:
    """Decode a complete list of calls; anything else (placeholders too) stays content."""
    span = region.values[0]
    if not span.complete:
        return None
    calls = python_calls(span.text)
    if calls is None or any(has_placeholder(kwargs) for _, kwargs in calls):
        return None
    return Decoded(tuple(make_call(name, kwargs) for name, kwargs in calls))


PYTHONIC = Marker(
    "pythonic",
    (Open("["), Ws(), Ident(extra="."), Ws(), Lit("(")),
    decode_pythonic,
    json_values=False,
)
"""A list literal whose first element is a call."""
