"""Automatic fallback from native to prompt-based tool calling, remembered per process.

In ``AUTO`` mode, when a model resolved to native tool calling

- has a request rejected *because of its tools* (Ollama's HTTP 400 "does not
  support tools", vLLM started without a tool parser...), the request is retried
  once in ``VALIDATED`` (prompt-based) mode, and later requests to that model go
  straight to prompt mode;
- answers with tool calls written in ``content`` (a server without a tool parser, a
  model that writes ``{"tool_calls": [...]}`` or ``<tool_call>`` tags as text), the
  content is parsed into real tool calls.

Each event is logged once per model. Explicit modes never fall back.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence

from good_agent.core.errors import ModelBadRequestError, ModelError
from good_agent.providers.strategies.base import ToolCallingMode
from good_agent.providers.types import JSONDict, ProviderResponse

logger = logging.getLogger("good_agent.models.fallback")

_TOOL_WORDS = ("tool", "function call", "function_call", "functions")
_REFUSAL_WORDS = (
    "not support",
    "unsupported",
    "not supported",
    "not enabled",
    "enable-auto-tool-choice",
    "tool-call-parser",
    "not available",
    "unknown field",
    "unrecognized",
    "extra inputs are not permitted",
)

_REMEMBERED: dict[str, ToolCallingMode] = {}
_LOGGED: set[tuple[str, str]] = set()


def rejects_tools(error: ModelError) -> bool:
    """Whether ``error`` is a provider refusing the request because of its tools."""
    if not isinstance(error, ModelBadRequestError):
        return False
    text = str(error).lower()
    return any(w in text for w in _TOOL_WORDS) and any(w in text for w in _REFUSAL_WORDS)


def remembered_mode(key: str) -> ToolCallingMode | None:
    """The mode this process learned works for ``key`` (a provider and model)."""
    return _REMEMBERED.get(key)


def remember(key: str, mode: ToolCallingMode, reason: str) -> None:
    """Record that ``key`` needs ``mode`` and log it, once per model."""
    _REMEMBERED[key] = mode
    log_once(key, "mode", f"{key}: {reason}; using {mode.value} tool calling from now on")


def log_once(key: str, event: str, message: str) -> None:
    """Log ``message`` the first time ``event`` happens for ``key``."""
    if (key, event) not in _LOGGED:
        _LOGGED.add((key, event))
        logger.warning(message)


def forget_all() -> None:
    """Clear what this process has learned (for tests)."""
    _REMEMBERED.clear()
    _LOGGED.clear()


def calls_from_content(
    key: str, response: ProviderResponse, tools: Sequence[JSONDict]
) -> ProviderResponse:
    """Parse tool calls a native reply wrote into ``content``; unchanged if there are none."""
    if response.tool_calls or not response.content or not tools:
        return response
    from good_agent.providers.strategies.prompted import unique_id
    from good_agent.providers.text import parse_tool_calls
    from good_agent.providers.tool_names import tool_name

    names = [tool_name(t) for t in tools]
    calls, content = parse_tool_calls(response.content, names)
    if not calls:
        return response
    log_once(key, "content", f"{key}: tool calls arrived as text in content; parsing them")
    return dataclasses.replace(
        response,
        tool_calls=tuple(unique_id(call) for call in calls),
        content=content.strip() or None,
        finish_reason="tool_calls",
    )
