"""The VALIDATED and PARSED strategies: tools described in the prompt, calls parsed
out of the reply text.

Tools are rendered into the system prompt (:mod:`good_agent.providers.prompting`);
the model writes ``<tool_call>`` blocks, or one JSON object under constrained
decoding; replies are parsed by :func:`good_agent.providers.text.parse_tool_calls`,
which also recognises the other common notations. ``VALIDATED`` checks every call
against its tool's schema, so a bad call goes back to the model as an error.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Callable
from typing import Any

from good_agent.providers.prompting import (
    CLOSE_TAG,
    OPEN_TAG,
    PromptStyle,
    constrained_request,
    tools_prompt,
)
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
from good_agent.providers.text import parse_text
from good_agent.providers.tool_names import tool_name
from good_agent.providers.types import ChatRequest, JSONDict, ParsedToolCall, ProviderResponse


def parse_calls(
    text: str, tools: list[JSONDict], format: str = "auto"
) -> tuple[list[ParsedToolCall], str | None, str | None]:
    """Parse tool calls out of ``text`` (a registered text ``format``):
    ``(calls, content, reasoning)``."""
    result = parse_text(text, [tool_name(tool) for tool in tools], format=format)
    return list(result.calls), result.content or None, result.reasoning


class PromptedAdapter(CodecAdapter):
    """Tools in the system prompt; calls parsed from text (``PARSED`` mode).

    Args:
        model: The upstream model id.
        codec: The wire format.
        strict: Unused here (kept for a uniform constructor).
        style: How tools are listed and whether constrained decoding is requested.
    """

    mode = ToolCallingMode.PARSED

    def __init__(
        self,
        model: str,
        codec: Any,
        *,
        strict: bool | None = False,
        style: PromptStyle | None = None,
    ) -> None:
        super().__init__(model, codec, strict=strict)
        self.style = style or PromptStyle()

    def format_request(
        self, tools: list[JSONDict], messages: list[JSONDict], **kw: Any
    ) -> JSONDict:
        """A request without the tools API; tools listed in the system prompt."""
        json_payload = self.style.constrained is not None and bool(tools)
        writer = _write_payload if json_payload else self._call_writer()
        history = rewrite_history(messages, writer, _write_result)
        settings = dict(kw.get("settings") or {})
        response_format = kw.get("response_format")
        if tools:
            history = with_system(history, tools_prompt(tools, kw.get("tool_choice"), self.style))
            constrained_format, extra = constrained_request(self.style, tools)
            response_format = constrained_format or response_format
            if extra:
                settings["extra_body"] = {**settings.get("extra_body", {}), **extra}
        request = ChatRequest(messages=history, settings=settings, response_format=response_format)
        return self.codec.encode_request(self.model, request)

    def decode(self, response: JSONDict, tools: list[JSONDict] | None = None) -> ProviderResponse:
        """Parse calls out of the reply text."""
        plain = self.codec.decode_response(response, None)
        if not tools or not plain.content:
            return plain
        calls, content, reasoning = parse_calls(plain.content, tools, self.style.text_format)
        calls = [self.check(unique_id(call), tools) for call in calls]
        return ProviderResponse(
            content=content,
            tool_calls=tuple(calls),
            finish_reason="tool_calls" if calls else plain.finish_reason,
            usage=plain.usage,
            reasoning=reasoning or plain.reasoning,
            model=plain.model,
            replay=plain.replay,
        )

    def check(self, call: ParsedToolCall, tools: list[JSONDict]) -> ParsedToolCall:
        """Hook for validation; ``PARSED`` keeps calls as parsed."""
        return call

    def assistant_turn(self, response: ProviderResponse) -> list[JSONDict]:
        """The reply with calls written in the tag notation."""
        return self._history(
            rewrite_history([neutral_assistant(response)], self._call_writer(), _write_result)
        )

    def tool_result_turn(self, results: list[JSONDict]) -> list[JSONDict]:
        """Tool results as a user message."""
        return self._history(rewrite_history(results, self._call_writer(), _write_result))

    def _call_writer(self) -> Callable[[JSONDict], str]:
        return _write_thought if self.style.notation == "thought" else _write_calls


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
        problems = list(verdict.problems) or [verdict.error_message or "invalid tool call"]
        return ParsedToolCall(
            call.id, call.name, None, call.raw_arguments, verdict.error_message, problems
        )


def _write_calls(message: JSONDict) -> str:
    text = str(message.get("content") or "")
    blocks = "".join(
        f"{OPEN_TAG}{dumps({'name': name, 'arguments': args})}{CLOSE_TAG}"
        for name, args in calls_of(message)
    )
    return f"{text}\n{blocks}".strip()


def _write_thought(message: JSONDict) -> str:
    thought = str(message.get("content") or "")
    objects = [
        {"thought": thought, "tool_name": name, "tool_args": args}
        for name, args in calls_of(message)
    ]
    return dumps(objects[0]) if len(objects) == 1 else dumps(objects)


def unique_id(call: ParsedToolCall) -> ParsedToolCall:
    """``call`` with an id unique in the conversation (parsers number calls per reply)."""
    return dataclasses.replace(call, id=f"call_{uuid.uuid4().hex[:16]}")


def _write_payload(message: JSONDict) -> str:
    calls = [{"name": name, "arguments": args} for name, args in calls_of(message)]
    return dumps({"tool_calls": calls})


def _write_result(message: JSONDict) -> str:
    return f"<tool_response>\n{result_text(message)}\n</tool_response>"
