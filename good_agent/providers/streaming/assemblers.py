"""Streaming assemblers: provider stream events in, normalized tool calls out.

Each ``feed`` takes one event as a dict (an SDK event's ``model_dump()`` or the
JSON of a server-sent event) and runs in time proportional to its size.

References:
https://platform.openai.com/docs/api-reference/chat-streaming,
https://platform.openai.com/docs/api-reference/responses-streaming,
https://docs.anthropic.com/en/docs/build-with-claude/streaming and
https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
"""

from __future__ import annotations

from typing import Any

from good_agent.providers.gemini import new_call_id
from good_agent.providers.streaming.buffer import Assembler
from good_agent.providers.types import JSONDict


class OpenAIChatAssembler(Assembler):
    """Chat Completions chunks: ``choices[0].delta.tool_calls[i]`` keyed by ``index``."""

    def feed(self, chunk: JSONDict) -> None:
        """Consume one ``chat.completion.chunk``."""
        for choice in chunk.get("choices") or []:
            delta: JSONDict = choice.get("delta") or {}
            self.add_text(delta.get("content"))
            for item in delta.get("tool_calls") or []:
                buffer = self.buffer(item.get("index", 0))
                if item.get("id"):
                    buffer.id = str(item["id"])
                function: JSONDict = item.get("function") or {}
                if function.get("name"):
                    buffer.name += str(function["name"])
                buffer.add(function.get("arguments") or "")


class OpenAIResponsesAssembler(Assembler):
    """Responses events: ``response.output_item.added`` starts a ``function_call``,
    ``response.function_call_arguments.delta`` extends it, ``.done`` completes it."""

    def feed(self, event: JSONDict) -> None:
        """Consume one Responses stream event."""
        kind = event.get("type")
        if kind == "response.output_text.delta":
            self.add_text(event.get("delta"))
        elif kind in ("response.output_item.added", "response.output_item.done"):
            item: JSONDict = event.get("item") or {}
            if item.get("type") == "function_call":
                buffer = self.buffer(item.get("id") or event.get("output_index"))
                buffer.id = str(item.get("call_id") or buffer.id)
                buffer.name = str(item.get("name") or buffer.name)
                if kind == "response.output_item.done" and isinstance(item.get("arguments"), str):
                    buffer.fragments = [item["arguments"]]
        elif kind == "response.function_call_arguments.delta":
            self.buffer(event.get("item_id") or event.get("output_index")).add(
                str(event.get("delta") or "")
            )


class AnthropicAssembler(Assembler):
    """Messages stream events: ``content_block_start`` with a ``tool_use`` block, then
    ``content_block_delta`` events carrying ``input_json_delta.partial_json``."""

    def feed(self, event: JSONDict) -> None:
        """Consume one Messages stream event."""
        kind = event.get("type")
        index = event.get("index")
        if kind == "content_block_start":
            block: JSONDict = event.get("content_block") or {}
            if block.get("type") == "tool_use":
                buffer = self.buffer(index)
                buffer.id = str(block.get("id") or "")
                buffer.name = str(block.get("name") or "")
            elif block.get("type") == "text":
                self.add_text(block.get("text"))
        elif kind == "content_block_delta":
            delta: JSONDict = event.get("delta") or {}
            if delta.get("type") == "input_json_delta":
                self.buffer(index).add(str(delta.get("partial_json") or ""))
            elif delta.get("type") == "text_delta":
                self.add_text(delta.get("text"))


class GeminiAssembler(Assembler):
    """``streamGenerateContent`` chunks: each ``functionCall`` part arrives whole;
    calls are kept in order and given ids when Gemini sends none."""

    def __init__(self) -> None:
        super().__init__()
        self._count = 0

    def feed(self, chunk: JSONDict) -> None:
        """Consume one streamed ``GenerateContentResponse``."""
        for candidate in chunk.get("candidates") or []:
            content: Any = candidate.get("content") or {}
            for part in content.get("parts") or []:
                call = part.get("function_call") or part.get("functionCall")
                if isinstance(call, dict):
                    buffer = self.buffer(self._count)
                    self._count += 1
                    buffer.id = str(call.get("id") or new_call_id())
                    buffer.name = str(call.get("name") or "")
                    buffer.complete_arguments = dict(call.get("args") or {})
                elif isinstance(part.get("text"), str) and not part.get("thought"):
                    self.add_text(part["text"])
