"""Turning decoded JSON values into tool calls.

Accepted shapes, in both bare and explicit (inside a tool-call marker) form:

* ``{"name": ..., "arguments" | "parameters": {...}}``, arguments possibly a JSON string;
* OpenAI shape ``{"type": "function", "function": {"name": ..., "arguments": ...}}``;
* an envelope ``{"tool_calls": [...], "content": ...}``;
* the seed payload ``{"tool": ..., "arguments": ..., "scratchpad": ...}``;
* a final answer ``{"answer": "...", "scratchpad": ...}`` (content, no call);
* a non-empty list of call objects.

Bare values (found in plain text) must match a shape exactly, with no unknown
keys and with ``arguments``/``parameters`` present, so ordinary JSON in an answer
stays content; their string arguments are decoded without json-repair, and a call
whose arguments hold a placeholder (``"..."``, ``"<value>"``, see
`.placeholders`) makes the whole value content: prose showing what a call
would look like. Inside an explicit marker, ``arguments`` may be missing (``{}``)
and unknown keys are ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from good_agent.providers.text.lenient import dumps, lenient_json
from good_agent.providers.text.placeholders import has_placeholder, holds_placeholder

_CALL_KEYS = frozenset({"name", "arguments", "parameters", "id", "type"})
_OPENAI_KEYS = frozenset({"id", "type", "function", "index"})
_ENVELOPE_KEYS = frozenset({"tool_calls", "content", "role"})
_SEED_KEYS = frozenset({"tool", "arguments", "scratchpad"})
_ANSWER_KEYS = frozenset({"answer", "scratchpad"})
_NAME_LIMIT = 256
_NOT_IN_NAMES = re.compile(r"[\"'{}\[\]\n]")


@dataclass(slots=True)
class CallSpec:
    """A decoded call before it gets its id: ``arguments`` is None when invalid."""

    name: str
    arguments: dict[str, Any] | None
    raw_arguments: str
    error: str | None = None


@dataclass(slots=True)
class Decoded:
    """What one region of text decoded to: calls, plus any answer text or reasoning."""

    calls: tuple[CallSpec, ...] = ()
    content: str = ""
    reasoning: str = ""


def make_call(name: str, arguments: Any, *, repair: bool = True) -> CallSpec:
    """Build a call from a name and arguments given as an object, a JSON string or None.

    ``repair=False`` decodes string arguments without json-repair (see
    `lenient_json`).
    """
    if arguments is None:
        return CallSpec(name, {}, "{}")
    if isinstance(arguments, str):
        if not arguments.strip():
            return CallSpec(name, {}, "{}")
        ok, value = lenient_json(arguments, repair=repair)
        if not ok or not isinstance(value, dict):
            return error_call(name, arguments, "the arguments are not a JSON object")
        arguments = value
    if not isinstance(arguments, dict):
        reason = f"the arguments must be a JSON object, got {type(arguments).__name__}"
        return error_call(name, dumps(arguments) or "", reason)
    if not arguments:
        return CallSpec(name, arguments, "{}")
    text = dumps(arguments)
    if text is None:
        return error_call(name, "", "the arguments could not be serialized as JSON")
    return CallSpec(name, arguments, text)


def error_call(name: str, raw: str, reason: str) -> CallSpec:
    """Build a call whose arguments could not be decoded, keeping the raw text."""
    return CallSpec(name, None, raw, f"{reason}; send the arguments as a single JSON object")


def calls_from_value(value: Any, *, explicit: bool) -> Decoded | None:
    """Interpret a decoded JSON value as tool calls, a final answer, or nothing (None)."""
    if isinstance(value, list):
        return _call_list(value, explicit=explicit)
    if not isinstance(value, dict):
        return None
    if "tool_calls" in value and (explicit or value.keys() <= _ENVELOPE_KEYS):
        items = value["tool_calls"]
        decoded = _call_list(items, explicit=explicit) if isinstance(items, list) else None
        content = value.get("content")
        if decoded is None:
            return None
        return Decoded(decoded.calls, content if isinstance(content, str) else "")
    if "answer" in value and value.keys() <= _ANSWER_KEYS:
        answer = value["answer"]
        if not isinstance(answer, str):
            return None
        return Decoded((), answer, _reasoning(value.get("scratchpad")))
    if "tool" in value and (explicit or value.keys() <= _SEED_KEYS):
        name = _name(value["tool"])
        if name is None or (not explicit and "arguments" not in value):
            return None
        seed = _make(name, value.get("arguments"), explicit=explicit)
        if seed is None:
            return None
        return Decoded((seed,), "", _reasoning(value.get("scratchpad")))
    call = _call_object(value, explicit=explicit)
    return Decoded((call,)) if call is not None else None


def recover_name(text: str) -> str | None:
    """Find the value of the first ``"name"`` key in broken JSON text, if any."""
    for key in ('"name"', "'name'"):
        start = text.find(key)
        if start < 0:
            continue
        i = start + len(key)
        i = _skip_space(text, i)
        if i >= len(text) or text[i] != ":":
            continue
        i = _skip_space(text, i + 1)
        if i >= len(text) or text[i] not in "\"'":
            continue
        quote = text[i]
        end = text.find(quote, i + 1, i + 2 + _NAME_LIMIT)
        if end < 0:
            continue
        return _name(text[i + 1 : end])
    return None


def _skip_space(text: str, i: int) -> int:
    limit = min(len(text), i + 64)
    while i < limit and text[i] in " \t\r\n":
        i += 1
    return i


def _call_list(items: list[Any], *, explicit: bool) -> Decoded | None:
    calls: list[CallSpec] = []
    for item in items:
        call = _call_object(item, explicit=explicit) if isinstance(item, dict) else None
        if call is None:
            return None
        calls.append(call)
    return Decoded(tuple(calls)) if calls else None


def _call_object(obj: dict[str, Any], *, explicit: bool) -> CallSpec | None:
    function = obj.get("function")
    if isinstance(function, dict) and (explicit or obj.keys() <= _OPENAI_KEYS):
        obj = function
    name = _name(obj.get("name"))
    if name is None:
        return None
    has_arguments = "arguments" in obj or "parameters" in obj
    if not explicit and (not has_arguments or not obj.keys() <= _CALL_KEYS):
        return None
    arguments = obj["arguments"] if "arguments" in obj else obj.get("parameters")
    return _make(name, arguments, explicit=explicit)


def _make(name: str, arguments: Any, *, explicit: bool) -> CallSpec | None:
    """A call, or None for a bare one whose arguments are (or hold) a placeholder."""
    if explicit:
        return make_call(name, arguments)
    if has_placeholder(arguments):
        return None
    call = make_call(name, arguments, repair=False)
    if isinstance(arguments, str) and (
        has_placeholder(call.arguments) or (call.error is not None and holds_placeholder(arguments))
    ):
        return None
    return call


def _name(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    name = value.strip()
    if not name or len(name) > _NAME_LIMIT or _NOT_IN_NAMES.search(name):
        return None
    return name


def _reasoning(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return dumps(value) or ""
