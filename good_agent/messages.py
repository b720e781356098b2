"""Conversation messages: the public face of `good_agent.types.messages`,
with `dump_messages` / `load_messages` to save and restore a history."""

from good_agent.types.history import HistoryFormatError, dump_messages, load_messages
from good_agent.types.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolMessage,
    ToolResponse,
    UserMessage,
    render_value,
    to_openai_messages,
)
from good_agent.types.usage import Usage

__all__ = [
    "AssistantMessage",
    "HistoryFormatError",
    "Message",
    "SystemMessage",
    "ToolCall",
    "ToolMessage",
    "ToolResponse",
    "Usage",
    "UserMessage",
    "dump_messages",
    "load_messages",
    "render_value",
    "to_openai_messages",
]
