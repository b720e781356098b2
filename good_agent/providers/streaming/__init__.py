"""Stream decoding shared by the vendors: the decoder base and one family of deltas.

Each vendor's decoder (a `StreamDecoder`, in ``providers/<vendor>/``)
takes the vendor's stream events
as dicts and returns `deltas`; after the final event it gives the whole
`ModelResponse`, equal to what the vendor's
codec decodes from the non-streamed reply. `decoder_for` picks the decoder
of a codec by name.
"""

from typing import TYPE_CHECKING

from good_agent._util.lazy import lazy_face

if TYPE_CHECKING:
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

_LAZY: dict[str, str] = {
    "CallBuffer": "good_agent.providers.streaming.buffer",
    "DONE_EVENT": "good_agent.providers.streaming.decoder",
    "FinishDelta": "good_agent.providers.streaming.deltas",
    "IncompleteStreamError": "good_agent.providers.streaming.decoder",
    "ModelDelta": "good_agent.providers.streaming.deltas",
    "ReasoningDelta": "good_agent.providers.streaming.deltas",
    "StreamDecoder": "good_agent.providers.streaming.decoder",
    "StreamFailedError": "good_agent.providers.streaming.decoder",
    "TextDelta": "good_agent.providers.streaming.deltas",
    "ToolCallArgs": "good_agent.providers.streaming.deltas",
    "ToolCallEnd": "good_agent.providers.streaming.deltas",
    "ToolCallStart": "good_agent.providers.streaming.deltas",
    "UsageDelta": "good_agent.providers.streaming.deltas",
    "WholeReplyDecoder": "good_agent.providers.streaming.whole",
}
"""Each public name and the module it is imported from on first use."""

if not TYPE_CHECKING:  # type checkers read the imports above, and flag unknown names
    __getattr__, __dir__ = lazy_face(__name__, _LAZY)

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
