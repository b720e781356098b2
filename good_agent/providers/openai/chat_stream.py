"""The OpenAI Chat Completions stream decoder (``chat.completion.chunk`` objects).

A call opens on a delta carrying an ``id`` (or on the first delta of an ``index``
not seen before) and collects the ``arguments`` fragments that follow at the same
``index``. Deltas with distinct ids are distinct calls even when a server leaves
``index`` out or repeats it. The chunk with ``finish_reason`` is the final event (a
usage chunk may follow it); a ``data: [DONE]`` terminator, which HTTP transports
pass on as `DONE_EVENT`, also ends a stream whose server sent no
finish reason. A stream that ends with no choice in any chunk (only
``{"choices": []}``) holds no reply, and a call ``index`` that is not an integer
has no meaning: both are a `ReplyShapeError`,
as they are in a whole reply.

Reference: https://platform.openai.com/docs/api-reference/chat-streaming
"""

from __future__ import annotations

import uuid
from typing import Any

from good_agent.providers import builtin_tools
from good_agent.providers.openai.chat_codec import cache_counts
from good_agent.providers.reply_shape import ReplyShapeError
from good_agent.providers.streaming.decoder import DONE_EVENT, StreamDecoder, StreamFailedError
from good_agent.providers.streaming.deltas import ModelDelta
from good_agent.providers.tool_names import ToolNameMap
from good_agent.providers.types import JSONDict
from good_agent.types.messages import ModelResponse


class OpenAIChatDecoder(StreamDecoder):
    """Decodes Chat Completions chunks (as JSON dicts)."""

    vendor = "openai"

    def __init__(self, names: ToolNameMap | None = None) -> None:
        super().__init__(names)
        self._slots: dict[Any, tuple[int, str]] = {}
        self._choices = 0
        self._cited = builtin_tools.Parts()

    def response(self) -> ModelResponse:
        """The reply, with a search model's citations."""
        reply = super().response()
        if self._cited.citations:
            reply.citations = list(self._cited.citations)
        return reply

    def feed(self, event: JSONDict) -> list[ModelDelta]:
        """Decode one chunk."""
        out: list[ModelDelta] = []
        if event is DONE_EVENT or event == DONE_EVENT:
            if not self.complete:
                self.end_all(out)
                self.complete = True
            return out
        error = event.get("error")
        if error:
            message = error.get("message", error) if isinstance(error, dict) else error
            raise StreamFailedError(f"{self.vendor} failed mid-stream: {message}")
        model = event.get("model")
        if model and model != self.model:
            self.model = str(model)
        choices = event.get("choices")
        if choices:
            choice = choices[0]
            self._choices += 1
            delta: JSONDict = choice.get("delta") or {}
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            if reasoning:
                self.reasoning(reasoning, out)
            content = delta.get("content")
            if content:
                self.text(content, out)
            annotations = delta.get("annotations")
            if annotations:
                builtin_tools.chat_annotations(annotations, self._cited)
            calls = delta.get("tool_calls")
            if calls:
                for item in calls:
                    self._call(item, out)
            reason = choice.get("finish_reason")
            if reason:
                self.finish_reason(str(reason), out)
                self.complete = True
        usage = event.get("usage")
        if isinstance(usage, dict):
            read, write = cache_counts(usage.get("prompt_tokens_details"))
            self.usage(usage.get("prompt_tokens"), usage.get("completion_tokens"), out, read, write)
        return out

    def finish(self) -> ModelResponse:
        """The whole reply; a `ReplyShapeError` when no chunk held a choice."""
        response = super().finish()
        if not self._choices:
            raise ReplyShapeError(self.vendor, "the stream ended without any choices")
        return response

    def _call(self, item: JSONDict, out: list[ModelDelta]) -> None:
        slot = item.get("index")
        if slot is not None and type(slot) is not int:
            kind = type(slot).__name__
            raise ReplyShapeError(
                self.vendor, f"a tool call delta's 'index' is a {kind}, not an integer", item
            )
        call_id = str(item["id"]) if item.get("id") else ""
        function: JSONDict = item.get("function") or {}
        current = self._slots.get(slot)
        if current is None or (call_id and call_id != current[1]):
            key = self.calls_started
            fresh_id = call_id or f"call_{uuid.uuid4().hex[:24]}"
            self.start_call(key, fresh_id, str(function.get("name") or ""), out)
            self._slots[slot] = current = (key, call_id or fresh_id)
        self.call_args(current[0], function.get("arguments"), out)
