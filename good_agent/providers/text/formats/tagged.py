"""Formats delimited by tags or literals: Hermes/Qwen, fenced JSON, and ``<think>``.

* Hermes/Qwen: ``<tool_call>{"name": ..., "arguments": ...}</tool_call>``; a last
  tag left unclosed runs to the end of the text. A body starting with ``{`` is
  delimited by its brackets (so ``</tool_call>`` inside a string is harmless);
  any other body runs to the closing tag.
* Fenced: a Markdown ```` ```json ```` block holding a call object or array.
* ``<think>...</think>``: reasoning, kept apart from the content by every format.
"""

from __future__ import annotations

from good_agent.providers.text.formats.common import decode_explicit_value, explicit_calls
from good_agent.providers.text.lenient import lenient_json
from good_agent.providers.text.markers import Marker, Region
from good_agent.providers.text.openings import Lit, Open, Ws
from good_agent.providers.text.shapes import Decoded, calls_from_value


def decode_hermes(region: Region) -> Decoded | None:
    """Decode the body of a ``<tool_call>`` tag (explicit: errors become error calls)."""
    body = region.body.strip()
    if not body:
        return None
    return explicit_calls(body, lenient_json(body))


def decode_hermes_json(region: Region) -> Decoded | None:
    """Decode a ``<tool_call>`` whose body starts with ``{``.

    When other text follows the object inside the tag, the whole body is
    decoded instead (see `decode_hermes`).
    """
    if region.values:
        return decode_explicit_value(region)
    return decode_hermes(region)


def decode_fenced(region: Region) -> Decoded | None:
    """Decode a fenced JSON block; anything but a well-formed call-shaped value stays content.

    A fence is not a tool-call marker, so it is read like bare JSON: no
    json-repair, and no placeholder arguments.
    """
    ok, value = lenient_json(region.body, repair=False)
    return calls_from_value(value, explicit=False) if ok else None


HERMES_JSON = Marker(
    "hermes",
    (Lit("<tool_call>"), Ws(), Open("{")),
    decode_hermes_json,
    closing="</tool_call>",
)
"""Hermes / Qwen ``<tool_call>`` tags holding a JSON object."""

HERMES = Marker("hermes", (Lit("<tool_call>"),), decode_hermes, until="</tool_call>")
"""Hermes / Qwen ``<tool_call>`` tags with any other body (after `HERMES_JSON`)."""

FENCED = Marker(
    "fenced",
    (Lit("```json"),),
    decode_fenced,
    until="```",
    requires=("name", "tool", "answer"),
)
"""Markdown ```` ```json ```` fences.

Every call or answer shape has a ``name``, ``tool`` or ``answer`` key, so a
fence without one of those words stays content without trying any decoder.
"""

THINK = Marker("think", (Lit("<think>"),), until="</think>", reasoning=True)
"""``<think>`` reasoning blocks."""
