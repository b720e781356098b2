"""Streaming whitespace trimming with the same result as ``str.strip``.

Leading whitespace is dropped, trailing whitespace is held back until more text
arrives (and dropped at the end), so the emitted pieces always concatenate to
the stripped whole. With a separator, each segment is stripped on its own and
non-empty segments are joined by the separator. A `Trimmer` made with
``trim=False`` passes text through unchanged (the pieces concatenate to the whole).
"""

from __future__ import annotations


class Trimmer:
    """Trims a stream of text pieces, segment by segment."""

    __slots__ = ("_emitted", "_hold", "_open", "_separator", "_trim")

    def __init__(self, separator: str = "", *, trim: bool = True) -> None:
        self._separator = separator
        self._trim = trim
        self._emitted = False
        self._open = False
        self._hold: list[str] = []

    @property
    def emitted(self) -> bool:
        """Whether any non-whitespace text has been emitted."""
        return self._emitted

    def push(self, text: str) -> str:
        """Add text to the current segment; return what can be emitted now."""
        if not self._trim:
            if text:
                self._emitted = True
            return text
        stripped = text.rstrip()
        if not stripped:
            if self._open and text:
                self._hold.append(text)
            return ""
        if self._open:
            out = "".join(self._hold) + stripped if self._hold else stripped
        else:
            out = (self._separator if self._emitted else "") + stripped.lstrip()
            self._open = True
        self._hold = [text[len(stripped) :]] if len(stripped) < len(text) else []
        self._emitted = True
        return out

    def end_segment(self) -> None:
        """Close the current segment, dropping its trailing whitespace."""
        self._hold = []
        self._open = False
