"""The STRUCTURED strategy: one strict JSON-schema reply that names a tool or answers.

The reply schema is an object with one property, ``action``, whose ``anyOf`` has one
variant per tool (``{"tool": name, "arguments": {...}, "scratchpad": str | null}``),
an answer variant (``{"answer": str, "scratchpad": str | null}``) and a
scratchpad-only variant. The root is an object because OpenAI requires it (a root
``anyOf`` is rejected). A tool whose parameters cannot be strict gets its
arguments as JSON text instead. ``tool_choice`` is enforced by the variants offered.

Reference: https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from good_agent.providers.arguments import parsed_call
from good_agent.providers.schema.openai import drop_added_nulls, to_openai_schema
from good_agent.providers.strategies.base import ToolCallingMode
from good_agent.providers.strategies.context import RequestContext
from good_agent.providers.strategies.native import CodecAdapter, neutral_assistant
from good_agent.providers.strategies.reply_streams import ReplyStream, StructuredStream
from good_agent.providers.strategies.rewrite import (
    calls_of,
    dumps,
    result_text,
    rewrite_history,
    with_system,
)
from good_agent.providers.tool_choice import filter_tools, parse_tool_choice
from good_agent.providers.tool_names import tool_function, tool_name, tool_parameters
from good_agent.providers.types import ChatRequest, JSONDict, ParsedToolCall, ProviderResponse

SCHEMA_NAME = "tool_call_or_answer"
"""The ``json_schema.name`` sent with the response format."""

_NULLABLE_TEXT: JSONDict = {"type": ["string", "null"], "description": "Private reasoning."}

INSTRUCTIONS = (
    "Reply with one JSON object whose `action` either calls one tool "
    '(`{"tool": name, "arguments": {...}, "scratchpad": ...}`) or gives the final '
    'answer (`{"answer": text, "scratchpad": ...}`). Tool results come back as user '
    "messages."
)
"""System-prompt text added in structured mode."""


def tool_variant(tool: JSONDict) -> JSONDict:
    """The ``anyOf`` variant that calls ``tool``."""
    result = to_openai_schema(tool_parameters(tool), None)
    arguments = (
        result.schema
        if result.strict
        else {"type": "string", "description": "The arguments as JSON object text."}
    )
    variant: JSONDict = {
        "type": "object",
        "properties": {
            "tool": {"type": "string", "enum": [tool_name(tool)]},
            "arguments": arguments,
            "scratchpad": _NULLABLE_TEXT,
        },
        "required": ["tool", "arguments", "scratchpad"],
        "additionalProperties": False,
    }
    description = tool_function(tool).get("description")
    if description:
        variant["description"] = str(description)
    return variant


ANSWER_VARIANT: JSONDict = {
    "type": "object",
    "properties": {"answer": {"type": "string"}, "scratchpad": _NULLABLE_TEXT},
    "required": ["answer", "scratchpad"],
    "additionalProperties": False,
}
"""The variant that gives the final answer."""

SCRATCHPAD_VARIANT: JSONDict = {
    "type": "object",
    "properties": {"scratchpad": {"type": "string"}},
    "required": ["scratchpad"],
    "additionalProperties": False,
}
"""The variant that only thinks aloud (decoded as an answer of its text)."""


def reply_schema(tools: list[JSONDict], tool_choice: Any = None) -> JSONDict:
    """The strict reply schema for ``tools`` under ``tool_choice``."""
    choice = parse_tool_choice(tool_choice)
    variants = [tool_variant(tool) for tool in filter_tools(tools, choice)]
    if choice.kind in ("auto", "none") or not variants:
        variants += [ANSWER_VARIANT, SCRATCHPAD_VARIANT]
    return {
        "type": "object",
        "properties": {"action": {"anyOf": variants}},
        "required": ["action"],
        "additionalProperties": False,
    }


def response_format(tools: list[JSONDict], tool_choice: Any = None) -> JSONDict:
    """The ``response_format`` for structured mode."""
    return {
        "type": "json_schema",
        "json_schema": {
            "name": SCHEMA_NAME,
            "schema": reply_schema(tools, tool_choice),
            "strict": True,
        },
    }


def decode_action(
    text: str | None, tools: dict[str, JSONDict]
) -> tuple[str | None, str | None, list[ParsedToolCall]]:
    """Decode a structured reply into ``(answer, scratchpad, calls)``.

    Text that is not the expected JSON is returned as the answer unchanged.
    """
    if not text:
        return text, None, []
    try:
        value = json.loads(text)
    except ValueError:
        return text, None, []
    action = value.get("action", value) if isinstance(value, dict) else None
    if not isinstance(action, dict):
        return text, None, []
    scratchpad = action.get("scratchpad")
    scratch = scratchpad if isinstance(scratchpad, str) else None
    name = action.get("tool")
    if isinstance(name, str):
        raw = action.get("arguments")
        call = parsed_call(f"call_{uuid.uuid4().hex[:12]}", name, raw)
        tool = tools.get(name)
        if call.arguments is not None and tool is not None:
            restored = drop_added_nulls(call.arguments, tool_parameters(tool))
            call = ParsedToolCall(call.id, name, restored, call.raw_arguments or dumps(restored))
        return None, scratch, [call]
    answer = action.get("answer")
    if isinstance(answer, str):
        return answer, scratch, []
    return scratch, None, []


class StructuredAdapter(CodecAdapter):
    """Tools offered as variants of a strict JSON-schema reply."""

    mode = ToolCallingMode.STRUCTURED

    def format_request(
        self, tools: list[JSONDict], messages: list[JSONDict], **kw: Any
    ) -> JSONDict:
        """A request with no tools API, the reply schema and a rewritten history."""
        history = rewrite_history(messages, _write_calls, result_text)
        if tools:
            history = with_system(history, INSTRUCTIONS)
        request = ChatRequest(
            messages=history,
            response_format=response_format(tools, kw.get("tool_choice")) if tools else None,
            settings=dict(kw.get("settings") or {}),
        )
        return self.codec.encode_request(self.model, request)

    def encode(
        self, tools: list[JSONDict], messages: list[JSONDict], **kw: Any
    ) -> tuple[JSONDict, RequestContext]:
        """The structured request body, and the context its reply is decoded with."""
        return self.format_request(tools, messages, **kw), self.context_of(tools, None, **kw)

    def decode_reply(self, response: JSONDict, context: RequestContext) -> ProviderResponse:
        """Decode the JSON reply into an answer or one tool call."""
        return self.finish_reply(self.codec.decode_response(response, None), context)

    def reply_stream(self, context: RequestContext) -> ReplyStream:
        """A streamed reply decoded when its JSON is complete."""
        return StructuredStream(
            self.codec.decoder(None), context, lambda plain: self.finish_reply(plain, context)
        )

    def decode(self, response: JSONDict, tools: list[JSONDict] | None = None) -> ProviderResponse:
        """Decode the JSON reply into an answer or one tool call."""
        return self.decode_reply(response, self.context_of(list(tools or []), None))

    def finish_reply(self, plain: ProviderResponse, context: RequestContext) -> ProviderResponse:
        """The answer or call the plain reply's JSON text holds."""
        index = {tool_name(tool): tool for tool in context.tools}
        answer, scratchpad, calls = decode_action(plain.content, index)
        return ProviderResponse(
            content=scratchpad if calls else answer,
            tool_calls=tuple(calls),
            finish_reason="tool_calls" if calls else plain.finish_reason,
            usage=plain.usage,
            reasoning=plain.reasoning,
            model=plain.model,
        )

    def assistant_turn(self, response: ProviderResponse) -> list[JSONDict]:
        """The reply as the JSON text the model wrote."""
        return self._history(
            rewrite_history([neutral_assistant(response)], _write_calls, result_text)
        )

    def tool_result_turn(self, results: list[JSONDict]) -> list[JSONDict]:
        """Tool results as a user message."""
        return self._history(rewrite_history(results, _write_calls, result_text))


def _write_calls(message: JSONDict) -> str:
    actions = [
        {"action": {"tool": name, "arguments": args, "scratchpad": message.get("content")}}
        for name, args in calls_of(message)
    ]
    return dumps(actions[0]) if len(actions) == 1 else dumps(actions)
