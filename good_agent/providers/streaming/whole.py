"""A decoder for transports that answer a streamed request with the whole reply.

A provider whose transport cannot stream yields its one reply body from
``stream(body)``; `WholeReplyDecoder` decodes it with the provider's codec
and reports it as the deltas a stream of it would carry.
"""

from __future__ import annotations

from collections.abc import Callable

from good_agent.providers.streaming.decoder import StreamDecoder
from good_agent.providers.streaming.deltas import ModelDelta
from good_agent.providers.tool_names import ToolNameMap
from good_agent.providers.types import JSONDict
from good_agent.types.messages import ModelResponse

Decode = Callable[[JSONDict, ToolNameMap | None], ModelResponse]
"""A codec's ``decode_response``."""


class WholeReplyDecoder(StreamDecoder):
    """Decodes one whole reply body with ``decode`` (the codec's ``decode_response``)."""

    def __init__(self, decode: Decode, names: ToolNameMap | None = None) -> None:
        super().__init__(names)
        self._decode = decode
        self._reply: ModelResponse | None = None

    def feed(self, event: JSONDict) -> list[ModelDelta]:
        """Decode the whole reply."""
        out: list[ModelDelta] = []
        reply = self._reply = self._decode(event, self.names)
        self.reasoning(reply.reasoning, out)
        self.text(reply.content, out)
        for call in reply.tool_calls:
            key = self.calls_started
            self.whole_call(key, call.id, call.name, call.arguments_text, out)
        self.usage(reply.usage.input_tokens, reply.usage.output_tokens, out)
        self.finish_reason(reply.finish_reason, out)
        self.complete = True
        return out

    def original(self, name: str) -> str:
        """Names are already mapped back by the codec."""
        return name

    def response(self) -> ModelResponse:
        """The reply exactly as the codec decoded it."""
        return self._reply if self._reply is not None else super().response()
