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
import re
import uuid
from typing import Any

from good_agent.providers.arguments import parsed_call
from good_agent.providers.schema.nulls import drop_added_nulls
from good_agent.providers.schema.refs import has_refs
from good_agent.providers.schema.strict import to_strict_schema
from good_agent.providers.schema.strict_subset import strict_subset_problems
from good_agent.providers.strategies.base import ToolCallingMode
from good_agent.providers.strategies.context import RequestContext
from good_agent.providers.strategies.native import CodecStrategy, neutral_assistant
from good_agent.providers.strategies.reply_streams import ReplyStream, StructuredStream
from good_agent.providers.strategies.rewrite import (
    calls_of,
    dumps,
    result_text,
    rewrite_history,
    with_id,
    with_system,
)
from good_agent.providers.tool_choice import filter_tools, parse_tool_choice
from good_agent.providers.tool_names import tool_function, tool_name, tool_parameters
from good_agent.providers.types import ChatRequest, JSONDict
from good_agent.types.messages import ModelResponse, ToolCall

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


def tool_variant(tool: JSONDict, defs: JSONDict | None = None) -> JSONDict:
    """The ``anyOf`` variant that calls ``tool``.

    The tool's ``$defs`` move into ``defs`` (the reply schema's root ``$defs``),
    renamed per tool, so every ``$ref`` resolves from the root of the reply schema.
    """
    result = to_strict_schema(tool_parameters(tool), None)
    arguments = (
        hoist_definitions(result.schema, tool_name(tool), defs if defs is not None else {})
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
    defs: JSONDict = {}
    variants = [tool_variant(tool, defs) for tool in filter_tools(tools, choice)]
    if choice.kind in ("auto", "none") or not variants:
        variants += [ANSWER_VARIANT, SCRATCHPAD_VARIANT]
    schema: JSONDict = {
        "type": "object",
        "properties": {"action": {"anyOf": variants}},
        "required": ["action"],
        "additionalProperties": False,
    }
    if defs:
        schema["$defs"] = defs
    return schema


def response_format(tools: list[JSONDict], tool_choice: Any = None) -> JSONDict:
    """The ``response_format`` for structured mode.

    ``strict`` is true when the reply schema is inside OpenAI's strict subset
    (tools whose parameters are not get JSON-text arguments, so it nearly always is).
    """
    schema = reply_schema(tools, tool_choice)
    return {
        "type": "json_schema",
        "json_schema": {
            "name": SCHEMA_NAME,
            "schema": schema,
            "strict": not strict_subset_problems(schema),
        },
    }


def hoist_definitions(schema: JSONDict, tool: str, defs: JSONDict) -> JSONDict:
    """Move ``schema``'s ``$defs`` into ``defs`` under per-tool names; rewrite its refs.

    A reference to the tool's own root (``#``) points to the tool's arguments, which
    are then hoisted too. Returns the arguments schema to embed.
    """
    local: JSONDict = {}
    for key in ("$defs", "definitions"):
        local.update(schema.get(key) or {})
    if not local and not has_refs(schema):
        return schema
    base = re.sub(r"[^A-Za-z0-9_.-]", "_", tool) or "tool"
    prefix, count = base, 1
    while any(key == prefix or key.startswith(f"{prefix}__") for key in defs):
        count += 1
        prefix = f"{base}_{count}"
    renamed = {name: f"{prefix}__{name}" for name in local}

    def rewrite(node: Any) -> Any:
        if isinstance(node, dict):
            out = {k: rewrite(v) for k, v in node.items() if k not in ("$defs", "definitions")}
            ref = node.get("$ref")
            if isinstance(ref, str):
                out["$ref"] = _hoisted_ref(ref, prefix, renamed)
            return out
        if isinstance(node, list):
            return [rewrite(item) for item in node]
        return node

    for name, sub in local.items():
        defs[renamed[name]] = rewrite(sub)
    body: JSONDict = rewrite(schema)
    if _refers_to_root(schema):
        defs[prefix] = body
        return {"$ref": f"#/$defs/{prefix}"}
    return body


def _hoisted_ref(ref: str, prefix: str, renamed: dict[str, str]) -> str:
    if ref == "#":
        return f"#/$defs/{prefix}"
    for key in ("$defs", "definitions"):
        head = f"#/{key}/"
        if ref.startswith(head) and ref[len(head) :] in renamed:
            return f"#/$defs/{renamed[ref[len(head) :]]}"
    return ref


def _refers_to_root(node: Any) -> bool:
    if isinstance(node, dict):
        return node.get("$ref") == "#" or any(_refers_to_root(v) for v in node.values())
    if isinstance(node, list):
        return any(_refers_to_root(v) for v in node)
    return False


def decode_action(
    text: str | None, tools: dict[str, JSONDict]
) -> tuple[str | None, str | None, list[ToolCall]]:
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
        if call.arguments_error is None and tool is not None:
            restored = drop_added_nulls(call.arguments, tool_parameters(tool))
            call = ToolCall(
                id=call.id,
                name=name,
                arguments=restored,
                raw_arguments=call.raw_arguments or dumps(restored),
            )
        return None, scratch, [call]
    answer = action.get("answer")
    if isinstance(answer, str):
        return answer, scratch, []
    return scratch, None, []


class StructuredStrategy(CodecStrategy):
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

    def decode_reply(self, response: JSONDict, context: RequestContext) -> ModelResponse:
        """Decode the JSON reply into an answer or one tool call."""
        return self.finish_reply(self.codec.decode_response(response, None), context)

    def reply_stream(self, context: RequestContext) -> ReplyStream:
        """A streamed reply decoded when its JSON is complete."""
        return StructuredStream(
            self.codec.decoder(None), context, lambda plain: self.finish_reply(plain, context)
        )

    def decode(self, response: JSONDict, tools: list[JSONDict] | None = None) -> ModelResponse:
        """Decode the JSON reply into an answer or one tool call."""
        return self.decode_reply(response, self.context_of(list(tools or []), None))

    def finish_reply(self, plain: ModelResponse, context: RequestContext) -> ModelResponse:
        """The answer or call the plain reply's JSON text holds."""
        index = {tool_name(tool): tool for tool in context.tools}
        answer, scratchpad, calls = decode_action(plain.content, index)
        return ModelResponse(
            content=scratchpad if calls else answer,
            tool_calls=calls,
            finish_reason="tool_calls" if calls else plain.finish_reason,
            usage=plain.usage,
            reasoning=plain.reasoning,
            model=plain.model,
            replay=plain.replay,
            builtin_calls=plain.builtin_calls,
            builtin_results=plain.builtin_results,
            citations=plain.citations,
        )

    def assistant_turn(self, response: ModelResponse) -> list[JSONDict]:
        """The reply as the JSON text the model wrote."""
        return self._history(
            rewrite_history([neutral_assistant(response)], _write_calls, result_text)
        )

    def tool_result_turn(self, results: list[JSONDict]) -> list[JSONDict]:
        """Tool results as a user message."""
        return self._history(rewrite_history(results, _write_calls, result_text))


def _write_calls(message: JSONDict) -> str:
    actions = [
        with_id(
            call_id,
            {"action": {"tool": name, "arguments": args, "scratchpad": message.get("content")}},
        )
        for call_id, name, args in calls_of(message)
    ]
    return dumps(actions[0]) if len(actions) == 1 else dumps(actions)
