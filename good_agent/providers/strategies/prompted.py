"""The VALIDATED and PARSED strategies: tools described in the prompt, calls parsed
out of the reply text.

This is a first version: tools are rendered into the system prompt as JSON and the
model is asked to write ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``;
replies are parsed by :func:`good_agent.providers.text.parse_tool_calls` (imported
lazily), with a small built-in reader of that one notation as a fallback.
``VALIDATED`` also checks every call against its tool's schema.
"""

from __future__ import annotations

import importlib
import json
import uuid
from typing import Any

from good_agent.providers.arguments import parsed_call
from good_agent.providers.strategies.base import ToolCallingMode
from good_agent.providers.strategies.native import CodecAdapter, neutral_assistant
from good_agent.providers.strategies.rewrite import (
    calls_of,
    dumps,
    result_text,
    rewrite_history,
    with_system,
)
from good_agent.providers.strategies.validation import tools_by_name, validate_payload
from good_agent.providers.tool_choice import filter_tools, parse_tool_choice
from good_agent.providers.tool_names import tool_function, tool_name, tool_parameters
from good_agent.providers.types import ChatRequest, JSONDict, ParsedToolCall, ProviderResponse

OPEN_TAG = "<tool_call>"
CLOSE_TAG = "</tool_call>"


def tools_prompt(tools: list[JSONDict], tool_choice: Any = None) -> str:
    """The system-prompt section that lists ``tools`` and the call notation."""
    choice = parse_tool_choice(tool_choice)
    offered = filter_tools(tools, choice)
    listing = "\n".join(
        dumps(
            {
                "name": tool_name(tool),
                "description": tool_function(tool).get("description", ""),
                "parameters": tool_parameters(tool),
            }
        )
        for tool in offered
    )
    rule = (
        "You must call one of these tools."
        if choice.kind in ("required", "named")
        else "Call a tool only when it helps; otherwise answer in plain text."
    )
    return (
        "You can call these tools:\n"
        f"{listing}\n\n"
        f"To call a tool, write {OPEN_TAG}"
        '{"name": "<tool name>", "arguments": {...}}'
        f"{CLOSE_TAG} (one block per call). {rule}"
    )


def parse_calls(text: str, tools: list[JSONDict]) -> tuple[list[ParsedToolCall], str | None]:
    """Parse tool calls out of ``text`` with the shared text parsers."""
    try:
        module = importlib.import_module("good_agent.providers.text")
    except ImportError:
        return _parse_tags(text)
    parse = getattr(module, "parse_tool_calls", None)
    if parse is None:
        return _parse_tags(text)
    calls, content = parse(text, [tool_name(tool) for tool in tools])
    return list(calls), content or None


def _parse_tags(text: str) -> tuple[list[ParsedToolCall], str | None]:
    calls: list[ParsedToolCall] = []
    kept: list[str] = []
    position = 0
    while True:
        start = text.find(OPEN_TAG, position)
        if start < 0:
            kept.append(text[position:])
            break
        end = text.find(CLOSE_TAG, start)
        if end < 0:
            kept.append(text[position:])
            break
        kept.append(text[position:start])
        calls.append(_tag_call(text[start + len(OPEN_TAG) : end]))
        position = end + len(CLOSE_TAG)
    content = "".join(kept).strip()
    return calls, content or None


def _tag_call(body: str) -> ParsedToolCall:
    call_id = f"call_{uuid.uuid4().hex[:12]}"
    try:
        value = json.loads(body)
    except ValueError as exc:
        return ParsedToolCall(call_id, "", None, body, f"the tool call is not valid JSON ({exc})")
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        return ParsedToolCall(call_id, "", None, body, 'the tool call needs a "name"')
    return parsed_call(call_id, value["name"], value.get("arguments", {}))


class PromptedAdapter(CodecAdapter):
    """Tools in the system prompt; calls parsed from text (``PARSED`` mode)."""

    mode = ToolCallingMode.PARSED

    def format_request(
        self, tools: list[JSONDict], messages: list[JSONDict], **kw: Any
    ) -> JSONDict:
        """A request without the tools API; tools listed in the system prompt."""
        history = rewrite_history(messages, _write_calls, _write_result)
        if tools:
            history = with_system(history, tools_prompt(tools, kw.get("tool_choice")))
        request = ChatRequest(messages=history, settings=dict(kw.get("settings") or {}))
        return self.codec.encode_request(self.model, request)

    def decode(self, response: JSONDict, tools: list[JSONDict] | None = None) -> ProviderResponse:
        """Parse calls out of the reply text."""
        plain = self.codec.decode_response(response, None)
        if not tools or not plain.content:
            return plain
        calls, content = parse_calls(plain.content, tools)
        calls = [self.check(call, tools) for call in calls]
        return ProviderResponse(
            content=content,
            tool_calls=tuple(calls),
            finish_reason="tool_calls" if calls else plain.finish_reason,
            usage=plain.usage,
            reasoning=plain.reasoning,
            model=plain.model,
        )

    def check(self, call: ParsedToolCall, tools: list[JSONDict]) -> ParsedToolCall:
        """Hook for validation; ``PARSED`` keeps calls as parsed."""
        return call

    def assistant_turn(self, response: ProviderResponse) -> list[JSONDict]:
        """The reply with calls written in the tag notation."""
        return self._history(
            rewrite_history([neutral_assistant(response)], _write_calls, _write_result)
        )

    def tool_result_turn(self, results: list[JSONDict]) -> list[JSONDict]:
        """Tool results as a user message."""
        return self._history(rewrite_history(results, _write_calls, _write_result))


class ValidatedAdapter(PromptedAdapter):
    """Like :class:`PromptedAdapter`, and each call is validated against its schema."""

    mode = ToolCallingMode.VALIDATED

    def check(self, call: ParsedToolCall, tools: list[JSONDict]) -> ParsedToolCall:
        """Mark a call whose name or arguments are invalid with an error."""
        if call.error is not None:
            return call
        verdict = validate_payload(
            {"tool": call.name, "arguments": call.arguments}, tools_by_name(tools)
        )
        if verdict.is_valid:
            return call
        return ParsedToolCall(call.id, call.name, None, call.raw_arguments, verdict.error_message)


def _write_calls(message: JSONDict) -> str:
    text = str(message.get("content") or "")
    blocks = "".join(
        f"{OPEN_TAG}{dumps({'name': name, 'arguments': args})}{CLOSE_TAG}"
        for name, args in calls_of(message)
    )
    return f"{text}\n{blocks}".strip()


def _write_result(message: JSONDict) -> str:
    return f"<tool_response>\n{result_text(message)}\n</tool_response>"
