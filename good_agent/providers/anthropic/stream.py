"""The Anthropic Messages stream decoder (``message_start`` ... ``message_stop``).

``content_block_start`` opens a text, thinking or ``tool_use`` block, its
``content_block_delta`` events carry ``text_delta``, ``thinking_delta`` or
``input_json_delta`` pieces, and ``content_block_stop`` closes it. The input
tokens arrive in ``message_start``, the stop reason and output tokens in
``message_delta``; ``message_stop`` is the final event, ``error`` raises.
``thinking`` blocks (their text and ``signature_delta``) and ``redacted_thinking``
blocks are rebuilt whole into the reply's ``replay``, as the codec keeps them from a
whole reply, so the next request sends them back with their signatures. Server tool
blocks (``server_tool_use``, its input in ``input_json_delta`` pieces, and the whole
``*_tool_result`` blocks) are rebuilt the same way, and ``citations_delta`` pieces give
the reply's citations.

Reference: https://docs.anthropic.com/en/docs/build-with-claude/streaming
"""

from __future__ import annotations

import json
from dataclasses import replace

from good_agent.providers import builtin_tools
from good_agent.providers.anthropic.codec import (
    STOP_REASONS,
    THINKING_TYPES,
    hour_writes,
    usage_counts,
)
from good_agent.providers.streaming.decoder import StreamDecoder, StreamFailedError
from good_agent.providers.streaming.deltas import ModelDelta
from good_agent.providers.tool_names import ToolNameMap
from good_agent.providers.types import JSONDict
from good_agent.types.messages import ModelResponse


class AnthropicDecoder(StreamDecoder):
    """Decodes Messages stream events (as JSON dicts)."""

    vendor = "anthropic"

    def __init__(self, names: ToolNameMap | None = None) -> None:
        super().__init__(names)
        self._thinking: dict[object, JSONDict] = {}
        self._server_input: dict[object, list[str]] = {}
        self._citations: list[JSONDict] = []

    def response(self) -> ModelResponse:
        """The reply, with its thinking and server tool blocks to replay."""
        reply = super().response()
        if not self._thinking and not self._citations:
            return reply
        server = builtin_tools.Parts()
        blocks = []
        for index, block in self._thinking.items():
            if index in self._server_input:
                text = "".join(self._server_input[index])
                block = {**block, "input": json.loads(text) if text else {}}
            builtin_tools.anthropic_block(block, server)
            blocks.append(block)
        builtin_tools.anthropic_citations(self._citations, server)
        return replace(reply, replay=blocks, **server.as_fields())

    def feed(self, event: JSONDict) -> list[ModelDelta]:
        """Decode one event."""
        out: list[ModelDelta] = []
        kind = event.get("type")
        index = event.get("index")
        if kind == "content_block_start":
            block: JSONDict = event.get("content_block") or {}
            if block.get("type") == "tool_use":
                self.start_call(
                    index, str(block.get("id") or ""), str(block.get("name") or ""), out
                )
            elif block.get("type") == "text":
                self.text(block.get("text"), out)
            elif block.get("type") in builtin_tools.ANTHROPIC_SERVER_TYPES:
                self._thinking[index] = {k: v for k, v in block.items() if v is not None}
                if block.get("type") == "server_tool_use":
                    self._server_input[index] = []
            elif block.get("type") in THINKING_TYPES:
                self._thinking[index] = {k: v for k, v in block.items() if v is not None}
                if block.get("type") == "thinking":
                    self.reasoning(block.get("thinking"), out)
        elif kind == "content_block_delta":
            delta: JSONDict = event.get("delta") or {}
            sort = delta.get("type")
            if sort == "text_delta":
                self.text(delta.get("text"), out)
            elif sort == "input_json_delta" and index in self._server_input:
                piece = delta.get("partial_json")
                if isinstance(piece, str):
                    self._server_input[index].append(piece)
            elif sort == "input_json_delta":
                self.call_args(index, delta.get("partial_json"), out)
            elif sort == "citations_delta" and isinstance(delta.get("citation"), dict):
                self._citations.append(delta["citation"])
            elif sort == "thinking_delta":
                self.reasoning(delta.get("thinking"), out)
                self._add(index, "thinking", delta.get("thinking"))
            elif sort == "signature_delta":
                self._add(index, "signature", delta.get("signature"))
        elif kind == "content_block_stop":
            self.end_call(index, out)
        elif kind == "message_start":
            message: JSONDict = event.get("message") or {}
            if message.get("model"):
                self.model = str(message["model"])
            usage: JSONDict = message.get("usage") or {}
            total, output, read, write = usage_counts(usage)
            self.usage(total, output, out, read, write, hour_writes(usage))
        elif kind == "message_delta":
            usage = event.get("usage") or {}
            total, output, read, write = usage_counts(usage)
            self.usage(total, output, out, read, write, hour_writes(usage))
            stop = (event.get("delta") or {}).get("stop_reason")
            if stop:
                self.finish_reason(STOP_REASONS.get(str(stop), str(stop)), out)
        elif kind == "message_stop":
            self.end_all(out)
            self.complete = True
        elif kind == "error":
            error = event.get("error") or {}
            message_text = error.get("message", error) if isinstance(error, dict) else error
            raise StreamFailedError(f"{self.vendor} failed mid-stream: {message_text}")
        return out

    def _add(self, index: object, key: str, piece: object) -> None:
        block = self._thinking.get(index)
        if block is not None and isinstance(piece, str):
            block[key] = str(block.get(key) or "") + piece
