"""Helpers shared by codecs to read the neutral (OpenAI chat) history."""

from __future__ import annotations

import json
from typing import Any

from good_agent.providers.arguments import decode_arguments
from good_agent.providers.types import JSONDict


def text_of(content: Any) -> str:
    """Flatten message ``content`` (a string or a list of text parts) to text."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[str] = []
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
            elif isinstance(part, str):
                parts.append(part)
        return "".join(parts)
    return str(content)


def call_arguments(call: JSONDict) -> JSONDict:
    """The arguments of an assistant ``tool_calls`` entry as an object.

    Arguments the model sent as malformed JSON are kept under ``_raw`` so the
    history stays faithful without inventing values.
    """
    raw = (call.get("function") or {}).get("arguments")
    arguments, _error = decode_arguments(raw)
    if arguments is None:
        return {"_raw": raw if isinstance(raw, str) else json.dumps(raw)}
    return arguments


def call_names_by_id(messages: list[JSONDict]) -> dict[str, str]:
    """Map each tool call id in the history to its function name."""
    names: dict[str, str] = {}
    for message in messages:
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            if call.get("id") and function.get("name"):
                names[str(call["id"])] = str(function["name"])
    return names


def history_tool_names(messages: list[JSONDict]) -> list[str]:
    """Every tool name used in the history (calls and results), in order."""
    names: list[str] = []
    for message in messages:
        for call in message.get("tool_calls") or []:
            name = (call.get("function") or {}).get("name")
            if isinstance(name, str):
                names.append(name)
        if message.get("role") == "tool" and isinstance(message.get("name"), str):
            names.append(message["name"])
    return names


def system_text(messages: list[JSONDict]) -> str | None:
    """The system (and developer) messages joined, or ``None`` when there are none."""
    texts = [
        text_of(m.get("content")) for m in messages if m.get("role") in ("system", "developer")
    ]
    return "\n\n".join(texts) if texts else None
