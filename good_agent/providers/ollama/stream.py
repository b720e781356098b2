"""The Ollama stream decoder (``/api/chat`` NDJSON lines).

Each line carries a piece of ``message.content`` (or ``thinking``) or whole
``tool_calls``; the line with ``done: true`` is the final event and carries the
token counts and ``done_reason``.

Reference: https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion
"""

from __future__ import annotations

import json
import uuid

from good_agent.providers.streaming.decoder import StreamDecoder, StreamFailedError
from good_agent.providers.streaming.deltas import ModelDelta
from good_agent.providers.types import JSONDict


class OllamaDecoder(StreamDecoder):
    """Decodes ``/api/chat`` stream lines (as JSON dicts)."""

    vendor = "ollama"

    def feed(self, event: JSONDict) -> list[ModelDelta]:
        """Decode one line."""
        out: list[ModelDelta] = []
        if event.get("error"):
            raise StreamFailedError(f"{self.vendor} failed mid-stream: {event['error']}")
        if event.get("model"):
            self.model = str(event["model"])
        message: JSONDict = event.get("message") or {}
        self.reasoning(message.get("thinking"), out)
        self.text(message.get("content"), out)
        for item in message.get("tool_calls") or []:
            function: JSONDict = item.get("function") or {}
            arguments = function.get("arguments")
            text = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
            key = self.calls_started
            call_id = str(item.get("id") or f"call_{uuid.uuid4().hex[:24]}")
            self.whole_call(key, call_id, str(function.get("name") or ""), text, out)
        if event.get("done"):
            self.usage(event.get("prompt_eval_count"), event.get("eval_count"), out)
            reason = event.get("done_reason")
            self.finish_reason(str(reason) if reason else None, out)
            self.complete = True
        return out
