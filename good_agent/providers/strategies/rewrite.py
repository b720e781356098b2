"""History rewriting for strategies that do not use the provider's tool slots.

Assistant tool calls become assistant text in the strategy's own notation and tool
results become user messages, so any chat model can read the whole exchange.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from good_agent.providers.history import call_arguments, text_of
from good_agent.providers.types import JSONDict

CallWriter = Callable[[str, JSONDict, str | None], str]
"""Render one call (name, arguments, assistant text) as text."""


def rewrite_history(
    messages: list[JSONDict],
    write_calls: Callable[[JSONDict], str],
    write_result: Callable[[JSONDict], str],
) -> list[JSONDict]:
    """Return ``messages`` without tool slots: calls and results as plain text turns."""
    out: list[JSONDict] = []
    for message in messages:
        role = message.get("role")
        if role == "assistant" and message.get("tool_calls"):
            out.append({"role": "assistant", "content": write_calls(message)})
        elif role == "tool":
            text = write_result(message)
            if out and out[-1]["role"] == "user" and out[-1].get("_tool_results"):
                out[-1]["content"] += "\n\n" + text
            else:
                out.append({"role": "user", "content": text, "_tool_results": True})
        else:
            out.append(message)
    return [{k: v for k, v in m.items() if k != "_tool_results"} for m in out]


def calls_of(message: JSONDict) -> list[tuple[str, JSONDict]]:
    """``(name, arguments)`` for each tool call of an assistant message."""
    return [
        (str((call.get("function") or {}).get("name", "")), call_arguments(call))
        for call in message.get("tool_calls") or []
    ]


def result_text(message: JSONDict) -> str:
    """A tool message as a sentence the model can read."""
    name = message.get("name") or "tool"
    content = text_of(message.get("content"))
    if message.get("is_error"):
        return f"Tool {name} (call {message.get('tool_call_id')}) failed: {content}"
    return f"Tool {name} (call {message.get('tool_call_id')}) returned: {content}"


def with_system(messages: list[JSONDict], text: str) -> list[JSONDict]:
    """Append ``text`` to the first system message, or insert one."""
    for index, message in enumerate(messages):
        if message.get("role") == "system":
            merged = f"{text_of(message.get('content'))}\n\n{text}".strip()
            return [*messages[:index], {**message, "content": merged}, *messages[index + 1 :]]
    return [{"role": "system", "content": text}, *messages]


def dumps(value: object) -> str:
    """Compact JSON text."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
