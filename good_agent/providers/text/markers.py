"""Markers: how a tool-call region opens, where it ends, and how it decodes.

A `Marker` is data: an opening (see `.openings`), either an end
literal (``until``) or a bracketed value after the opening, an optional value
separator (``;`` for Llama 3), and a ``decode`` function that turns the finished
`Region` into calls, or returns None to leave the region in the content.
A `MarkerTable` compiles a set of markers into one search.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from good_agent.providers.text.openings import (
    Element,
    RegexBuilder,
    first_chars,
    head_source,
    max_length,
    prefix_source,
)
from good_agent.providers.text.shapes import Decoded


@dataclass(slots=True)
class ValueSpan:
    """One bracketed value inside a region (read-only by convention: the parser's
    per-call carriers are plain slotted classes, a third cheaper to build than frozen ones).

    ``decoded`` holds ``(value,)`` when the value was already decoded as strict
    JSON while finding its end; ``depth`` is its bracket nesting (-1: unknown);
    ``complete`` is False when the text ended inside the value.
    """

    text: str
    decoded: tuple[Any] | None = None
    depth: int = -1
    complete: bool = True


@dataclass(slots=True)
class Region:
    """The text of one candidate tool-call region, split into its parts.

    ``text`` is everything, kept verbatim for the content if decoding fails;
    ``body`` is what lies between the opening and the end literal (``until``
    regions); ``closed`` says whether the end literal or closing bracket was seen.
    """

    text: str
    opening: str
    name: str | None = None
    values: tuple[ValueSpan, ...] = ()
    body: str = ""
    closed: bool = True


Decoder = Callable[[Region], Decoded | None]
"""Decodes a finished region; None leaves the region's text in the content."""


def _no_decode(region: Region) -> Decoded | None:
    return None


@dataclass(frozen=True)
class Marker:
    """A kind of region: its opening, how it ends, and how it decodes.

    With ``until`` set, the region runs to that literal (or the end of the
    text). Otherwise the opening must contain an `Open`
    element, and the region is the bracketed value starting there, plus further
    values while ``separator`` follows, plus ``closing`` if that literal follows
    (after at most 16 whitespace characters). Other text after the value makes
    the whole body up to ``closing`` one region, unless ``closing_optional``:
    then the region ends with its value. ``reasoning`` regions stream as
    reasoning. ``requires`` (``until`` regions only) lists words one of which
    the body must contain to be worth decoding; a body with none of them stays
    content without a call to ``decode`` (a cheap rejection of look-alikes).
    """

    name: str
    opening: tuple[Element, ...]
    decode: Decoder = _no_decode
    until: str | None = None
    separator: str | None = None
    closing: str | None = None
    closing_optional: bool = False
    reasoning: bool = False
    json_values: bool = True
    requires: tuple[str, ...] = ()


@dataclass(slots=True)
class Match:
    """A complete opening found by a `MarkerTable`."""

    marker: Marker
    start: int
    end: int
    value_start: int
    name: str | None


@dataclass
class MarkerTable:
    """Markers compiled into one regex, plus the look-back needed when streaming."""

    markers: tuple[Marker, ...]
    regex: re.Pattern[str] = field(init=False)
    window: int = field(init=False)
    _groups: list[tuple[Marker, str, list[str], list[str]]] = field(init=False)
    _starters: re.Pattern[str] = field(init=False)
    starter_chars: frozenset[str] = field(init=False)
    """Every character an opening can start with."""
    _partial: re.Pattern[str] = field(init=False)
    _heads: re.Pattern[str] = field(init=False)
    _by_group: dict[str, tuple[Marker, list[str], list[str]]] = field(init=False)

    def __post_init__(self) -> None:
        parts: list[str] = []
        self._groups = []
        starters: set[str] = set()
        for index, marker in enumerate(self.markers):
            builder = RegexBuilder(f"m{index}_")
            source = builder.build(marker.opening)
            group = f"m{index}"
            parts.append(f"(?P<{group}>{source})")
            self._groups.append((marker, group, builder.value_groups, builder.name_groups))
            starters |= first_chars(marker.opening)
        self.regex = re.compile("|".join(parts))
        self._heads = re.compile("|".join(head_source(marker.opening) for marker in self.markers))
        partials = "|".join(prefix_source(marker.opening) for marker in self.markers)
        self._partial = re.compile(f"(?:{partials})")
        self.window = max(max_length(marker.opening) for marker in self.markers)
        self._starters = re.compile("[" + "".join(re.escape(c) for c in sorted(starters)) + "]")
        self.starter_chars = frozenset(starters)
        # The outermost group closes last, so ``lastgroup`` names the marker.
        self._by_group = {
            group: (marker, values, names) for marker, group, values, names in self._groups
        }

    def search(self, text: str, start: int) -> Match | None:
        """Find the first complete opening in ``text[start:]``."""
        heads = self._heads
        regex = self.regex
        while True:
            head = heads.search(text, start)
            if head is None:
                return None
            found = regex.match(text, head.start())
            if found is not None:
                break
            start = head.start() + 1
        marker, value_groups, name_groups = self._by_group[found.lastgroup or ""]
        value_start = found.end()
        for value_group in value_groups:
            if found.start(value_group) >= 0:
                value_start = found.start(value_group)
                break
        name = None
        for name_group in name_groups:
            if found.start(name_group) >= 0:
                name = found.group(name_group)
                break
        return Match(marker, found.start(), found.end(), value_start, name)

    def may_open(self, text: str) -> bool:
        """Whether ``text`` contains a character that can start an opening."""
        return self._starters.search(text) is not None

    def plain(self, text: str) -> bool:
        """Whether ``text``, read where no opening is pending, is content only: it
        holds no complete opening and does not end in the start of one (`search`
        finds nothing and `hold_from` holds nothing back)."""
        if self._starters.search(text) is None:
            return True
        return self._heads.search(text) is None and self.hold_from(text, 0) == len(text)

    def could_grow(self, text: str, start: int) -> bool:
        """Whether all of ``text[start:]`` is (a prefix of) some opening."""
        if len(text) - start > self.window:
            return False
        return self._partial.fullmatch(text, start) is not None

    def hold_from(self, text: str, start: int) -> int:
        """Return where the text that could still grow into an opening begins.

        Only the last `window` characters are examined; returns
        ``len(text)`` when nothing needs holding back.
        """
        lower = max(start, len(text) - self.window)
        for found in self._starters.finditer(text, lower):
            if self._partial.fullmatch(text, found.start()):
                return found.start()
        return len(text)


def compile_markers(markers: Sequence[Marker]) -> MarkerTable:
    """Compile markers (earlier ones win when two openings start at one place)."""
    return MarkerTable(tuple(markers))
