"""Normalized, provider-neutral data shapes shared by every codec.

Requests use OpenAI Chat Completions message dicts and OpenAI function-format tool
definitions (`ChatRequest`); replies are decoded straight into the shared
`ModelResponse` with its
`ToolCall` s.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from good_agent.http.transport import JSONDict

__all__ = ["ChatRequest", "JSONDict", "ToolChoice"]

ToolChoice = str | JSONDict
"""OpenAI-style tool choice: ``"auto"``, ``"none"``, ``"required"`` or
``{"type": "function", "function": {"name": ...}}``."""


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """A provider-neutral chat request.

    ``messages`` are OpenAI chat message dicts (``system``, ``user``, ``assistant``
    with optional ``tool_calls``, ``tool``); ``tools`` are OpenAI function-format
    definitions; ``settings`` holds sampling options such as ``temperature`` and
    ``max_tokens``.
    """

    messages: list[JSONDict]
    tools: list[JSONDict] = field(default_factory=list)
    tool_choice: ToolChoice | None = None
    parallel_tool_calls: bool | None = None
    response_format: JSONDict | None = None
    settings: JSONDict = field(default_factory=dict)
