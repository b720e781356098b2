"""The VALIDATED and PARSED strategies: tools described in the prompt, calls parsed
out of the reply text.

Tools are rendered into the system prompt (`good_agent.providers.prompting`);
the model writes ``<tool_call>`` blocks, or one JSON object under constrained
decoding; replies are parsed by `good_agent.providers.text.parse_tool_calls`,
which also recognises the other common notations. ``VALIDATED`` checks every call
against its tool's schema, so a bad call goes back to the model as an error.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from good_agent.providers.arguments import invalid_call, with_call_changes
from good_agent.providers.prompting import (
    CLOSE_TAG,
    OPEN_TAG,
    PromptStyle,
    answer_format_rule,
    constrained_request,
    tools_prompt,
)
from good_agent.providers.strategies.base import ToolCallingMode
from good_agent.providers.strategies.context import RequestContext
from good_agent.providers.strategies.native import CodecStrategy, neutral_assistant
from good_agent.providers.strategies.reply_streams import ReplyStream, TextCallStream
from good_agent.providers.strategies.rewrite import (
    calls_of,
    dumps,
    result_text,
    rewrite_history,
    with_id,
    with_system,
)
from good_agent.providers.strategies.validation import tools_by_name, validate_payload
from good_agent.providers.text import (
    FormatParser,
    StreamingParser,
    ToolCallParser,
    get_parser,
    parse_text,
)
from good_agent.providers.tool_choice import filter_tools, parse_tool_choice
from good_agent.providers.tool_names import tool_name
from good_agent.providers.types import ChatRequest, JSONDict
from good_agent.types.messages import ModelResponse, ToolCall


def parse_calls(
    text: str, tools: list[JSONDict], format: str = "auto"
) -> tuple[list[ToolCall], str | None, str | None]:
    """Parse tool calls out of ``text`` (a registered text ``format``):
    ``(calls, content, reasoning)``."""
    result = parse_text(text, [tool_name(tool) for tool in tools], format=format)
    return list(result.calls), result.content or None, result.reasoning


def prompted_parser(text_format: str = "auto") -> ToolCallParser:
    """The parser of prompted replies: ``text_format``, plus the ``<tool_call>`` tags
    the tools prompt asks for (a model may answer in either)."""
    chosen = get_parser(text_format)
    if text_format == "auto" or not isinstance(chosen, FormatParser):
        return chosen
    hermes = get_parser("hermes")
    if not isinstance(hermes, FormatParser):
        return chosen
    extra = [marker for marker in hermes.markers if marker not in chosen.markers]
    return FormatParser(f"{text_format}+hermes", [*chosen.markers, *extra])


class PromptedStrategy(CodecStrategy):
    """Tools in the system prompt; calls parsed from text (``PARSED`` mode).

    Args:
        model: The upstream model id.
        codec: The wire format.
        strict: Unused here (kept for a uniform constructor).
        style: How tools are listed and whether constrained decoding is requested.
        text_format: The text format replies are parsed in (``auto``: the style's,
            see `PromptStyle.text_format`), see `prompted_parser`;
            streamed and whole replies use the same.
    """

    mode = ToolCallingMode.PARSED

    def __init__(
        self,
        model: str,
        codec: Any,
        *,
        strict: bool | None = False,
        style: PromptStyle | None = None,
        text_format: str = "auto",
    ) -> None:
        super().__init__(model, codec, strict=strict)
        self.style = style or PromptStyle()
        self.text_format = text_format if text_format != "auto" else self.style.text_format
        self.parser = prompted_parser(self.text_format)

    def encode(
        self, tools: list[JSONDict], messages: list[JSONDict], **kw: Any
    ) -> tuple[JSONDict, RequestContext]:
        """The prompted request body, and the context its reply is decoded with."""
        return self.format_request(tools, messages, **kw), self.context_of(tools, None, **kw)

    def decode_reply(self, response: JSONDict, context: RequestContext) -> ModelResponse:
        """Parse calls out of the reply text (none with ``tool_choice: none``)."""
        plain = self.codec.decode_response(response, None)
        if not context.calls_allowed or not plain.content:
            return plain
        parser = self.parser.streaming(context.tool_names)
        parser.feed(plain.content)
        parser.finish()
        return self.finish_reply(plain, parser, [], context)

    def reply_stream(self, context: RequestContext) -> ReplyStream:
        """A streamed reply whose text is parsed for calls as it arrives."""
        decoder = self.codec.decoder(None)
        if not context.calls_allowed:
            return ReplyStream(decoder, context)
        return TextCallStream(
            decoder,
            context,
            self.parser.streaming(context.tool_names),
            lambda plain, parser, ids: self.finish_reply(plain, parser, ids, context),
            new_call_id,
        )

    def finish_reply(
        self,
        plain: ModelResponse,
        parser: StreamingParser,
        ids: list[str],
        context: RequestContext,
    ) -> ModelResponse:
        """The reply from the plain reply and a finished parser (``ids``: given while streaming)."""
        result = parser.result()
        tools = list(context.tools)
        # The parser's calls (built and checked by it, then dropped) given their ids:
        # a copy with one field changed needs no validation.
        calls = [
            self.check(
                call.model_copy(update={"id": ids[n] if n < len(ids) else new_call_id()}),
                tools,
            )
            for n, call in enumerate(result.calls)
        ]
        return ModelResponse(
            content=result.content or None,
            tool_calls=calls,
            finish_reason="tool_calls" if calls else plain.finish_reason,
            usage=plain.usage,
            reasoning=result.reasoning or plain.reasoning,
            model=plain.model,
            replay=plain.replay,
            builtin_calls=plain.builtin_calls,
            builtin_results=plain.builtin_results,
            citations=plain.citations,
        )

    def format_request(
        self, tools: list[JSONDict], messages: list[JSONDict], **kw: Any
    ) -> JSONDict:
        """A request without the tools API; tools listed in the system prompt.

        While calls are possible, a client's JSON ``response_format`` is not sent (it
        would forbid writing a call): the prompt puts it on the final answer only.
        """
        json_payload = self.style.constrained is not None and bool(tools)
        writer = _write_payload if json_payload else self._call_writer()
        history = rewrite_history(messages, writer, _write_result)
        settings = dict(kw.get("settings") or {})
        response_format = kw.get("response_format")
        if tools:
            tool_choice = kw.get("tool_choice")
            prompt = tools_prompt(tools, tool_choice, self.style)
            if filter_tools(tools, parse_tool_choice(tool_choice)):
                rule = answer_format_rule(response_format, self.style)
                if rule is not None:
                    prompt, response_format = f"{prompt}\n\n{rule}", None
            history = with_system(history, prompt)
            constrained_format, extra = constrained_request(self.style, tools)
            response_format = constrained_format or response_format
            if extra:
                settings["extra_body"] = {**settings.get("extra_body", {}), **extra}
        request = ChatRequest(messages=history, settings=settings, response_format=response_format)
        return self.codec.encode_request(self.model, request)

    def decode(self, response: JSONDict, tools: list[JSONDict] | None = None) -> ModelResponse:
        """Parse calls out of the reply text."""
        return self.decode_reply(response, self.context_of(list(tools or []), None))

    def check(self, call: ToolCall, tools: list[JSONDict]) -> ToolCall:
        """Hook for validation; ``PARSED`` keeps calls as parsed."""
        return call

    def assistant_turn(self, response: ModelResponse) -> list[JSONDict]:
        """The reply with calls written in the tag notation."""
        return self._history(
            rewrite_history([neutral_assistant(response)], self._call_writer(), _write_result)
        )

    def tool_result_turn(self, results: list[JSONDict]) -> list[JSONDict]:
        """Tool results as a user message."""
        return self._history(rewrite_history(results, self._call_writer(), _write_result))

    def _call_writer(self) -> Callable[[JSONDict], str]:
        return _write_thought if self.style.notation == "thought" else _write_calls


class ValidatedStrategy(PromptedStrategy):
    """Like `PromptedStrategy`, and each call is validated against its schema."""

    mode = ToolCallingMode.VALIDATED

    def check(self, call: ToolCall, tools: list[JSONDict]) -> ToolCall:
        """Mark a call whose name or arguments are invalid with an error."""
        if call.arguments_error is not None:
            return call
        verdict = validate_payload(
            {"tool": call.name, "arguments": call.arguments}, tools_by_name(tools)
        )
        if verdict.is_valid:
            return call
        problems = list(verdict.problems) or [verdict.error_message or "invalid tool call"]
        return invalid_call(
            call.id, call.name, call.arguments_text, verdict.error_message, problems
        )


def _write_calls(message: JSONDict) -> str:
    text = str(message.get("content") or "")
    blocks = "".join(
        f"{OPEN_TAG}{dumps(with_id(call_id, {'name': name, 'arguments': args}))}{CLOSE_TAG}"
        for call_id, name, args in calls_of(message)
    )
    return f"{text}\n{blocks}".strip()


def new_call_id() -> str:
    """A call id unique in the conversation (parsers number calls per reply)."""
    return f"call_{uuid.uuid4().hex[:16]}"


def _write_thought(message: JSONDict) -> str:
    thought = str(message.get("content") or "")
    objects = [
        with_id(call_id, {"thought": thought, "tool_name": name, "tool_args": args})
        for call_id, name, args in calls_of(message)
    ]
    return dumps(objects[0]) if len(objects) == 1 else dumps(objects)


def unique_id(call: ToolCall) -> ToolCall:
    """``call`` with an id unique in the conversation."""
    return with_call_changes(call, id=new_call_id())


def _write_payload(message: JSONDict) -> str:
    calls = [
        with_id(call_id, {"name": name, "arguments": args})
        for call_id, name, args in calls_of(message)
    ]
    return dumps({"tool_calls": calls})


def _write_result(message: JSONDict) -> str:
    return f"<tool_response>\n{result_text(message)}\n</tool_response>"
