"""Stream decoding shared by the vendors: the decoder base and one family of deltas.

Each vendor's decoder (a `StreamDecoder`, in ``providers/<vendor>/``)
takes the vendor's stream events
as dicts and returns `deltas`; after the final event it gives the whole
`ModelResponse`, equal to what the vendor's
codec decodes from the non-streamed reply. `decoder_for` picks the decoder
of a codec by name.
"""

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
from good_agent.providers.streaming.whole import WholeReplyDecoder

__all__ = [
    "DONE_EVENT",
    "CallBuffer",
    "FinishDelta",
    "IncompleteStreamError",
    "ModelDelta",
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
