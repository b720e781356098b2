"""History rewriting for strategies that do not use the provider's tool slots.

Assistant tool calls become assistant text in the strategy's own notation and tool
results become user messages, so any chat model can read the whole exchange. Each
written call carries its id and each result names its tool and that id, so a model
matches results to calls by id, not by order (a client's tool message often carries
only the id: the name comes from the call it answers).
"""

from __future__ import annotations

import json
from collections.abc import Callable

from good_agent.providers.history import call_arguments, call_names_by_id, text_of
from good_agent.providers.types import JSONDict

CallWriter = Callable[[str, JSONDict, str | None], str]
"""Render one call (name, arguments, assistant text) as text."""


def rewrite_history(
    messages: list[JSONDict],
    write_calls: Callable[[JSONDict], str],
    write_result: Callable[[JSONDict], str],
) -> list[JSONDict]:
    """Return ``messages`` without tool slots: calls and results as plain text turns.

    A tool message without a ``name`` gets the name of the call its ``tool_call_id``
    answers before ``write_result`` sees it.
    """
    names = call_names_by_id(messages)
    out: list[JSONDict] = []
    for message in messages:
        role = message.get("role")
        if role == "assistant" and message.get("tool_calls"):
            out.append({"role": "assistant", "content": write_calls(message)})
        elif role == "tool":
            named = message.get("name") or names.get(str(message.get("tool_call_id")))
            text = write_result({**message, "name": named} if named else message)
            if out and out[-1]["role"] == "user" and out[-1].get("_tool_results"):
                out[-1]["content"] += "\n\n" + text
            else:
                out.append({"role": "user", "content": text, "_tool_results": True})
        else:
            out.append(message)
    return [{k: v for k, v in m.items() if k != "_tool_results"} for m in out]


def calls_of(message: JSONDict) -> list[tuple[str | None, str, JSONDict]]:
    """``(id, name, arguments)`` for each tool call of an assistant message (``id``:
    ``None`` when the call has none)."""
    return [
        (
            str(call["id"]) if call.get("id") else None,
            str((call.get("function") or {}).get("name", "")),
            call_arguments(call),
        )
        for call in message.get("tool_calls") or []
    ]


def with_id(call_id: str | None, value: JSONDict) -> JSONDict:
    """``value`` (a written call object) with ``"id": call_id`` first, when there is one."""
    return {"id": call_id, **value} if call_id else value


def result_text(message: JSONDict) -> str:
    """A tool message as a sentence the model can read: the tool, the call id, the result.

    ``Tool add (call c1) returned: 5``; without a known name ``Call c1 returned: 5``,
    without an id ``Tool add returned: 5``.
    """
    name = message.get("name")
    call_id = message.get("tool_call_id")
    if name and call_id:
        who = f"Tool {name} (call {call_id})"
    elif call_id:
        who = f"Call {call_id}"
    else:
        who = f"Tool {name}" if name else "A tool"
    content = text_of(message.get("content"))
    verb = "failed" if message.get("is_error") else "returned"
    return f"{who} {verb}: {content}"


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
