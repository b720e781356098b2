"""Provider strategy layer: pure data in, pure data out.

Everything here speaks the OpenAI Chat Completions shapes as its lingua franca:
messages are OpenAI chat message dicts, tools are OpenAI function definitions
(``{"type": "function", "function": {...}}``). Codecs translate those shapes to and
from each provider's wire format; a reply is decoded into the shared ``ModelResponse``
with its ``ToolCall`` s (from `good_agent.types`). Nothing in this package
imports the agent core.
"""

from good_agent.providers.text import ParseResult, TextParseError, parse_text, parse_tool_calls
from good_agent.providers.types import ChatRequest, JSONDict, ToolChoice
from good_agent.types.messages import ModelResponse, ToolCall
from good_agent.types.usage import Usage

__all__ = [
    "ChatRequest",
    "JSONDict",
    "ModelResponse",
    "ParseResult",
    "TextParseError",
    "ToolCall",
    "ToolChoice",
    "Usage",
    "parse_text",
    "parse_tool_calls",
]
