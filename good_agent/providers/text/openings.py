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


@dataclass(frozen=True, slots=True)
class Lit:
    """Literal text."""

    text: str


@dataclass(frozen=True, slots=True)
class Ws:
    """Up to `WS_LIMIT` whitespace characters (possessive)."""


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


def head_source(items: Sequence[Element], size: int = 2) -> str:
    """Regex source for the first ``size`` characters of an opening (a superset).

    Used as a cheap prefilter: a search for these short heads skips text that
    cannot start an opening at C speed, and the full regex confirms candidates.
    """
    if size <= 0 or not items:
        return ""
    item, rest = items[0], items[1:]
    if isinstance(item, Lit):
        if len(item.text) >= size:
            return re.escape(item.text[:size])
        return re.escape(item.text) + head_source(rest, size - len(item.text))
    if isinstance(item, Open):
        return re.escape(item.char) + head_source(rest, size - 1)
    if isinstance(item, Ws):
        return "(?:[ \\t\\r\\n]|" + head_source(rest, 1) + ")" + head_source((), size - 1)
    if isinstance(item, Ident):
        return "[A-Za-z_]"
    if isinstance(item, Alt):
        return "(?:" + "|".join(head_source((*opt, *rest), size) for opt in item.options) + ")"
    return "(?:" + head_source((*item.items, *rest), size) + "|" + head_source(rest, size) + ")"


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


def prefix_source(items: Sequence[Element]) -> str:
    """Regex source matching exactly the texts that could still grow into an opening.

    Used with ``fullmatch`` on the end of a chunk: an empty text matches, and so
    does any text that is a prefix of some complete opening. Quantifiers here are
    bounded and the checked text is shorter than the longest opening, so the
    matching cost is bounded too.
    """
    if not items:
        return ""
    item, rest = items[0], items[1:]
    options = [""]
    if isinstance(item, Lit):
        options.extend(re.escape(item.text[:size]) for size in range(1, len(item.text)))
        options.append(re.escape(item.text) + prefix_source(rest))
    elif isinstance(item, Ws):
        options.append(f"[ \\t\\r\\n]{{0,{WS_LIMIT}}}" + prefix_source(rest))
    elif isinstance(item, Ident):
        ident = f"[A-Za-z_][A-Za-z0-9_{re.escape(item.extra)}]{{0,{item.limit}}}"
        options.append(ident + prefix_source(rest))
    elif isinstance(item, Open):
        options.append(re.escape(item.char) + prefix_source(rest))
    elif isinstance(item, Alt):
        options.extend(prefix_source((*option, *rest)) for option in item.options)
    else:
        options.append(prefix_source((*item.items, *rest)))
        options.append(prefix_source(rest))
    return "(?:" + "|".join(options) + ")"
