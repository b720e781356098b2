"""Per-provider stream decoders: one upstream stream event in, neutral events out.

Each decoder handles one event in time proportional to its size and maps
sanitized tool names back through the request's
:class:`~good_agent.providers.tool_names.ToolNameMap`.

References:
https://platform.openai.com/docs/api-reference/chat-streaming,
https://docs.anthropic.com/en/docs/build-with-claude/streaming,
https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent and
https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion
"""

from __future__ import annotations

import json
from typing import Protocol

from good_agent.providers.anthropic_messages import STOP_REASONS
from good_agent.providers.gemini import FINISH_REASONS, field_of, new_call_id
from good_agent.providers.tool_names import ToolNameMap
from good_agent.providers.types import JSONDict
from good_agent.server.events import CallDelta, Finish, StreamEvent, TextDelta, UsageDelta


class StreamDecoder(Protocol):
    """Turns one provider stream event into neutral events."""

    def feed(self, event: JSONDict) -> list[StreamEvent]:
        """Decode one event."""
        ...


class _Base:
    def __init__(self, names: ToolNameMap | None) -> None:
        self.names = names

    def original(self, name: str) -> str:
        return self.names.to_original(name) if self.names is not None else name


class OpenAIChatDecoder(_Base):
    """``chat.completion.chunk`` objects."""

    def feed(self, event: JSONDict) -> list[StreamEvent]:
        """Decode one chunk."""
        out: list[StreamEvent] = []
        for choice in event.get("choices") or []:
            delta: JSONDict = choice.get("delta") or {}
            if delta.get("content"):
                out.append(TextDelta(str(delta["content"])))
            for item in delta.get("tool_calls") or []:
                function: JSONDict = item.get("function") or {}
                name = function.get("name")
                out.append(
                    CallDelta(
                        int(item.get("index") or 0),
                        str(item["id"]) if item.get("id") else None,
                        self.original(str(name)) if name else None,
                        str(function.get("arguments") or ""),
                    )
                )
            if choice.get("finish_reason"):
                out.append(Finish(str(choice["finish_reason"])))
        usage = event.get("usage")
        if isinstance(usage, dict):
            out.append(UsageDelta(usage.get("prompt_tokens"), usage.get("completion_tokens")))
        return out


class AnthropicDecoder(_Base):
    """Messages stream events (``message_start`` ... ``message_stop``)."""

    def __init__(self, names: ToolNameMap | None) -> None:
        super().__init__(names)
        self._calls: dict[int, int] = {}

    def feed(self, event: JSONDict) -> list[StreamEvent]:
        """Decode one event."""
        kind = event.get("type")
        if kind == "message_start":
            usage = (event.get("message") or {}).get("usage") or {}
            return [UsageDelta(usage.get("input_tokens"), usage.get("output_tokens"))]
        if kind == "content_block_start":
            block: JSONDict = event.get("content_block") or {}
            if block.get("type") == "tool_use":
                index = self._calls[int(event.get("index") or 0)] = len(self._calls)
                name = self.original(str(block.get("name") or ""))
                return [CallDelta(index, str(block.get("id") or ""), name, "")]
            if block.get("type") == "text" and block.get("text"):
                return [TextDelta(str(block["text"]))]
            return []
        if kind == "content_block_delta":
            delta: JSONDict = event.get("delta") or {}
            if delta.get("type") == "text_delta" and delta.get("text"):
                return [TextDelta(str(delta["text"]))]
            if delta.get("type") == "input_json_delta":
                found = self._calls.get(int(event.get("index") or 0))
                fragment = str(delta.get("partial_json") or "")
                if found is not None and fragment:
                    return [CallDelta(found, None, None, fragment)]
            return []
        if kind == "message_delta":
            out: list[StreamEvent] = []
            stop = (event.get("delta") or {}).get("stop_reason")
            if stop:
                out.append(Finish(STOP_REASONS.get(str(stop), str(stop))))
            usage = event.get("usage") or {}
            if usage:
                out.append(UsageDelta(usage.get("input_tokens"), usage.get("output_tokens")))
            return out
        return []


class GeminiDecoder(_Base):
    """Streamed ``GenerateContentResponse`` objects; each function call arrives whole."""

    def __init__(self, names: ToolNameMap | None) -> None:
        super().__init__(names)
        self._count = 0

    def feed(self, event: JSONDict) -> list[StreamEvent]:
        """Decode one streamed response."""
        out: list[StreamEvent] = []
        for candidate in (field_of(event, "candidates") or [])[:1]:
            for part in field_of(field_of(candidate, "content"), "parts") or []:
                call = field_of(part, "function_call")
                if isinstance(call, dict):
                    arguments = json.dumps(call.get("args") or {}, ensure_ascii=False)
                    name = self.original(str(call.get("name") or ""))
                    out.append(
                        CallDelta(
                            self._count, str(call.get("id") or new_call_id()), name, arguments
                        )
                    )
                    self._count += 1
                elif isinstance(part.get("text"), str) and part["text"] and not part.get("thought"):
                    out.append(TextDelta(part["text"]))
            reason = field_of(candidate, "finish_reason")
            if reason:
                out.append(Finish(FINISH_REASONS.get(str(reason), str(reason).lower())))
        usage = field_of(event, "usage_metadata")
        if isinstance(usage, dict):
            candidates = field_of(usage, "candidates_token_count")
            thoughts = field_of(usage, "thoughts_token_count")
            output: int | None = None
            if candidates is not None or thoughts is not None:
                output = int(candidates or 0) + int(thoughts or 0)
            out.append(UsageDelta(field_of(usage, "prompt_token_count"), output))
        return out


class OllamaDecoder(_Base):
    """``/api/chat`` NDJSON lines; tool calls arrive whole."""

    def __init__(self, names: ToolNameMap | None) -> None:
        super().__init__(names)
        self._count = 0

    def feed(self, event: JSONDict) -> list[StreamEvent]:
        """Decode one line."""
        out: list[StreamEvent] = []
        message: JSONDict = event.get("message") or {}
        if message.get("content"):
            out.append(TextDelta(str(message["content"])))
        for item in message.get("tool_calls") or []:
            function: JSONDict = item.get("function") or {}
            arguments = function.get("arguments")
            text = (
                arguments
                if isinstance(arguments, str)
                else json.dumps(arguments or {}, ensure_ascii=False)
            )
            call_id = str(item.get("id") or f"call_{new_call_id()[-12:]}")
            name = self.original(str(function.get("name") or ""))
            out.append(CallDelta(self._count, call_id, name, text))
            self._count += 1
        if event.get("done"):
            out.append(UsageDelta(event.get("prompt_eval_count"), event.get("eval_count")))
            out.append(Finish(str(event.get("done_reason") or "stop")))
        return out
