"""Shapes a tool may return or raise a revealed secret in, and a deep text of
everything an observer can read from an object (for the canary tests)."""

from __future__ import annotations

import dataclasses
import functools
import traceback
from collections import namedtuple
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from good_agent import ToolError


class Inner(BaseModel):
    """A nested model."""

    note: str
    raw: bytes = b""


class Outer(BaseModel):
    """A model holding a model, a list and a dict."""

    inner: Inner
    tags: list[str]
    by_key: dict[str, int]


@dataclasses.dataclass(frozen=True)
class Record:
    """A dataclass."""

    token: str


Pair = namedtuple("Pair", "name value")


class Hidden:
    """An object whose str/repr show a secret kept outside ``__dict__``."""

    __slots__ = ("_secret",)

    def __init__(self, secret: str) -> None:
        self._secret = secret

    def __str__(self) -> str:
        return f"Hidden({self._secret})"

    __repr__ = __str__


RETURNED: dict[str, Callable[[str], Any]] = {
    "plain string": lambda s: f"debug: key={s}",
    "tuple": lambda s: ("ok", f"key={s}"),
    "set": lambda s: {"ok", s},
    "frozenset": lambda s: frozenset({s}),
    "list": lambda s: [1, [2, [f"deep {s}"]]],
    "dict key": lambda s: {s: "value"},
    "dict key in tuple": lambda s: {("user", s): 1},
    "nested model": lambda s: Outer(inner=Inner(note=f"n {s}"), tags=[s], by_key={s: 1}),
    "model bytes field": lambda s: Inner(note="x", raw=s.encode()),
    "bytes": lambda s: b"prefix " + s.encode() + b" suffix",
    "bytearray": lambda s: bytearray(s.encode()),
    "dataclass": lambda s: Record(token=s),
    "namedtuple": lambda s: Pair("key", s),
    "object with __str__": lambda s: Hidden(s),
}
"""Tool return values that carry the secret ``s``."""


class CustomStrError(Exception):
    """An exception whose ``__str__`` rebuilds the secret from hidden state."""

    def __init__(self, holder: Hidden) -> None:
        super().__init__("custom")
        self._holder = holder

    def __str__(self) -> str:
        return f"failed with {self._holder}"


class ClosureStrError(Exception):
    """An exception whose ``__str__`` reads the secret from its class, not the instance."""

    secret = ""

    def __str__(self) -> str:
        return f"denied for {type(self).secret}"


def _chained_cause(s: str) -> BaseException:
    error = RuntimeError("request failed")
    error.__cause__ = ConnectionError(f"Authorization: Bearer {s}")
    return error


def _chained_context(s: str) -> BaseException:
    try:
        raise KeyError(s)
    except KeyError:
        try:
            raise ValueError("lookup failed") from None
        except ValueError as error:
            error.__suppress_context__ = False
            return error


@functools.cache
def _closure_class(s: str) -> type[ClosureStrError]:
    return type("ClosureStrError", (ClosureStrError,), {"secret": s})


def _closure(s: str) -> BaseException:
    return _closure_class(s)()


def _with_note(s: str) -> BaseException:
    error = ValueError("bad")
    error.add_note(f"while using {s}")
    return error


def _group(s: str) -> BaseException:
    return ExceptionGroup("several", [ValueError(s), OSError(2, "missing", f"/k/{s}")])


RAISED: dict[str, Callable[[str], BaseException]] = {
    "string arg": lambda s: PermissionError(f"403 for {s}"),
    "dict arg": lambda s: ValueError({"token": s}),
    "bytes and int args": lambda s: ValueError(403, s.encode()),
    "tuple arg": lambda s: RuntimeError(("auth", s)),
    "key error": lambda s: KeyError(s),
    "cause": _chained_cause,
    "context": _chained_context,
    "custom __str__": lambda s: CustomStrError(Hidden(s)),
    "__str__ from class state": _closure,
    "oserror filename": lambda s: FileNotFoundError(2, "No such file", f"/secrets/{s}.pem"),
    "oserror filename2": lambda s: OSError(17, "exists", "/a", None, f"/b/{s}"),
    "note": _with_note,
    "exception group": _group,
    "tool error": lambda s: ToolError(f"upstream refused key {s}"),
    "attribute": lambda s: _attributed(s),
}
"""Exceptions a tool raises that carry the secret ``s``."""


def _attributed(s: str) -> BaseException:
    error = ConnectionError("refused")
    error.request_headers = {"Authorization": s}  # type: ignore[attr-defined]
    return error


def deep_text(value: Any, _seen: set[int] | None = None) -> str:
    """Everything an observer can read from ``value``: its repr, and for exceptions
    the formatted traceback, arguments, attributes and chain."""
    seen = _seen if _seen is not None else set()
    if id(value) in seen:
        return ""
    seen.add(id(value))
    parts = [repr(value)]
    if isinstance(value, BaseException):
        parts.append("".join(traceback.format_exception(value)))
        parts.append(repr(value.args))
        for name in ("filename", "filename2", "strerror"):
            parts.append(repr(getattr(value, name, None)))
        parts.extend(deep_text(v, seen) for v in vars(value).values())
        parts.extend(deep_text(v, seen) for v in value.args)
        for linked in (value.__cause__, value.__context__):
            if linked is not None:
                parts.append(deep_text(linked, seen))
        if isinstance(value, BaseExceptionGroup):
            parts.extend(deep_text(e, seen) for e in value.exceptions)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        parts.extend(deep_text(getattr(value, f.name), seen) for f in dataclasses.fields(value))
    elif isinstance(value, BaseModel):
        parts.append(value.model_dump_json())
        parts.extend(deep_text(getattr(value, name), seen) for name in type(value).model_fields)
    elif isinstance(value, dict):
        parts.extend(deep_text(k, seen) + deep_text(v, seen) for k, v in value.items())
    elif isinstance(value, list | tuple | set | frozenset):
        parts.extend(deep_text(v, seen) for v in value)
    return "\n".join(parts)
