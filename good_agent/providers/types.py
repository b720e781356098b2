"""Normalized, provider-neutral data shapes shared by every codec.

Requests use OpenAI Chat Completions message dicts and OpenAI function-format tool
definitions; responses are normalized into :class:`ProviderResponse`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from good_agent.types.usage import Usage

JSONDict = dict[str, Any]
"""A JSON object as decoded by `json.loads`."""

ToolChoice = str | JSONDict
"""OpenAI-style tool choice: ``"auto"``, ``"none"``, ``"required"`` or
``{"type": "function", "function": {"name": ...}}``."""


@dataclass(frozen=True, slots=True)
class ParsedToolCall:
    """One tool call decoded from a provider reply.

    ``arguments`` is ``None`` when the provider's raw argument text could not be
    decoded into a JSON object, or did not match the tool's schema; ``error`` then
    says why, in words meant for the model, ``problems`` lists each problem as data,
    and ``raw_arguments`` keeps the original text so nothing is lost.
    """

    id: str
    name: str
    arguments: JSONDict | None
    raw_arguments: str = ""
    error: str | None = None
    problems: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class ProviderResponse:
    """A provider reply normalized to content, tool calls, finish reason and usage.

    ``finish_reason`` uses the OpenAI vocabulary: ``stop``, ``tool_calls``,
    ``length`` or ``content_filter``.
    """

    content: str | None
    tool_calls: tuple[ParsedToolCall, ...] = ()
    finish_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    reasoning: str | None = None
    model: str | None = None
    replay: tuple[JSONDict, ...] = ()
    """Provider items the next request must carry back (see `REPLAY_KEY`)."""


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
