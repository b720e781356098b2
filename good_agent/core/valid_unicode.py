"""Model output that is not valid Unicode: unpaired surrogates, made harmless.

JSON lets a model write ``"\\ud800"``, a lone UTF-16 surrogate, which decodes to a
Python string that cannot be encoded as UTF-8: the next request (or a log, a cache,
a served stream) would fail with ``UnicodeEncodeError``. `valid_reply`
replaces each unpaired surrogate with U+FFFD in a reply's text, reasoning and
provider items, and answers a tool call whose arguments held one with a validation
error (its arguments replaced the same way), so the tool never runs on altered data.
"""

from __future__ import annotations

import json
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any

from good_agent.models.base import ModelResponse
from good_agent.types.messages import ToolCall

REPLACEMENT = "\ufffd"
"""What an unpaired surrogate becomes."""


def _valid(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def valid_text(text: str) -> str:
    """``text`` with each unpaired surrogate replaced by U+FFFD (a pair of halves is joined)."""
    if _valid(text):
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _clean(value: Any, path: str, found: list[str]) -> Any:
    if isinstance(value, str):
        if _valid(value):
            return value
        found.append(path or "arguments")
        return valid_text(value)
    if isinstance(value, dict):
        cleaned: dict[Any, Any] = {}
        for key, item in value.items():
            name = valid_text(key) if isinstance(key, str) else key
            where = f"{path}.{name}" if path else str(name)
            if name != key:
                found.append(where)
            cleaned[name] = _clean(item, where, found)
        return cleaned
    if isinstance(value, list):
        return [_clean(item, f"{path}[{index}]", found) for index, item in enumerate(value)]
    return value


def _valid_call(call: ToolCall) -> ToolCall:
    found: list[str] = []
    arguments = _clean(call.arguments, "", found)
    raw = None if call.raw_arguments is None else valid_text(call.raw_arguments)
    name, call_id = valid_text(call.name), valid_text(call.id)
    if not found and raw == call.raw_arguments and (name, call_id) == (call.name, call.id):
        return call
    if not found and raw == call.raw_arguments:
        return call.model_copy(update={"name": name, "id": call_id})
    problem = (
        f"{', '.join(dict.fromkeys(found)) or 'arguments'}: the text holds an unpaired "
        "UTF-16 surrogate (such as \\ud800), which is not valid Unicode; send the "
        "arguments again as valid text"
    )
    return call.model_copy(
        update={
            "id": call_id,
            "name": name,
            "arguments": arguments,
            "raw_arguments": raw if raw is not None else json.dumps(arguments, ensure_ascii=False),
            "arguments_error": call.arguments_error or problem,
            "arguments_problems": [*call.arguments_problems, problem],
        }
    )


def _skip(value: Any) -> None:
    return None


_ENCODER = json.JSONEncoder(ensure_ascii=False, skipkeys=True, default=_skip)
"""Writes every string reachable through dicts and lists (keys included) as it is:
an unpaired surrogate stays in the output, and the output fails to encode."""

_C_ENCODER = (
    None
    if c_make_encoder is None
    else c_make_encoder(None, _skip, encode_basestring, None, ": ", ", ", False, True, True)
)
"""The same encoder in C, called directly (no circular-reference markers: a cycle
ends in ``RecursionError``, and the walk decides)."""


def _written(value: Any) -> str:
    if _C_ENCODER is None:
        return _ENCODER.encode(value)
    return "".join(_C_ENCODER(value, 0))


_SCALARS = frozenset({int, float, bool, type(None)})


def _plain(response: ModelResponse) -> bool:
    """True for the usual reply: ASCII text, flat arguments of ASCII text and
    scalars, no provider items (no surrogate can be there)."""
    if response.replay:
        return False
    content, reasoning = response.content, response.reasoning
    if (content is not None and not content.isascii()) or (
        reasoning is not None and not reasoning.isascii()
    ):
        return False
    for call in response.tool_calls:
        raw = call.raw_arguments
        if not (call.name.isascii() and call.id.isascii()) or (
            raw is not None and not raw.isascii()
        ):
            return False
        for key, value in call.arguments.items():
            kind = type(value)
            if type(key) is not str or not key.isascii():
                return False
            if kind is str:
                if not value.isascii():
                    return False
            elif kind not in _SCALARS:
                return False
    return True


def _surely_valid(response: ModelResponse) -> bool:
    """True when no text in ``response`` can hold an unpaired surrogate, for a reply
    that is not `_plain`: one pass in C over
    every string `valid_reply` looks at (valid non-ASCII text encodes as
    UTF-8). False asks for the walk (also when a value will not serialize, which
    the walk handles).
    """
    calls = [(c.name, c.id, c.raw_arguments, c.arguments) for c in response.tool_calls]
    try:
        text = _written([response.content, response.reasoning, calls, response.replay])
    except (TypeError, ValueError, RecursionError):
        return False
    return _valid(text)


def valid_reply(response: ModelResponse) -> ModelResponse:
    """``response`` with no unpaired surrogate left (the same object when it had none)."""
    if _plain(response) or _surely_valid(response):
        return response
    content = None if response.content is None else valid_text(response.content)
    reasoning = None if response.reasoning is None else valid_text(response.reasoning)
    calls = [_valid_call(call) for call in response.tool_calls]
    ignored: list[str] = []
    replay = [_clean(item, "", ignored) for item in response.replay]
    if (
        content == response.content
        and reasoning == response.reasoning
        and all(a is b for a, b in zip(calls, response.tool_calls, strict=True))
        and not ignored
    ):
        return response
    return ModelResponse(content, calls, response.finish_reason, response.usage, reasoning, replay)
