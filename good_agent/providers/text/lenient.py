"""Lenient JSON decoding: strict JSON, then Python literals, then json-repair.

``json_repair`` is an optional dependency; without it near-JSON that is not a
Python literal is simply not decoded. Over-deep or very large input skips the
slow, recursive fallbacks, so every path here is bounded. A repair never makes
a value out of an ellipsis (``...`` or ``…`` outside a string): that is a
placeholder in prose, not an argument.
"""

from __future__ import annotations

import json
import re
from types import ModuleType
from typing import Any

import pydantic_core

from good_agent.providers.text.literals import python_literal
from good_agent.providers.text.scanner import MAX_DEPTH, nesting_depth

_json_repair: ModuleType | None
try:
    import json_repair as _json_repair
except ImportError:  # pragma: no cover - depends on the environment
    _json_repair = None

_QUOTE_OR_ELLIPSIS = re.compile(r'"|\.\.\.|…')

REPAIR_LIMIT = 32_768
"""Longest text (in characters) handed to json-repair, whose cost per character is high."""


def strict_json(text: str) -> tuple[bool, Any]:
    """Decode strict JSON: ``(True, value)`` or ``(False, None)``; never raises."""
    try:
        return True, pydantic_core.from_json(text, cache_strings=False)
    except (ValueError, RecursionError):
        return False, None
    except TypeError:
        # Text that cannot be encoded as UTF-8 (lone surrogates): the standard
        # library decodes it. Surrogate-free text never gets here.
        return stdlib_json(text)


def stdlib_json(text: str) -> tuple[bool, Any]:
    """Decode strict JSON with the standard library; never raises."""
    try:
        return True, json.loads(text)
    except (ValueError, RecursionError):
        return False, None


def lenient_json(text: str, *, repair: bool = True) -> tuple[bool, Any]:
    """Decode JSON or near-JSON (trailing commas, single quotes, ``True``/``None``).

    Returns ``(True, value)`` or ``(False, None)``; never raises. Repairs are
    accepted only when they produce an object or an array; ``repair=False``
    stops after the Python-literal step (text found outside a tool-call marker
    must be written correctly to count as a call).
    """
    stripped = text.strip()
    if not stripped:
        return False, None
    ok, value = strict_json(stripped)
    if ok:
        return True, value
    if nesting_depth(stripped) > MAX_DEPTH:
        return False, None
    ok, value = python_literal(stripped)
    if ok and isinstance(value, dict | list):
        return True, value
    return _repair(stripped) if repair else (False, None)


def _repair(text: str) -> tuple[bool, Any]:
    if _json_repair is None or len(text) > REPAIR_LIMIT or _has_bare_ellipsis(text):
        return False, None
    try:
        value = _json_repair.loads(text)
    except Exception:  # a failed repair only means the text is not JSON
        return False, None
    if not isinstance(value, dict | list):
        return False, None
    try:
        repaired = json.dumps(value)
    except (ValueError, TypeError, RecursionError):
        return False, None
    if _weight(repaired) < _weight(text) or any(
        repaired.count(bracket) < text.count(bracket) for bracket in "[]{}"
    ):
        return False, None
    return True, value


def _has_bare_ellipsis(text: str) -> bool:
    """Whether ``text`` has ``...`` or ``…`` outside double-quoted strings.

    One pass: each step jumps to the next quote or ellipsis, and a string is
    skipped to its closing quote (backslash escapes honoured). Single quotes
    are not tracked, so an ellipsis in a single-quoted string counts as bare:
    such text is refused a repair, never given a wrong one.
    """
    i = 0
    while True:
        found = _QUOTE_OR_ELLIPSIS.search(text, i)
        if found is None:
            return False
        if found.group() != '"':
            return True
        i = _string_end(text, found.end())


def _string_end(text: str, i: int) -> int:
    """Index just past the closing quote of a string whose body starts at ``i``."""
    end = len(text)
    while i < end:
        quote = text.find('"', i)
        if quote < 0:
            return end
        backslashes = 0
        j = quote - 1
        while j >= i and text[j] == "\\":
            backslashes += 1
            j -= 1
        if backslashes % 2 == 0:
            return quote + 1
        i = quote + 1
    return end


_INSIGNIFICANT = str.maketrans("", "", " \t\r\n\"',:")


def _weight(text: str) -> int:
    """Count characters other than whitespace, quotes, commas and colons.

    A repair that lowers this count (or the count of any bracket character)
    dropped words, numbers or brackets from the model's text; such repairs are
    refused so nothing is lost silently.
    """
    return len(text.translate(_INSIGNIFICANT))


def dumps(value: Any) -> str | None:
    """Serialize to compact JSON text (UTF-8, no spaces), or return None if it cannot be."""
    try:
        return pydantic_core.to_json(value).decode()
    except (ValueError, TypeError, RecursionError):
        pass
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (ValueError, TypeError, RecursionError):
        return None
