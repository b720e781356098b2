"""Reply text as UTF-8, whatever an upstream sent."""

from __future__ import annotations


def utf8(text: str) -> bytes:
    """``text`` as UTF-8, a lone surrogate (which an upstream may send as a JSON
    escape) replaced by U+FFFD rather than failing the reply."""
    try:
        return text.encode()
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").encode()
