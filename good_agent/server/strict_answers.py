"""Strict JSON answers: a client that asks for ``strict`` JSON gets JSON matching its
schema, or an error.

A request whose ``response_format`` is ``json_schema`` with ``"strict": true`` (what
the openai SDK's ``parse()`` and ``stream()`` helpers, pydantic-ai's ``NativeOutput``
and the OpenAI Agents SDK's ``output_type`` send) has its final answer (a reply with
no tool calls) checked against the schema before it is sent. An upstream that calls
tools through text (Hermes, Mistral, pythonic formats) gets that schema only as an
instruction on its final answer (see
`good_agent.providers.prompting.answer_format_rule`), and may
answer in prose. Then the bridge asks once more, with the model's answer and the
problems found (as the agent's output retries do); where the upstream's profile has
constrained decoding (``supports_response_format`` or ``constrained_decoding``) that
request carries the schema as its ``response_format`` and no tools, so nothing in it
forbids a call. An answer still invalid is a
[`ModelResponseError`][good_agent.ModelResponseError], answered as a 502 with code
``upstream_invalid_reply``; never a 200.

A streamed strict request is held back until its answer is checked
(`StrictAnswer.hold`), so an invalid answer is still an HTTP error (502), not an
error event after a 200. A reply that calls tools is not the final answer: when its
first call starts, what was held is sent and the rest streams as it comes. The text
of a reply that calls tools is sent as reasoning (``reasoning_content``), not content:
the content of a strict request is the JSON answer or nothing, as OpenAI's API sends
it (the openai SDK's ``parse()`` parses any content it gets).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any

from good_agent.providers.schema_validation import compile_schema
from good_agent.providers.strategies.base import ToolCallingMode
from good_agent.providers.streaming import (
    ReasoningDelta,
    TextDelta,
    ToolCallArgs,
    ToolCallStart,
)
from good_agent.providers.types import ChatRequest, JSONDict
from good_agent.server.common.closing import close_shielded
from good_agent.types.errors import ModelResponseError
from good_agent.types.messages import ModelResponse
from good_agent.types.usage import Usage

if TYPE_CHECKING:
    from good_agent.server.served import ServedModel, StreamBatch

STRICT_RETRIES = 1
"""How many times an invalid strict answer is asked for again before the error."""

UNCHECKED_FINISHES = frozenset({"length", "content_filter"})
"""Finish reasons whose answer is passed on unchecked: a client is told its answer was
cut off or filtered (the openai SDK raises ``LengthFinishReasonError`` or
``ContentFilterFinishReasonError`` for them), not that it was invalid."""

_PROBLEMS_SHOWN = 5


def strict_schema(request: ChatRequest) -> JSONDict | None:
    """The schema of ``request``'s strict ``json_schema`` response format, else ``None``."""
    fmt = request.response_format
    if not isinstance(fmt, dict) or fmt.get("type") != "json_schema":
        return None
    spec = fmt.get("json_schema")
    if not isinstance(spec, dict) or spec.get("strict") is not True:
        return None
    schema = spec.get("schema")
    return schema if isinstance(schema, dict) else {}


def answer_json(text: str | None) -> str:
    """The JSON text of an answer: ``text`` stripped, or the inside of the one fenced
    code block (```` ```json ... ``` ````) it consists of."""
    body = (text or "").strip()
    if body.startswith("```") and body.endswith("```") and len(body) >= 6:
        inner = body[3:-3]
        newline = inner.find("\n")
        if newline >= 0 and inner[:newline].strip().lower() in ("", "json"):
            return inner[newline + 1 :].strip()
    return body


def answer_problems(text: str, schema: JSONDict) -> list[str]:
    """What is wrong with ``text`` as a JSON value of ``schema`` (empty: nothing)."""
    try:
        value = json.loads(text)
    except RecursionError:
        return ["the answer is JSON nested too deeply to be checked"]
    except json.JSONDecodeError as exc:
        start = text[:40] + ("..." if len(text) > 40 else "")
        return [f"the answer is not JSON ({exc.msg} at position {exc.pos}): {start!r}"]
    try:
        check = compile_schema(schema)
    except ValueError:  # a schema the validator cannot compile is not checked
        return []
    return check(value)


