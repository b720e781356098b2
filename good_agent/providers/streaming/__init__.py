"""Streaming assembly of tool calls, linear in the stream size.

See :mod:`good_agent.providers.streaming.buffer` for the cost of partial previews.
"""

from good_agent.providers.streaming.assemblers import (
    AnthropicAssembler,
    GeminiAssembler,
    OpenAIChatAssembler,
    OpenAIResponsesAssembler,
)
from good_agent.providers.streaming.buffer import Assembler, CallBuffer

__all__ = [
    "AnthropicAssembler",
    "Assembler",
    "CallBuffer",
    "GeminiAssembler",
    "OpenAIChatAssembler",
    "OpenAIResponsesAssembler",
]
