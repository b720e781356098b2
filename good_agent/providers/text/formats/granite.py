"""IBM Granite: ``<|tool_call|>[{...}]`` and ``functools[{...}]``."""

from __future__ import annotations

from good_agent.providers.text.formats.common import decode_explicit_value
from good_agent.providers.text.markers import Marker
from good_agent.providers.text.openings import Lit, Open, Ws

TOOL_CALL_TOKEN = Marker(
    "granite", (Lit("<|tool_call|>"), Ws(), Open("["), Ws(), Lit("{")), decode_explicit_value
)
"""Granite 3 ``<|tool_call|>`` followed by a JSON array."""

FUNCTOOLS = Marker("granite", (Lit("functools"), Open("["), Ws(), Lit("{")), decode_explicit_value)
"""Granite ``functools[...]``."""

MARKERS = (TOOL_CALL_TOKEN, FUNCTOOLS)
"""Markers of the ``granite`` format."""
