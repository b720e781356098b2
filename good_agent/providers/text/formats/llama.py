"""Llama 3: ``<|python_tag|>`` followed by call objects separated by ``;``."""

from __future__ import annotations

from good_agent.providers.text.formats.common import QUOTE, explicit_calls, merge, span_value
from good_agent.providers.text.markers import Marker, Region
from good_agent.providers.text.openings import Alt, Lit, Open, Ws
from good_agent.providers.text.shapes import Decoded


def decode_llama(region: Region) -> Decoded | None:
    """Decode every value; if any value is not a call, the whole region stays content."""
    parts: list[Decoded] = []
    for span in region.values:
        decoded = explicit_calls(span.text, span_value(span))
        if decoded is None:
            return None
        parts.append(decoded)
    return merge(parts)


PYTHON_TAG = Marker(
    "llama3",
    (
        Lit("<|python_tag|>"),
        Ws(),
        Alt(((Open("{"), Ws(), QUOTE), (Open("["), Ws(), Lit("{")))),
    ),
    decode_llama,
    separator=";",
)
"""The ``<|python_tag|>`` marker."""
