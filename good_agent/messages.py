"""Conversation messages: the public face of :mod:`good_agent.core.messages`."""

from good_agent.core.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolMessage,
    ToolResponse,
    Usage,
    UserMessage,
    render_value,
    to_openai_messages,
)

__all__ = [
    "AssistantMessage",
    "Message",
    "SystemMessage",
    "ToolCall",
    "ToolMessage",
    "ToolResponse",
    "Usage",
    "UserMessage",
    "render_value",
    "to_openai_messages",
]