class StrictAnswer:
    """The check of one strict request's final answer, and the retry.

    Args:
        served: The route answering.
        request: The client's request (as received, before ``prepare``).
        schema: The schema of its response format.
    """

    def __init__(self, served: ServedModel, request: ChatRequest, schema: JSONDict) -> None:
        self.served = served
        self.request = request
        self.schema = schema

    @classmethod
    def of(cls, served: ServedModel, request: ChatRequest) -> StrictAnswer | None:
        """The check for ``request``, or ``None`` when it asks for no strict JSON."""
        schema = strict_schema(request)
        return None if schema is None else cls(served, request, schema)

    @property
    def constrains(self) -> bool:
        """Whether the retry can be constrained with the schema (the upstream's profile
        has constrained decoding and its codec sends a ``response_format``)."""
        profile = self.served.model.profile
        codec = self.served.model.tool_strategy.codec
        constrained = profile.supports_response_format or profile.constrained_decoding is not None
        return constrained and bool(getattr(codec, "supports_response_format", True))

    @property
    def enforced_upstream(self) -> bool:
        """Whether the upstream enforces the schema itself: a native route (no fallback
        to prompting learned) whose profile has strict schemas and a response format,
        as OpenAI's own models. Its streams are passed on as they come."""
        model = self.served.model
        profile = model.profile
        return (
            model.strategy.mode is ToolCallingMode.NATIVE
            and model.learned_mode is None
            and profile.supports_strict
            and profile.supports_response_format
        )

    def retry_request(self, reply: ModelResponse, problems: list[str]) -> ChatRequest:
        """The request asking again: the client's, the invalid answer and what is wrong
        with it; constrained with the schema and without tools where the upstream can
        be constrained."""
        listed = "\n".join(f"- {problem}" for problem in problems[:_PROBLEMS_SHOWN])
        feedback = (
            "Your answer could not be used: the final answer must be one JSON value "
            "matching this JSON schema, and nothing else:\n"
            f"{json.dumps(self.schema, ensure_ascii=False)}\n"
            f"Problems:\n{listed}\n"
            "Write the final answer again: only the JSON value, no other text."
        )
        messages = [
            *self.request.messages,
            {"role": "assistant", "content": reply.content or ""},
            {"role": "user", "content": feedback},
        ]
        if not self.constrains:
            return dataclasses.replace(self.request, messages=messages)
        return dataclasses.replace(
            self.request, messages=messages, tools=[], tool_choice=None, parallel_tool_calls=None
        )

    async def settle(self, reply: ModelResponse) -> ModelResponse:
        """``reply`` when it is no final answer, a valid one (its content the bare
        JSON) or one cut off or filtered (see `UNCHECKED_FINISHES`), else the reply to
        a retry that is; raises
        [`ModelResponseError`][good_agent.ModelResponseError] when none is."""
        usage = reply.usage
        for attempt in range(STRICT_RETRIES + 1):
            if reply.tool_calls:
                return _with_usage(_calls_only(reply), usage)
            if reply.finish_reason in UNCHECKED_FINISHES:
                return _with_usage(reply, usage)
            text = answer_json(reply.content)
            problems = answer_problems(text, self.schema)
            if not problems:
                return _with_usage(dataclasses.replace(reply, content=text), usage)
            if attempt == STRICT_RETRIES:
                break
            retry = self.served.prepare(self.retry_request(reply, problems))
            reply = await self.served.model.request(retry)
            usage = Usage(
                usage.input_tokens + reply.usage.input_tokens,
                usage.output_tokens + reply.usage.output_tokens,
                usage.cache_read_tokens + reply.usage.cache_read_tokens,
                usage.cache_write_tokens + reply.usage.cache_write_tokens,
                usage.cache_write_1h_tokens + reply.usage.cache_write_1h_tokens,
            )
        provider = self.served.entry.provider
        raise ModelResponseError(
            "the answer does not match the strict response_format schema after "
            f"{STRICT_RETRIES + 1} attempts: {problems[0]}",
            provider=provider,
        )

    async def hold(
        self, batches: AsyncGenerator[StreamBatch, None]
    ) -> AsyncGenerator[StreamBatch, None]:
        """``batches`` held back until a tool call starts (then everything passes) or the
        final answer is checked (then sent as one text delta after the reasoning)."""
        held: list[Any] = []
        calling = False
        try:
            async for batch in batches:
                out: list[Any] = []
                for item in batch:
                    kind = type(item)
                    if isinstance(item, ModelResponse):
                        settled = await self.settle(item)
                        if not calling and settled.tool_calls and not item.tool_calls:
                            # A retry that calls a tool: the first answer's text is gone.
                            out += [d for d in held if type(d) is not TextDelta]
                            out += _call_deltas(settled)
                        elif not calling and settled.tool_calls:
                            # Calls with no delta of their own: their text is reasoning.
                            out += [_as_reasoning(d) for d in held]
                            out += _call_deltas(settled)
                        elif not calling:
                            out += [d for d in held if type(d) is not TextDelta]
                            if settled.content:
                                out.append(TextDelta(settled.content))
                        held.clear()
                        out.append(settled)
                    elif kind is ToolCallStart or kind is ToolCallArgs:
                        if not calling:
                            calling = True
                            out += [_as_reasoning(d) for d in held]
                            held.clear()
                        out.append(item)
                    elif calling:
                        out.append(_as_reasoning(item))
                    else:
                        held.append(item)
                if out:
                    yield out
        finally:
            await close_shielded(batches)


def _with_usage(reply: ModelResponse, usage: Usage) -> ModelResponse:
    return reply if reply.usage == usage else dataclasses.replace(reply, usage=usage)


def _calls_only(reply: ModelResponse) -> ModelResponse:
    """A reply that calls tools, its text moved to its reasoning: the content of a
    strict request is the JSON answer or nothing (the openai SDK's ``parse()`` parses
    any content it is sent, as OpenAI's API sends none beside calls under a strict
    format)."""
    if not reply.content:
        return reply
    reasoning = "\n".join(part for part in (reply.reasoning, reply.content) if part)
    return dataclasses.replace(reply, content=None, reasoning=reasoning)


def _as_reasoning(delta: Any) -> Any:
    return ReasoningDelta(delta.text) if type(delta) is TextDelta else delta


def _call_deltas(reply: ModelResponse) -> list[Any]:
    deltas: list[Any] = []
    for index, call in enumerate(reply.tool_calls):
        deltas.append(ToolCallStart(index, call.id, call.name))
        deltas.append(ToolCallArgs(index, call.arguments_text or "{}"))
    return deltas
