"""The agent core: the :class:`Agent`, its loop, components, events, messages and errors.

Names are imported on first use, so the modules beside the core (``tools``,
``adapters``, ``models``) can import ``good_agent.core.errors`` and
``good_agent.core.messages`` without importing the agent itself.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from good_agent.core.agent import Agent
    from good_agent.core.components import AgentComponent, on
    from good_agent.core.events import AgentEvents, EventBus, EventContext
    from good_agent.core.messages import (
        AssistantMessage,
        Message,
        SystemMessage,
        ToolCall,
        ToolMessage,
        ToolResponse,
        Usage,
        UserMessage,
    )
    from good_agent.core.payloads import (
        SignaturePayload,
        ToolCallAfter,
        ToolCallBefore,
        ToolCallErrorPayload,
    )

_HOMES = {
    "Agent": "agent",
    "AgentComponent": "components",
    "on": "components",
    "AgentEvents": "events",
    "EventBus": "events",
    "EventContext": "events",
    "AssistantMessage": "messages",
    "Message": "messages",
    "SystemMessage": "messages",
    "ToolCall": "messages",
    "ToolMessage": "messages",
    "ToolResponse": "messages",
    "Usage": "messages",
    "UserMessage": "messages",
    "SignaturePayload": "payloads",
    "ToolCallAfter": "payloads",
    "ToolCallBefore": "payloads",
    "ToolCallErrorPayload": "payloads",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'good_agent.core' has no attribute {name!r}")
    return getattr(importlib.import_module(f"good_agent.core.{home}"), name)


__all__ = [
    "Agent",
    "AgentComponent",
    "AgentEvents",
    "AssistantMessage",
    "EventBus",
    "EventContext",
    "Message",
    "SignaturePayload",
    "SystemMessage",
    "ToolCall",
    "ToolCallAfter",
    "ToolCallBefore",
    "ToolCallErrorPayload",
    "ToolMessage",
    "ToolResponse",
    "Usage",
    "UserMessage",
    "on",
]
