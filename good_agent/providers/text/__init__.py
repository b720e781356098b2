"""Tool calls written as text by models without (or ignoring) native tool calling.

``parse_tool_calls(text)`` auto-detects Hermes/Qwen ``<tool_call>`` tags,
Mistral ``[TOOL_CALLS]``, Llama 3 ``<|python_tag|>``, Granite ``<|tool_call|>`` and
``functools[...]``, pythonic ``[f(a=1)]`` lists, fenced JSON, bare JSON call
objects (also OpenAI-shaped, seed payloads and Python dict reprs), and keeps
``<think>`` reasoning apart. `get_parser` selects one format by name and
gives a `StreamingParser` with the same results for any chunking.
"""

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
