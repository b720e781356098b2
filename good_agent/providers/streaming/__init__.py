"""Stream decoding: one decoder per vendor, one family of deltas.

Each decoder (:class:`~.decoder.StreamDecoder`) takes the vendor's stream events
as dicts and returns :mod:`~.deltas`; after the final event it gives the whole
:class:`~good_agent.providers.types.ProviderResponse`, equal to what the vendor's
codec decodes from the non-streamed reply. :func:`decoder_for` picks the decoder
of a codec by name.
"""

from good_agent.providers.streaming.anthropic import AnthropicDecoder
from good_agent.providers.streaming.buffer import CallBuffer
from good_agent.providers.streaming.decoder import (
    DONE_EVENT,
    IncompleteStreamError,
    StreamDecoder,
    StreamFailedError,
)
from good_agent.providers.streaming.deltas import (
    FinishDelta,
    ModelDelta,
    ReasoningDelta,
    TextDelta,
    ToolCallArgs,
    ToolCallEnd,
    ToolCallStart,
    UsageDelta,
)
from good_agent.providers.streaming.gemini import GeminiDecoder
from good_agent.providers.streaming.ollama import OllamaDecoder
from good_agent.providers.streaming.openai_chat import OpenAIChatDecoder
from good_agent.providers.streaming.openai_responses import OpenAIResponsesDecoder
from good_agent.providers.streaming.whole import WholeReplyDecoder

__all__ = [
    "DONE_EVENT",
    "AnthropicDecoder",
    "CallBuffer",
    "FinishDelta",
    "GeminiDecoder",
    "IncompleteStreamError",
    "ModelDelta",
    "OllamaDecoder",
    "OpenAIChatDecoder",
    "OpenAIResponsesDecoder",
    "ReasoningDelta",
    "StreamDecoder",
    "StreamFailedError",
    "TextDelta",
    "ToolCallArgs",
    "ToolCallEnd",
    "ToolCallStart",
    "UsageDelta",
    "WholeReplyDecoder",
]
