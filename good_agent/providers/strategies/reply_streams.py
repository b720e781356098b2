"""Streamed replies shaped by the request's strategy: deltas in, the mode's deltas out.

A `ReplyStream` wraps the vendor's stream decoder for one request.
``native`` replies pass through. Prompted replies (``validated`` / ``parsed``)
run their text through the incremental parser of `good_agent.providers.text`
(the same parser the non-streamed path uses), so ``<tool_call>``,
``[TOOL_CALLS]``, pythonic... text becomes call deltas and tool-call syntax never
reaches a `TextDelta`. ``structured`` replies are one JSON object, decoded
when complete. ``finish()`` returns the last deltas and the same
`ModelResponse` the non-streamed decode gives
for the same upstream reply.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from good_agent.providers.strategies.context import RequestContext
from good_agent.providers.streaming.decoder import StreamDecoder
from good_agent.providers.streaming.deltas import (
    FinishDelta,
    ModelDelta,
    TextDelta,
    ToolCallArgs,
    ToolCallEnd,
    ToolCallStart,
)
from good_agent.providers.text import StreamEvent, StreamingParser
from good_agent.types.messages import ModelResponse, ToolCall

Finisher = Callable[[ModelResponse], ModelResponse]
"""Turns the decoded plain reply into the strategy's reply (structured mode)."""


class ReplyStream:
    """A native reply: the decoder's deltas as they are.

    With ``parallel_tool_calls=False`` only the first call is kept.
    """

    def __init__(self, decoder: StreamDecoder, context: RequestContext) -> None:
        self.decoder = decoder
        self.context = context
        self._single = context.parallel_tool_calls is False

    def feed(self, event: dict[str, object]) -> list[ModelDelta]:
        """The deltas of one upstream event."""
        deltas = self.decoder.feed(event)
        return self.limit(deltas) if self._single else deltas

    def flush(self) -> list[ModelDelta]:
        """The deltas held back from the events fed so far (none here), given once the
        events of one read have all been fed."""
        return []

    def finish(self) -> tuple[list[ModelDelta], ModelResponse]:
        """The last deltas and the whole reply (raises if the stream was cut)."""
        return [], self.limited(self.decoder.finish())

    def limit(self, deltas: list[ModelDelta]) -> list[ModelDelta]:
        """Drop the deltas of calls beyond the first when calls may not be parallel."""
        if not self._single:
            return deltas
        return [
            d
            for d in deltas
            if not isinstance(d, ToolCallStart | ToolCallArgs | ToolCallEnd) or d.index == 0
        ]

    def limited(self, response: ModelResponse) -> ModelResponse:
        """``response`` with the calls beyond the first dropped when calls may not be parallel."""
        if self._single and len(response.tool_calls) > 1:
            return replace(response, tool_calls=response.tool_calls[:1])
        return response


CallCheck = Callable[[ToolCall], ToolCall]
"""Validates (or keeps) one parsed call; gives it its final id."""


class TextCallStream(ReplyStream):
    """Calls parsed out of streamed text by an incremental parser.

    The text of the events fed together (one read of the connection) goes to the
    parser at once, when `flush` is called or a delta that is not text comes: the
    parser's cost is per piece fed, and a reply's text arrives in many small events.

    Args:
        decoder: The vendor's stream decoder.
        context: The request's context.
        parser: A fresh streaming parser for the offered tools.
        finalize: Builds the reply from the plain reply, the parser's result and
            the ids given to the calls while streaming (shared with the
            non-streamed decode, so both agree).
    """

    def __init__(
        self,
        decoder: StreamDecoder,
        context: RequestContext,
        parser: StreamingParser,
        finalize: Callable[[ModelResponse, StreamingParser, list[str]], ModelResponse],
        new_id: Callable[[], str],
    ) -> None:
        super().__init__(decoder, context)
        self.parser = parser
        self._finalize = finalize
        self._new_id = new_id
        self.ids: list[str] = []
        self._fed = False
        self._pending: list[str] = []

    def feed(self, event: dict[str, object]) -> list[ModelDelta]:
        """Text is held for the parser; usage and native calls pass (after the text
        before them is parsed); the finish waits for the end."""
        out: list[ModelDelta] = []
        for delta in self.decoder.feed(event):
            # The decoders' own classes: no isinstance walk a delta (``type(delta) is``
            # written out, so mypy narrows it).
            if type(delta) is TextDelta:
                self._fed = True
                self._pending.append(delta.text)
            elif type(delta) is not FinishDelta:
                if self._pending:
                    out += self._parse_pending()
                out.append(delta)  # native calls and usage pass as they are
        return self.limit(out) if self._single else out

    def flush(self) -> list[ModelDelta]:
        """The parser's deltas for the text held back."""
        return self.limit(self._parse_pending())

    def _parse_pending(self) -> list[ModelDelta]:
        pending = self._pending
        if not pending:
            return []
        text = pending[0] if len(pending) == 1 else "".join(pending)
        self._pending = []
        events = self.parser.feed(text)
        return self._convert(events) if events else []

    def finish(self) -> tuple[list[ModelDelta], ModelResponse]:
        """Flush the parser, close the last call, then the finish reason."""
        tail = self._parse_pending()
        tail += self._convert(self.parser.finish())
        plain = self.decoder.finish()
        response = self._finalize(plain, self.parser, self.ids) if self._fed else plain
        response = self.limited(response)
        tail.append(FinishDelta(response.finish_reason))
        return self.limit(tail), response

    def _convert(self, events: Sequence[StreamEvent]) -> list[ModelDelta]:
        """The parser's deltas, its calls renamed with this reply's call ids."""
        out: list[ModelDelta] = []
        for event in events:
            if isinstance(event, ToolCallStart):
                call_id = self._new_id()
                self.ids.append(call_id)
                out.append(ToolCallStart(event.index, call_id, event.name))
            elif isinstance(event, ToolCallArgs):
                if event.arguments:
                    out.append(event)
            elif isinstance(event, ToolCallEnd) or event.text:
                out.append(event)
        return out


class StructuredStream(ReplyStream):
    """A structured-output reply: its JSON text is held, then decoded when complete."""

    def __init__(self, decoder: StreamDecoder, context: RequestContext, finalize: Finisher) -> None:
        super().__init__(decoder, context)
        self._finalize = finalize

    def feed(self, event: dict[str, object]) -> list[ModelDelta]:
        """Usage and reasoning pass; the reply text waits for the end."""
        return [
            delta
            for delta in self.decoder.feed(event)
            if not isinstance(delta, TextDelta | FinishDelta)
        ]

    def finish(self) -> tuple[list[ModelDelta], ModelResponse]:
        """Decode the reply into an answer or a call, then report it as deltas."""
        response = self.limited(self._finalize(self.decoder.finish()))
        tail: list[ModelDelta] = []
        if response.content:
            tail.append(TextDelta(response.content))
        for index, call in enumerate(response.tool_calls):
            tail += [
                ToolCallStart(index, call.id, call.name),
                ToolCallArgs(index, call.arguments_text),
                ToolCallEnd(index),
            ]
        tail.append(FinishDelta(response.finish_reason))
        return tail, response
