"""Decoding of tool-call argument text, with errors written for the model."""

from __future__ import annotations

import json
from typing import Any

from good_agent.providers.types import JSONDict
from good_agent.types.messages import ToolCall


def decode_arguments(raw: str | JSONDict | None) -> tuple[JSONDict | None, str | None]:
    """Decode a tool call's raw arguments into a JSON object.

    Returns ``(arguments, None)`` on success and ``(None, message)`` when the text
    is not a JSON object. An empty string or ``None`` means "no arguments" and
    decodes to ``{}``; anything else that fails is reported, never replaced by ``{}``.
    """
    if raw is None:
        return {}, None
    if isinstance(raw, dict):
        return raw, None
    text = raw.strip()
    if not text:
        return {}, None
    try:
        value: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, (
            f"the arguments are not valid JSON ({exc.msg} at character {exc.pos}); "
            "send a single JSON object"
        )
    if not isinstance(value, dict):
        return None, f"the arguments must be a JSON object, got {type(value).__name__}"
    return value, None


def parsed_call(call_id: str, name: str, raw: str | JSONDict | None) -> ToolCall:
    """Build a `ToolCall`, decoding ``raw`` and
    keeping it (with the problem) when invalid."""
    arguments, error = decode_arguments(raw)
    raw_text = raw if isinstance(raw, str) else json.dumps(raw if raw is not None else {})
    return (
        invalid_call(call_id, name, raw_text, error)
        if arguments is None
        else ToolCall(id=call_id, name=name, arguments=arguments, raw_arguments=raw_text)
    )


def invalid_call(
    call_id: str, name: str, raw: str, error: str | None, problems: list[str] | None = None
) -> ToolCall:
    """A call whose arguments could not be used: no arguments, the raw text kept,
    ``error`` for the model and each problem listed (``[error]`` by default)."""
    return ToolCall(
        id=call_id,
        name=name,
        raw_arguments=raw,
        arguments_error=error,
        arguments_problems=problems or ([error] if error else []),
    )


def with_call_changes(call: ToolCall, **changes: Any) -> ToolCall:
    """``call`` with some fields changed (a new call: tool calls are frozen)."""
    fields = {
        "id": call.id,
        "name": call.name,
        "arguments": call.arguments,
        "raw_arguments": call.raw_arguments,
        "arguments_error": call.arguments_error,
        "arguments_problems": call.arguments_problems,
    }
    fields.update(changes)
    return ToolCall(**fields)
