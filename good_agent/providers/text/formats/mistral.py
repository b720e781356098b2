"""Mistral: ``[TOOL_CALLS][{...}, ...]``, ``[TOOL_CALLS]name{...}`` and
``[TOOL_CALLS]name[ARGS]{...}`` (one marker per call in the latter two forms)."""

from __future__ import annotations

from good_agent.providers.text.formats.common import QUOTE, explicit_calls, span_value
from good_agent.providers.text.markers import Marker, Region
from good_agent.providers.text.openings import Alt, Ident, Lit, Open, Opt, Ws
from good_agent.providers.text.shapes import Decoded, error_call, make_call


def decode_mistral(region: Region) -> Decoded | None:
    """Decode either form; with a name, undecodable arguments give an error call."""
    span = region.values[0]
    ok, value = span_value(span)
    if region.name is None:
        return explicit_calls(span.text, (ok, value))
    if ok and isinstance(value, dict):
        return Decoded((make_call(region.name, value),))
    return Decoded((error_call(region.name, span.text, "the arguments are not valid JSON"),))


MISTRAL = Marker(
    "mistral",
    (
        Lit("[TOOL_CALLS]"),
        Ws(),
        Alt(
            (
                (Open("["), Ws(), Lit("{")),
                (Open("{"), Ws(), QUOTE),
                (Ident(extra=".-", capture=True), Opt((Lit("[ARGS]"),)), Ws(), Open("{")),
            )
        ),
    ),
    decode_mistral,
)
"""The ``[TOOL_CALLS]`` marker in all its forms."""
