"""Tool calls written as text by models without (or ignoring) native tool calling.

``parse_tool_calls(text)`` auto-detects Hermes/Qwen ``<tool_call>`` tags,
Mistral ``[TOOL_CALLS]``, Llama 3 ``<|python_tag|>``, Granite ``<|tool_call|>`` and
``functools[...]``, pythonic ``[f(a=1)]`` lists, fenced JSON, bare JSON call
objects (also OpenAI-shaped, seed payloads and Python dict reprs), and keeps
``<think>`` reasoning apart. `get_parser` selects one format by name and
gives a `StreamingParser` with the same results for any chunking.
"""

from typing import TYPE_CHECKING

from good_agent._util.lazy import lazy_face

if TYPE_CHECKING:
    from good_agent.providers.text.engine import StreamingParser
    from good_agent.providers.text.errors import TextParseError
    from good_agent.providers.text.markers import Marker, Region, ValueSpan
    from good_agent.providers.text.registry import (
        FormatParser,
        ToolCallParser,
        available_formats,
        get_parser,
        parse_text,
        parse_tool_calls,
        register_format,
    )
    from good_agent.providers.text.results import ParseResult, StreamEvent
    from good_agent.providers.text.shapes import CallSpec, Decoded

_LAZY: dict[str, str] = {
    "CallSpec": "good_agent.providers.text.shapes",
    "Decoded": "good_agent.providers.text.shapes",
    "FormatParser": "good_agent.providers.text.registry",
    "Marker": "good_agent.providers.text.markers",
    "ParseResult": "good_agent.providers.text.results",
    "Region": "good_agent.providers.text.markers",
    "StreamEvent": "good_agent.providers.text.results",
    "StreamingParser": "good_agent.providers.text.engine",
    "TextParseError": "good_agent.providers.text.errors",
    "ToolCallParser": "good_agent.providers.text.registry",
    "ValueSpan": "good_agent.providers.text.markers",
    "available_formats": "good_agent.providers.text.registry",
    "get_parser": "good_agent.providers.text.registry",
    "parse_text": "good_agent.providers.text.registry",
    "parse_tool_calls": "good_agent.providers.text.registry",
    "register_format": "good_agent.providers.text.registry",
}
"""Each public name and the module it is imported from on first use."""

if not TYPE_CHECKING:  # type checkers read the imports above, and flag unknown names
    __getattr__, __dir__ = lazy_face(__name__, _LAZY)

__all__ = [
    "CallSpec",
    "Decoded",
    "FormatParser",
    "Marker",
    "ParseResult",
    "Region",
    "StreamEvent",
    "StreamingParser",
    "TextParseError",
    "ToolCallParser",
    "ValueSpan",
    "available_formats",
    "get_parser",
    "parse_text",
    "parse_tool_calls",
    "register_format",
]
