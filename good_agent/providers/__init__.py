"""Provider strategy layer: pure data in, pure data out.

Everything here speaks the OpenAI Chat Completions shapes as its lingua franca:
messages are OpenAI chat message dicts, tools are OpenAI function definitions
(``{"type": "function", "function": {...}}``). Codecs translate those shapes to and
from each provider's wire format; a reply is decoded into the shared ``ModelResponse``
with its ``ToolCall`` s (from `good_agent.types`). Nothing in this package
imports the agent core.
"""

from typing import TYPE_CHECKING

from good_agent._util.lazy import lazy_face

if TYPE_CHECKING:
    from good_agent.providers.text import ParseResult, TextParseError, parse_text, parse_tool_calls
    from good_agent.providers.types import ChatRequest, JSONDict, ToolChoice
    from good_agent.types.messages import ModelResponse, ToolCall
    from good_agent.types.usage import Usage

_LAZY: dict[str, str] = {
    "ChatRequest": "good_agent.providers.types",
    "JSONDict": "good_agent.providers.types",
    "ModelResponse": "good_agent.types.messages",
    "ParseResult": "good_agent.providers.text",
    "TextParseError": "good_agent.providers.text",
    "ToolCall": "good_agent.types.messages",
    "ToolChoice": "good_agent.providers.types",
    "Usage": "good_agent.types.usage",
    "parse_text": "good_agent.providers.text",
    "parse_tool_calls": "good_agent.providers.text",
}
"""Each public name and the module it is imported from on first use."""

if not TYPE_CHECKING:  # type checkers read the imports above, and flag unknown names
    __getattr__, __dir__ = lazy_face(__name__, _LAZY)

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
