"""The words of a problem found by checking a value against a JSON schema.

Shared by the two readings of the library's errors (``schema_validation`` and
``schema_evaluation``), so a problem is worded the same whichever reads it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

RANK = {
    "type": 0,
    "enum": 1,
    "const": 1,
    "falseSchema": 1,
    "required": 4,
    "additionalProperties": 4,
}
"""Of the errors one schema gives for one value, only the first kind in this order
is told (a value of the wrong type is not also told its bounds); a kind not named
here ranks 2."""

BOUNDS = {
    "minimum": "at least {}",
    "maximum": "at most {}",
    "exclusiveMinimum": "greater than {}",
    "exclusiveMaximum": "less than {}",
    "multipleOf": "a multiple of {}",
    "minLength": "at least {} characters",
    "maxLength": "at most {} characters",
    "minItems": "at least {} items",
    "maxItems": "at most {} items",
    "minProperties": "at least {} properties",
    "maxProperties": "at most {} properties",
}
"""What a bound keyword asks of a value, given the bound."""

_ENCODE_TEXT: Callable[[str], str] = json.encoder.encode_basestring
_SCALAR_TEXT = {True: "true", False: "false", None: "null"}


def rank(keyword: str) -> int:
    """Where errors of ``keyword`` come in `RANK` (lower is told first)."""
    return RANK.get(keyword, 2)


def describe(value: Any) -> str:
    """Show a given value briefly, for an error message (as JSON)."""
    kind = type(value)
    if kind is str:
        text = _ENCODE_TEXT(value)
    elif kind is int:
        text = int.__repr__(value)
    elif value is None or kind is bool:
        text = _SCALAR_TEXT[value]
    else:
        text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= 60 else text[:57] + "..."


def path_text(where: tuple[Any, ...]) -> str:
    """A place in the arguments as text: ``a.b[0]``, or ``arguments`` for the whole."""
    text = ""
    for part in where:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "arguments"


def kind_of(value: Any) -> str:
    """The JSON kind of ``value`` (``number`` for any int or float)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__
