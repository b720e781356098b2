"""A single-pass bracket scanner aware of quoted strings and escapes.

It finds where a bracketed value (JSON, a Python literal or a list of Python
calls) ends, across any number of chunks, without re-reading earlier text.
``"`` and ``'`` both open strings; ``{[(`` and ``}])`` share one depth counter.
"""

from __future__ import annotations

import re

import pydantic_core

_DOUBLE_BODY = r'[^"\\]*+(?:\\[\s\S][^"\\]*+)*+'
_SINGLE_BODY = r"[^'\\]*+(?:\\[\s\S][^'\\]*+)*+"
_SKIP = re.compile(r"""(?:[^\[\](){}"']++|""" + f'"{_DOUBLE_BODY}"|' + f"'{_SINGLE_BODY}')*+")
_IN_DOUBLE = re.compile(_DOUBLE_BODY)
_IN_SINGLE = re.compile(_SINGLE_BODY)
_OPEN_RUN = re.compile(r"[\[({]+")
_CLOSE_RUN = re.compile(r"[\])}]+")

MAX_DEPTH = 64
"""Nesting deeper than this is never handed to a recursive lenient decoder."""

JSON_DEPTH = 200
"""Strict JSON values nested deeper than about this are not decoded, one-shot or streamed.

One limit for every path keeps streaming and one-shot results identical at any
depth: such a value is treated like any text that is not JSON.
"""


class BracketScanner:
    """Incremental scanner for one bracketed value starting at an opening bracket."""

    __slots__ = ("_escape", "_quote", "depth", "max_depth")

    def __init__(self) -> None:
        self.depth = 0
        self.max_depth = 0
        self._quote = ""
        self._escape = False

    def feed(self, text: str, start: int = 0) -> int:
        """Scan ``text[start:]``; return the index just past the value, or -1.

        The first character ever fed must be the value's opening bracket. After
        -1, feed the next chunk; the scanner remembers strings and escapes.
        """
        end = len(text)
        i = start
        if self._escape:
            if i >= end:
                return -1
            i += 1
            self._escape = False
        while True:
            if self._quote:
                body = (_IN_DOUBLE if self._quote == '"' else _IN_SINGLE).match(text, i)
                j = body.end() if body is not None else i
                if j >= end:
                    return -1
                if text[j] == "\\":
                    self._escape = True
                    return -1
                self._quote = ""
                i = j + 1
                continue
            skipped = _SKIP.match(text, i)
            j = skipped.end() if skipped is not None else i
            if j >= end:
                return -1
            char = text[j]
            if char == '"' or char == "'":
                self._quote = char
                i = j + 1
            elif char in "[({":
                run = _OPEN_RUN.match(text, j)
                stop = run.end() if run is not None else j + 1
                self.depth += stop - j
                if self.depth > self.max_depth:
                    self.max_depth = self.depth
                i = stop
            else:
                run = _CLOSE_RUN.match(text, j)
                stop = run.end() if run is not None else j + 1
                if stop - j >= self.depth:
                    result = j + self.depth
                    self.depth = 0
                    return result
                self.depth -= stop - j
                i = stop


def json_depth_ok(chunk: str) -> bool:
    """Whether a JSON value's text is within the strict-JSON nesting limit.

    Deterministic in the text alone (never in the caller's stack depth), so the
    one-shot and streaming paths decide alike. Text with at most
    `JSON_DEPTH` opening brackets always passes (counting runs at C
    speed); longer text is checked by pydantic-core's JSON parser, whose fixed
    nesting limit is about `JSON_DEPTH` levels, and by an exact scan when
    that parser stops early for another reason.
    """
    if chunk.count("{") + chunk.count("[") <= JSON_DEPTH:
        return True
    try:
        pydantic_core.from_json(chunk, cache_strings=False)
    except ValueError as exc:
        if "recursion limit" in str(exc):
            return False
        return nesting_depth(chunk) <= JSON_DEPTH
    except TypeError:  # lone surrogates: not UTF-8 encodable
        return nesting_depth(chunk) <= JSON_DEPTH
    return True


def nesting_depth(text: str) -> int:
    """Return the deepest bracket nesting in ``text``, ignoring quoted strings.

    Linear time; used to refuse input too deep for recursive decoders.
    """
    deepest = 0
    i = 0
    while i < len(text):
        scanner = BracketScanner()
        found = _OPEN_RUN.search(text, i)
        if found is None:
            break
        end = scanner.feed(text, found.start())
        deepest = max(deepest, scanner.max_depth)
        if end < 0:
            break
        i = end
    return deepest
