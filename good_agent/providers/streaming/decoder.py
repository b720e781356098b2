"""The base of every vendor stream decoder: events in, deltas out, one response at the end.

A decoder is fed the stream's events one at a time (`StreamDecoder.feed`,
time proportional to the event's size) and returns the
`deltas` each one carries. It keeps what the
response needs (text and reasoning pieces, one `CallBuffer` per
call, usage, finish reason) so that `StreamDecoder.finish` returns the same
`ModelResponse` the vendor's codec decodes
from the non-streamed reply.

A stream that ends before its vendor's final event (connection closed mid-reply,
no ``finish_reason`` / ``message_stop`` / ``done``) is not a reply: ``finish``
raises `IncompleteStreamError` instead of calling it a ``stop``.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, ClassVar

from good_agent.http.transport import DONE_EVENT as DONE_EVENT
from good_agent.providers.streaming.buffer import CallBuffer
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
from good_agent.providers.tool_names import ToolNameMap, restore_call
from good_agent.providers.types import JSONDict
from good_agent.types.messages import ModelResponse
from good_agent.types.usage import Usage, token_count


class IncompleteStreamError(ValueError):
    """A stream ended before its final event: the reply is cut short."""


class StreamFailedError(ValueError):
    """The provider reported a failure inside the stream (an ``error`` event)."""


class StreamDecoder:
    """Shared state and helpers of the per-vendor decoders.

    Args:
        names: The request's tool-name map; calls are reported under the tools'
            original names.
    """

    vendor: ClassVar[str] = "provider"

    def __init__(self, names: ToolNameMap | None = None) -> None:
        self.names = names
        self.complete = False
        self.model: str | None = None
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._calls: list[CallBuffer] = []
        self._keys: dict[Hashable, int] = {}
        self._open: set[int] = set()
        self._input: int | None = None
        self._output: int | None = None
        self._cache_read: int | None = None
        self._cache_write: int | None = None
        self._cache_write_1h: int | None = None
        self._finish: str | None = None

    def feed(self, event: JSONDict) -> list[ModelDelta]:
        """Decode one stream event into the deltas it carries."""
        raise NotImplementedError

    def finish(self) -> ModelResponse:
        """The whole reply; `IncompleteStreamError` if the final event never came."""
        if not self.complete:
            raise IncompleteStreamError(
                f"the {self.vendor} stream ended before its final event; the reply is incomplete"
            )
        return self.response()

    def response(self) -> ModelResponse:
        """The reply as received so far."""
        calls = [restore_call(buffer.finish(), self.names) for buffer in self._calls]
        reason = self._finish
        if calls and reason in (None, "stop"):
            reason = "tool_calls"
        return ModelResponse(
            content="".join(self._text) if self._text else None,
            tool_calls=calls,
            finish_reason=reason,
            usage=Usage(
                self._input or 0,
                self._output or 0,
                self._cache_read or 0,
                self._cache_write or 0,
                self._cache_write_1h or 0,
            ),
            reasoning=self.reasoning_text(),
            model=self.model,
        )

    def reasoning_text(self) -> str | None:
        """The reasoning pieces joined as the vendor's codec joins them."""
        return "".join(self._reasoning) if self._reasoning else None

    # Helpers the vendor decoders call; each appends its deltas to ``out``.

    def text(self, text: object, out: list[ModelDelta]) -> None:
        """Answer text."""
        if isinstance(text, str) and text:
            self._text.append(text)
            out.append(TextDelta(text))

    def reasoning(self, text: object, out: list[ModelDelta]) -> None:
        """Reasoning text."""
        if isinstance(text, str) and text:
            self._reasoning.append(text)
            out.append(ReasoningDelta(text))

    def original(self, name: str) -> str:
        """The tool's original name for the name the vendor used."""
        return self.names.to_original(name) if self.names is not None else name

    def has_call(self, key: Hashable) -> bool:
        """Whether a call was started under the vendor's ``key``."""
        return key in self._keys

    def start_call(self, key: Hashable, call_id: str, name: str, out: list[ModelDelta]) -> int:
        """Open a call under the vendor's ``key``; returns its index in this reply."""
        index = len(self._calls)
        self._keys[key] = index
        self._calls.append(CallBuffer(id=call_id, name=name))
        self._open.add(index)
        out.append(ToolCallStart(index, call_id, self.original(name)))
        return index

    def call_args(self, key: Hashable, fragment: object, out: list[ModelDelta]) -> None:
        """A fragment of the arguments of the call opened under ``key``."""
        index = self._keys.get(key)
        if index is None or not isinstance(fragment, str) or not fragment:
            return
        self._calls[index].add(fragment)
        out.append(ToolCallArgs(index, fragment))

    def set_args(self, key: Hashable, arguments: str, out: list[ModelDelta]) -> None:
        """The call's complete argument text (when the vendor repeats it at the end)."""
        index = self._keys.get(key)
        if index is None:
            return
        buffer = self._calls[index]
        if not buffer.fragments and arguments:
            self.call_args(key, arguments, out)
        elif arguments and buffer.arguments_text() != arguments:
            buffer.fragments = [arguments]

    def end_call(self, key: Hashable, out: list[ModelDelta]) -> None:
        """Close the call opened under ``key``."""
        index = self._keys.get(key)
        if index is not None and index in self._open:
            self._open.discard(index)
            out.append(ToolCallEnd(index))

    def whole_call(
        self, key: Hashable, call_id: str, name: str, arguments: str, out: list[ModelDelta]
    ) -> None:
        """A call that arrives in one piece (Gemini, Ollama)."""
        self.start_call(key, call_id, name, out)
        self.call_args(key, arguments, out)
        self.end_call(key, out)

    def end_all(self, out: list[ModelDelta]) -> None:
        """Close every open call, in order."""
        for index in sorted(self._open):
            out.append(ToolCallEnd(index))
        self._open.clear()

    def usage(
        self,
        input_tokens: object,
        output_tokens: object,
        out: list[ModelDelta],
        cache_read: object = None,
        cache_write: object = None,
        cache_write_1h: object = None,
    ) -> None:
        """Token counts (cumulative; the input counting the cached tokens); ``None``
        leaves a count as it was."""
        given_in = token_count(input_tokens)
        given_out = token_count(output_tokens)
        read, write = token_count(cache_read), token_count(cache_write)
        hour = token_count(cache_write_1h)
        if all(count is None for count in (given_in, given_out, read, write, hour)):
            return
        if given_in is not None:
            self._input = given_in
        if given_out is not None:
            self._output = given_out
        if read is not None:
            self._cache_read = read
        if write is not None:
            self._cache_write = write
        if hour is not None:
            self._cache_write_1h = hour
        out.append(UsageDelta(given_in, given_out, read, write, hour))

    def finish_reason(self, reason: str | None, out: list[ModelDelta]) -> None:
        """Why the model stopped (OpenAI vocabulary); closes open calls."""
        self.end_all(out)
        if self._calls and reason in (None, "stop"):
            reason = "tool_calls"
        self._finish = reason
        out.append(FinishDelta(reason))

    def partial_calls(self) -> list[tuple[str, str, Any]]:
        """``(id, name, partial arguments)`` of every call so far.

        Parses each call's argument text so far (see `buffer`): linear in
        its size, so call it when a preview is wanted, not on every event.
        """
        return [
            (buffer.id, self.original(buffer.name), buffer.partial_arguments())
            for buffer in self._calls
        ]

    @property
    def calls_started(self) -> int:
        """How many calls this reply has opened."""
        return len(self._calls)
