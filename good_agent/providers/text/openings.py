"""A tiny pattern language for the openings of tool-call regions.

An opening (``<tool_call>``, ``[TOOL_CALLS]name[ARGS]{``, ``{"`` ...) is a short
sequence of elements with bounded repetition. From one description we build
both the regular expression that finds complete openings (possessive, bounded
quantifiers only, so it cannot backtrack catastrophically) and a checker telling
whether the end of a chunk could still grow into an opening; the two can never
disagree, which keeps streaming split-invariant.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

WS_LIMIT = 16
"""Most whitespace characters allowed between parts of an opening."""

_WS = " \t\r\n"


@dataclass(frozen=True, slots=True)
class Lit:
    """Literal text."""

    text: str


@dataclass(frozen=True, slots=True)
class Ws:
    """Up to :data:`WS_LIMIT` whitespace characters (possessive)."""


@dataclass(frozen=True, slots=True)
class Ident:
    """An identifier: ``[A-Za-z_]`` then up to ``limit`` of ``[A-Za-z0-9_]`` + ``extra``."""

    extra: str = ""
    limit: int = 63
    capture: bool = False


@dataclass(frozen=True, slots=True)
class Open:
    """The opening bracket of the value that follows; the region's value starts here."""

    char: str


@dataclass(frozen=True, slots=True)
class Alt:
    """Alternatives, tried in order."""

    options: tuple[tuple[Element, ...], ...]


@dataclass(frozen=True, slots=True)
class Opt:
    """An optional sequence (greedy)."""

    items: tuple[Element, ...]


Element = Lit | Ws | Ident | Open | Alt | Opt
"""One part of an opening."""


class RegexBuilder:
    """Builds regex source for openings, naming value and name groups uniquely."""

    def __init__(self, prefix: str) -> None:
        self._prefix = prefix
        self.value_groups: list[str] = []
        self.name_groups: list[str] = []

    def build(self, items: Sequence[Element]) -> str:
        """Return the regex source for a sequence of elements."""
        return "".join(self._element(item) for item in items)

    def _element(self, item: Element) -> str:
        if isinstance(item, Lit):
            return re.escape(item.text)
        if isinstance(item, Ws):
            return f"[ \\t\\r\\n]{{0,{WS_LIMIT}}}+"
        if isinstance(item, Ident):
            body = f"[A-Za-z_][A-Za-z0-9_{re.escape(item.extra)}]{{0,{item.limit}}}+"
            if not item.capture:
                return body
            group = f"{self._prefix}n{len(self.name_groups)}"
            self.name_groups.append(group)
            return f"(?P<{group}>{body})"
        if isinstance(item, Open):
            group = f"{self._prefix}v{len(self.value_groups)}"
            self.value_groups.append(group)
            return f"(?P<{group}>{re.escape(item.char)})"
        if isinstance(item, Alt):
            return "(?:" + "|".join(self.build(option) for option in item.options) + ")"
        return "(?:" + self.build(item.items) + ")?"


def max_length(items: Sequence[Element]) -> int:
    """Return the longest text a sequence of elements can match."""
    total = 0
    for item in items:
        if isinstance(item, Lit):
            total += len(item.text)
        elif isinstance(item, Ws):
            total += WS_LIMIT
        elif isinstance(item, Ident):
            total += 1 + item.limit
        elif isinstance(item, Open):
            total += 1
        elif isinstance(item, Alt):
            total += max(max_length(option) for option in item.options)
        else:
            total += max_length(item.items)
    return total


def first_chars(items: Sequence[Element]) -> frozenset[str]:
    """Return the characters an opening can start with (openings never start empty)."""
    item = items[0]
    if isinstance(item, Lit):
        return frozenset(item.text[:1])
    if isinstance(item, Open):
        return frozenset(item.char)
    if isinstance(item, Alt):
        return frozenset().union(*(first_chars(option) for option in item.options))
    raise ValueError("an opening must start with a literal, a bracket or alternatives")


def could_open(items: Sequence[Element], text: str, i: int = 0) -> bool:
    """Tell whether ``text[i:]`` (which runs to the end of the text) is a proper
    prefix of some opening, i.e. more text could complete it."""
    if i >= len(text):
        return True
    if not items:
        return False
    item, rest = items[0], items[1:]
    if isinstance(item, Lit):
        chunk = text[i : i + len(item.text)]
        if len(chunk) < len(item.text):
            return item.text.startswith(chunk)
        return chunk == item.text and could_open(rest, text, i + len(item.text))
    if isinstance(item, Ws):
        j = i
        while j < len(text) and j - i < WS_LIMIT and text[j] in _WS:
            j += 1
        return could_open(rest, text, j)
    if isinstance(item, Ident):
        if not _ident_start(text[i]):
            return False
        j = i + 1
        while j < len(text) and j - i <= item.limit and _ident_char(text[j], item.extra):
            j += 1
        return could_open(rest, text, j)
    if isinstance(item, Open):
        return text[i] == item.char and could_open(rest, text, i + 1)
    if isinstance(item, Alt):
        return any(could_open((*option, *rest), text, i) for option in item.options)
    return could_open((*item.items, *rest), text, i) or could_open(rest, text, i)


def _ident_start(char: str) -> bool:
    return char == "_" or ("a" <= char <= "z") or ("A" <= char <= "Z")


def _ident_char(char: str, extra: str) -> bool:
    return _ident_start(char) or "0" <= char <= "9" or char in extra
