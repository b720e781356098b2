"""The OpenAI Responses stream decoder (``response.*`` events).

``response.output_item.added`` opens a ``function_call`` item, its
``response.function_call_arguments.delta`` events carry the argument text, and
``.done`` closes it. ``response.completed`` (or ``response.incomplete``) is the
final event and carries the usage; ``response.failed`` and ``error`` raise. The items
to replay, the built-in tools' calls and results and the citations are read from the
final response object, as the codec reads them from a whole reply.

Reference: https://platform.openai.com/docs/api-reference/responses-streaming
"""

from __future__ import annotations

import uuid
from dataclasses import replace

from good_agent.providers.openai import responses_codec as openai_responses
from good_agent.providers.openai.chat_codec import cache_counts
from good_agent.providers.streaming.decoder import StreamDecoder, StreamFailedError
from good_agent.providers.streaming.deltas import ModelDelta
from good_agent.providers.tool_names import ToolNameMap
from good_agent.providers.types import JSONDict
from good_agent.types.messages import ModelResponse


class OpenAIResponsesDecoder(StreamDecoder):
    """Decodes Responses stream events (as JSON dicts)."""

    vendor = "openai"

    def __init__(self, names: ToolNameMap | None = None) -> None:
        super().__init__(names)
        self._summary: tuple[object, object] | None = None
        self._final: JSONDict = {}

    def feed(self, event: JSONDict) -> list[ModelDelta]:
        """Decode one event."""
        out: list[ModelDelta] = []
        kind = event.get("type")
        if kind in ("response.output_text.delta", "response.refusal.delta"):
            self.text(event.get("delta"), out)
        elif kind == "response.reasoning_summary_text.delta":
            part = (event.get("item_id"), event.get("summary_index"))
            if self._summary is not None and part != self._summary:
                self.reasoning("\n", out)
            self._summary = part
            self.reasoning(event.get("delta"), out)
        elif kind in ("response.output_item.added", "response.output_item.done"):
            self._item(kind, event.get("item") or {}, out)
        elif kind == "response.function_call_arguments.delta":
            self.call_args(event.get("item_id"), event.get("delta"), out)
        elif kind == "response.function_call_arguments.done":
            self.set_args(event.get("item_id"), str(event.get("arguments") or ""), out)
            self.end_call(event.get("item_id"), out)
        elif kind in ("response.created", "response.completed", "response.incomplete"):
            self._response(kind, event.get("response") or {}, out)
        elif kind in ("response.failed", "error"):
            failure = (event.get("response") or {}).get("error") or event.get("error") or event
            message = failure.get("message", failure) if isinstance(failure, dict) else failure
            raise StreamFailedError(f"{self.vendor} failed mid-stream: {message}")
        return out

    def _item(self, kind: object, item: JSONDict, out: list[ModelDelta]) -> None:
        if item.get("type") != "function_call":
            return
        key = item.get("id") or item.get("call_id")
        if not self.has_call(key):
            call_id = str(item.get("call_id") or item.get("id") or f"call_{uuid.uuid4().hex[:24]}")
            self.start_call(key, call_id, str(item.get("name") or ""), out)
        if kind == "response.output_item.done":
            self.set_args(key, str(item.get("arguments") or ""), out)
            self.end_call(key, out)

    def _response(self, kind: object, response: JSONDict, out: list[ModelDelta]) -> None:
        if response.get("model"):
            self.model = str(response["model"])
        if kind == "response.created":
            return
        self._final = response
        usage = response.get("usage") or {}
        read, write = cache_counts(usage.get("input_tokens_details"))
        self.usage(usage.get("input_tokens"), usage.get("output_tokens"), out, read, write)
        reason = "stop"
        if response.get("status") == "incomplete" or kind == "response.incomplete":
            detail = (response.get("incomplete_details") or {}).get("reason")
            reason = "content_filter" if detail == "content_filter" else "length"
        self.finish_reason(reason, out)
        self.complete = True

    def response(self) -> ModelResponse:
        """The reply, with the items to replay read from the final response object."""
        reply = super().response()
        if not self._final.get("output"):
            return reply
        whole = openai_responses.decode_response(self._final, self.names)
        return replace(
            reply,
            replay=whole.replay,
            builtin_calls=whole.builtin_calls,
            builtin_results=whole.builtin_results,
            citations=whole.citations,
        )
