"""Bare JSON in plain text: a call object, or an array of call objects.

Covers ``{"name": ..., "arguments": ...}``, OpenAI-shaped ``{"tool_calls": [...]}``,
the seed payload ``{"tool": ..., "arguments": ..., "scratchpad": ...}``, the final
answer ``{"answer": ..., "scratchpad": ...}`` and Python dict reprs
(``{'name': 'f', 'arguments': {'a': 1}}``). An object must open with a quoted key
and an array with an object; values that are not call-shaped stay content. Text
here is not marked as a call, so it must be JSON or a Python literal as written
(json-repair is not tried) and hold no placeholder arguments: a malformed or
sketched call in prose stays prose.
"""

from __future__ import annotations

from good_agent.providers.text.formats.common import QUOTE, span_value
from good_agent.providers.text.markers import Marker, Region
from good_agent.providers.text.openings import Lit, Open, Ws
from good_agent.providers.text.shapes import Decoded, calls_from_value


def decode_bare(region: Region) -> Decoded | None:
    """Decode a complete bare value; incomplete, malformed or non-call values stay content."""
    span = region.values[0]
    if not span.complete:
        return None
    ok, value = span_value(span, repair=False)
    return calls_from_value(value, explicit=False) if ok else None


OBJECT = Marker("json", (Open("{"), Ws(), QUOTE), decode_bare)
"""A bare JSON (or Python-repr) object starting with a quoted key."""

ARRAY = Marker("json", (Open("["), Ws(), Lit("{")), decode_bare)
"""A bare JSON array of objects."""

MARKERS = (OBJECT, ARRAY)
"""Markers of the ``json`` format."""
