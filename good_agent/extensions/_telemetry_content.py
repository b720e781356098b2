"""Message content for telemetry spans, in the OpenTelemetry GenAI message form.

The semantic conventions record a request's messages as ``gen_ai.input.messages``
(system prompts apart, as ``gen_ai.system_instructions``) and the reply as
``gen_ai.output.messages``: JSON arrays of ``{"role", "parts": [...]}``, a part
being ``{"type": "text", "content"}``, ``{"type": "tool_call", "id", "name",
"arguments"}``, ``{"type": "tool_call_response", "id", "response"}`` or
``{"type": "reasoning", "content"}``; an output message also has
``finish_reason``. Every value leaves through `as_json`, which redacts the
agent's secrets.
"""

from __future__ import annotations

import json
from typing import Any

from good_agent.core.redaction import SecretRegistry
from good_agent.models.base import ModelResponse
from good_agent.types.messages import AssistantMessage, SystemMessage, ToolMessage, UserMessage

__all__ = ["as_json", "input_messages", "output_messages", "system_instructions"]


def _assistant_parts(
    content: str | None, reasoning: str | None, calls: list[Any]
) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    if reasoning:
        parts.append({"type": "reasoning", "content": reasoning})
    if content:
        parts.append({"type": "text", "content": content})
    for call in calls:
        part = {"type": "tool_call", "id": call.id, "name": call.name}
        parts.append({**part, "arguments": call.arguments})
    return parts


def system_instructions(messages: list[Any]) -> list[dict[str, Any]]:
    """The system prompts of ``messages`` as text parts."""
    return [
        {"type": "text", "content": m.content} for m in messages if isinstance(m, SystemMessage)
    ]


def input_messages(messages: list[Any]) -> list[dict[str, Any]]:
    """The conversation sent to the model (system prompts left out)."""
    found: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, UserMessage):
            found.append({"role": "user", "parts": [{"type": "text", "content": message.content}]})
        elif isinstance(message, AssistantMessage):
            parts = _assistant_parts(message.content, message.reasoning, message.tool_calls)
            found.append({"role": "assistant", "parts": parts})
        elif isinstance(message, ToolMessage):
            part = {"type": "tool_call_response", "id": message.tool_call_id}
            found.append({"role": "tool", "parts": [{**part, "response": message.content}]})
    return found


def output_messages(response: ModelResponse) -> list[dict[str, Any]]:
    """The model's reply as one output message."""
    parts = _assistant_parts(response.content, response.reasoning, response.tool_calls)
    finish = response.finish_reason or ("tool_call" if response.tool_calls else "stop")
    return [{"role": "assistant", "parts": parts, "finish_reason": finish}]


def as_json(value: Any, secrets: SecretRegistry) -> str:
    """``value`` as a JSON attribute, with every secret of ``secrets`` redacted."""
    text = json.dumps(secrets.redact(value), ensure_ascii=False, default=str)
    return secrets.redact_text(text) if secrets else text
