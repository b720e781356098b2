"""The one error type raised by the text tool-call parsers."""

from __future__ import annotations


class TextParseError(ValueError):
    """Raised when a text tool-call parser is misused.

    Parsing never fails on model output: text that is not a recognizable tool
    call stays in the content. This error is raised only for misuse, such as
    passing something other than a string, feeding a stream after
    `finish`, or asking the
    registry for a format it does not know.
    """
