"""Reading a client's JSON body: valid JSON, bounded nesting, values an upstream can take.

The body is parsed with pydantic-core's JSON parser (jiter), which refuses in
linear time what would break later stages: nesting deeper than
`MAX_BODY_DEPTH` levels (a 10,000-deep body is a 400, not a ``RecursionError``),
``NaN`` / ``Infinity``, and strings holding a lone UTF-16 surrogate (``"\\ud800"``),
which no upstream can be sent. Each refusal is a 400 that says what was wrong and,
where it can be found, which field holds it. Numbers too large for a float
(``1e999``) are refused as well, and so are integers too long to read (more
digits than `sys.get_int_max_str_digits` allows: a 5,000-digit
``max_tokens`` is a 400 naming ``max_tokens``).
"""

from __future__ import annotations

import json
import math
from collections.abc import AsyncIterable, Callable
from functools import partial
from typing import Any

from pydantic_core import from_json
from starlette.requests import Request

from good_agent.server.common.errors import HTTPError, bad_request

MAX_BODY_DEPTH = 200
"""The deepest nesting of arrays and objects a request body may have (jiter's limit)."""

_RULE = "text must be valid Unicode and numbers finite and readable"


_NUMBER_SHAPES = bytes.maketrans(b"123456789E", b"000000000e")
"""Each digit as ``0`` and ``E`` as ``e``: a number's text as its shape (``0``, ``e`` and
``+`` mean only that in it; every other byte is left as it is, and is none of them)."""

_MANY_DIGITS = b"0" * 200


def maybe_infinite(data: bytes) -> bool:
    """Whether ``data`` may hold the text of a JSON number too large for a float: one
    is either written with an exponent of three digits or more, or has more than 200
    digits before its exponent (of two digits at most: below 10**299 otherwise). A
    body for which this is false holds no infinite number, so its parsed value is not
    searched for one.

    The regular expression ``[0-9][eE]\\+?[0-9]{3}|[0-9]{200}`` says the same; the
    text mapped to its number shapes (one ``bytes.translate``) and searched for
    ``0e000``, ``0e+000`` and 200 ``0`` takes a small fraction of its time, which
    tries a match at every digit."""
    shapes = data.translate(_NUMBER_SHAPES)
    return b"0e000" in shapes or b"0e+000" in shapes or _MANY_DIGITS in shapes


async def read_json_body(request: Request, limit: int) -> Any:
    """The JSON body of ``request``, at most ``limit`` bytes long (413 beyond), parsed
    with `parse_body`."""
    declared = request.headers.get("content-length")
    too_large = partial(_body_too_large, limit)
    return parse_body(await read_at_most(request.stream(), declared, limit, too_large))


def _body_too_large(limit: int) -> HTTPError:
    return HTTPError(413, f"the request body exceeds {limit} bytes", code="request_too_large")


async def read_at_most(
    chunks: AsyncIterable[bytes],
    declared: str | None,
    limit: int,
    too_large: Callable[[], HTTPError],
) -> bytes:
    """The bytes of ``chunks``, at most ``limit`` of them; the error ``too_large()``
    makes is raised as soon as the declared length (a ``Content-Length`` value) or the
    bytes read pass it (it is made only then: most bodies fit)."""
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise too_large()
    parts: list[bytes] = []
    size = 0
    async for chunk in chunks:
        size += len(chunk)
        if size > limit:
            raise too_large()
        parts.append(chunk)
    return b"".join(parts)


def parse_body(data: bytes) -> Any:
    """The JSON value in ``data``; a 400 naming the problem (and its field) otherwise."""
    try:
        value = from_json(data, allow_inf_nan=False)
    except ValueError as exc:
        raise _refusal(data, str(exc)) from None
    suspect = maybe_infinite(data) and _has_non_finite(value)
    where = find_unsendable(value, strings=False) if suspect else None
    if where is not None:
        raise bad_request(f"{where[0]} holds {where[1]}; {_RULE}", where[0])
    return value


def _refusal(data: bytes, reason: str) -> Exception:
    if "recursion limit" in reason:
        return bad_request(
            f"the request body is nested more than {MAX_BODY_DEPTH} levels deep ({reason})"
        )
    try:
        lenient = json.loads(data, parse_int=_integer)
    except (ValueError, RecursionError):
        return bad_request(f"the request body is not valid JSON: {reason}")
    where = find_unsendable(lenient, strings=True)
    if where is None:
        return bad_request(f"the request body is not valid JSON: {reason}")
    path, what = where
    return bad_request(f"{path} holds {what}; {_RULE}", path)


def find_unsendable(value: Any, *, strings: bool) -> tuple[str, str] | None:
    """The path and a description of the first non-finite number in ``value`` (and,
    with ``strings``, the first string holding a lone surrogate), or ``None``.

    Iterative, so any depth is safe.
    """
    stack: list[tuple[str, Any]] = [("body", value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, float):
            if not math.isfinite(item):
                return path, f"a non-finite number ({item!r})"
        elif isinstance(item, _LongInteger):
            return path, f"an integer of {len(item.lstrip('-'))} digits, too long to read"
        elif isinstance(item, str):
            if strings and not item.isascii() and _has_surrogate(item):
                return path, "a lone UTF-16 surrogate"
        elif isinstance(item, dict):
            for key, child in reversed(item.items()):
                if strings and _has_surrogate(str(key)):
                    return f"{path}.{key!a}", "a lone UTF-16 surrogate in a key"
                stack.append((f"{path}.{key}" if path != "body" else str(key), child))
        elif isinstance(item, list):
            stack.extend((f"{path}[{i}]", child) for i, child in reversed(list(enumerate(item))))
    return None


class _LongInteger(str):
    """The digits of an integer too long to convert (kept as text, to be named)."""


def _integer(digits: str) -> int | _LongInteger:
    try:
        return int(digits)
    except ValueError:  # more digits than sys.get_int_max_str_digits()
        return _LongInteger(digits)


def _has_non_finite(value: Any) -> bool:
    """Whether ``value`` holds an infinite float anywhere (a quick pass, no paths)."""
    if type(value) is not dict and type(value) is not list:
        return type(value) is float and not math.isfinite(value)
    stack = [value]
    while stack:
        item = stack.pop()
        children = item.values() if type(item) is dict else item
        for child in children:
            kind = type(child)
            if kind is float:
                if not math.isfinite(child):
                    return True
            elif kind is dict or kind is list:
                stack.append(child)
    return False


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
