"""Shape checks for provider replies: a malformed reply is an error, never a blank answer.

Codecs read replies with these helpers; a reply that is not of its API's shape (no
``choices``, a ``content`` that is not a list, a body that is not a JSON object)
raises `ReplyShapeError` naming the provider and what was wrong. The model
layer turns it into `ModelResponseError`.
"""

from __future__ import annotations

from typing import Any

from good_agent.http.wire_errors import preview as preview
from good_agent.providers.types import JSONDict

_SHOWN = 200


class ReplyShapeError(ValueError):
    """A provider reply that does not have its API's shape.

    ``provider`` names the API (``openai``, ``anthropic``...), ``problem`` says what
    was wrong in words, ``reply`` keeps the reply as received.
    """

    def __init__(self, provider: str, problem: str, reply: Any = None) -> None:
        super().__init__(f"malformed {provider} reply: {problem}")
        self.provider = provider
        self.problem = problem
        self.reply = reply


def reply_object(raw: Any, provider: str) -> JSONDict:
    """``raw`` if it is a JSON object, else a `ReplyShapeError`."""
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str | bytes):
        shown = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        problem = f"the body is not JSON: {preview(shown)!r}"
    else:
        problem = f"the body is a {type(raw).__name__}, not a JSON object"
    raise ReplyShapeError(provider, problem, raw)


def field_list(raw: JSONDict, key: str, provider: str, *, required: bool = True) -> list[Any]:
    """``raw[key]`` as a list (missing and ``None``: empty unless ``required``)."""
    value = raw.get(key)
    if value is None:
        if required:
            raise ReplyShapeError(provider, f"no '{key}' in the reply", raw)
        return []
    if not isinstance(value, list):
        kind = type(value).__name__
        raise ReplyShapeError(provider, f"'{key}' is a {kind}, not a list", raw)
    return value


def field_object(raw: JSONDict, key: str, provider: str, *, where: str = "") -> JSONDict:
    """``raw[key]`` as an object (missing and ``None``: empty)."""
    value = raw.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        place = f"{where}.{key}" if where else key
        raise ReplyShapeError(
            provider, f"'{place}' is a {type(value).__name__}, not an object", raw
        )
    return value


def items_of(values: list[Any], what: str, provider: str) -> list[JSONDict]:
    """``values`` checked to be JSON objects (``what`` names them in the error)."""
    for index, item in enumerate(values):
        if not isinstance(item, dict):
            kind = type(item).__name__
            raise ReplyShapeError(provider, f"{what}[{index}] is a {kind}, not an object", values)
    return values


def text_field(raw: JSONDict, key: str, provider: str, *, where: str) -> str | None:
    """``raw[key]`` as text or ``None``; anything else is a `ReplyShapeError`."""
    value = raw.get(key)
    if value is None or isinstance(value, str):
        return value
    kind = type(value).__name__
    raise ReplyShapeError(provider, f"'{where}.{key}' is a {kind}, not text", raw)
