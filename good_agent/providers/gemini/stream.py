"""The Gemini stream decoder (``streamGenerateContent`` responses).

Each streamed ``GenerateContentResponse`` carries whole parts: text, thought text
(reasoning), a whole ``functionCall`` or a code execution part (kept for the
reply's built-in tool parts and replay, with the grounding and URL context metadata
the chunks carry). The chunk whose candidate has a
``finishReason`` is the final event. Both the REST API's camelCase and the SDK's
snake_case field names are read.

Reference: https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
"""

from __future__ import annotations

import json
from dataclasses import replace

from good_agent.providers import builtin_tools
from good_agent.providers.gemini.codec import FINISH_REASONS, field_of, new_call_id
from good_agent.providers.streaming.decoder import StreamDecoder, StreamFailedError
from good_agent.providers.streaming.deltas import ModelDelta
from good_agent.providers.tool_names import ToolNameMap
from good_agent.providers.types import JSONDict
from good_agent.types.messages import ModelResponse


class GeminiDecoder(StreamDecoder):
    """Decodes streamed ``GenerateContentResponse`` objects (as JSON dicts)."""

    vendor = "gemini"

    def __init__(self, names: ToolNameMap | None = None) -> None:
        super().__init__(names)
        self._hosted = builtin_tools.Parts()
        self._replay: list[JSONDict] = []
        self._metadata: JSONDict = {}

    def response(self) -> ModelResponse:
        """The reply, with its code execution parts and grounding."""
        reply = super().response()
        if not self._replay and not self._metadata:
            return reply
        hosted = builtin_tools.Parts()
        hosted.calls, hosted.results = list(self._hosted.calls), list(self._hosted.results)
        builtin_tools.gemini_grounding(self._metadata, hosted)
        return replace(reply, replay=list(self._replay), **hosted.as_fields())

    def feed(self, event: JSONDict) -> list[ModelDelta]:
        """Decode one streamed response."""
        out: list[ModelDelta] = []
        error = event.get("error")
        if error:
            message = error.get("message", error) if isinstance(error, dict) else error
            raise StreamFailedError(f"{self.vendor} failed mid-stream: {message}")
        version = field_of(event, "model_version")
        if version:
            self.model = str(version)
        usage = field_of(event, "usage_metadata")
        for candidate in (field_of(event, "candidates") or [])[:1]:
            for name in ("grounding_metadata", "url_context_metadata"):
                found = field_of(candidate, name)
                if isinstance(found, dict):
                    self._metadata[name] = found
            for part in field_of(field_of(candidate, "content"), "parts") or []:
                call = field_of(part, "function_call")
                kept = builtin_tools.gemini_part(part, self._hosted)
                if kept is not None:
                    self._replay.append(kept)
                elif isinstance(call, dict):
                    arguments = json.dumps(call.get("args") or {})
                    key = self.calls_started
                    call_id = str(call.get("id") or new_call_id())
                    self.whole_call(key, call_id, str(call.get("name") or ""), arguments, out)
                elif isinstance(part.get("text"), str):
                    if part.get("thought"):
                        self.reasoning(part["text"], out)
                    else:
                        self.text(part["text"], out)
            reason = field_of(candidate, "finish_reason")
            if reason:
                self._usage(usage, out)
                usage = None
                self.finish_reason(FINISH_REASONS.get(str(reason), str(reason).lower()), out)
                self.complete = True
        self._usage(usage, out)
        return out

    def _usage(self, usage: object, out: list[ModelDelta]) -> None:
        if not isinstance(usage, dict):
            return
        candidates = field_of(usage, "candidates_token_count")
        thoughts = field_of(usage, "thoughts_token_count")
        output: int | None = None
        if candidates is not None or thoughts is not None:
            output = int(candidates or 0) + int(thoughts or 0)
        cached = field_of(usage, "cached_content_token_count")
        self.usage(field_of(usage, "prompt_token_count"), output, out, cached)
