"""Placeholders: argument values a model writes when it describes a call instead of making one.

Prose about a tool often shows the call's shape with a stand-in for each value:
``{"name": "calc", "arguments": {"volume": "..."}}`` or ``[calc(volume="<volume>")]``.
A string argument that is only an ellipsis (``...``, ``…``) or a bracketed
word such as ``<value>`` or ``<city name>`` is such a stand-in, and so is
argument text that fails to decode and holds one. Outside an explicit
tool-call marker a call carrying one stays text (a bare call whose argument is
literally ``"<b>"`` does too: there a tool left unrun is the safer mistake).
"""

from __future__ import annotations

import re
from typing import Any, Final

_ELLIPSES: Final = frozenset({"...", "…"})
_ANGLE_WORDS: Final = re.compile(r"<[A-Za-z_][A-Za-z0-9_ \-]{0,63}>")
_LONGEST: Final = 128
"""Longer strings (surrounding whitespace included) are never placeholders."""


def is_placeholder(text: str) -> bool:
    """Whether ``text`` is a stand-in for a value (``...``, ``…``, ``<value>``)."""
    if len(text) > _LONGEST:
        return False
    stripped = text.strip()
    if stripped in _ELLIPSES:
        return True
    return _ANGLE_WORDS.fullmatch(stripped) is not None


def holds_placeholder(text: str) -> bool:
    """Whether ``text`` contains a placeholder anywhere (an ellipsis or ``<value>``).

    For argument text that failed to decode: ``'{"x": ...}'`` is a sketch.
    """
    return "..." in text or "…" in text or _ANGLE_WORDS.search(text) is not None


def has_placeholder(value: Any) -> bool:
    """Whether a decoded value (the arguments of a call) holds a placeholder anywhere.

    Keys and values are both checked, nested lists and objects included; the
    walk uses an explicit stack, so depth costs no recursion.
    """
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if is_placeholder(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return False
