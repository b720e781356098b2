"""Prompt caching over loopback: Anthropic's ``cache_control`` breakpoints asked for by
the ``anthropic_cache_*`` settings, and the cache reads and writes every API reports
counted in ``Usage`` (whole and streamed) and summed over a run."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
import upstreams
from anthropic.types import CacheControlEphemeralParam, TextBlockParam, ToolParam
from anthropic.types import Usage as AnthropicUsage
from google.genai import types as genai
from openai.types.completion_usage import CompletionUsage, PromptTokensDetails
from openai.types.responses import ResponseUsage
from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails
from tool_dicts import WEATHER
from upstreams import anthropic_message, anthropic_text_events, chat_completion, model_of, sse

from good_agent import Agent, Usage
from good_agent.models import (
    ModelRequest,
)
from good_agent.types.messages import SystemMessage, UserMessage

pytestmark = pytest.mark.anyio

Start = Callable[[list[Any]], Any]


def anthropic_usage(read: int = 0, write: int = 0) -> dict[str, Any]:
    usage = AnthropicUsage(
        input_tokens=20,
        output_tokens=5,
        cache_read_input_tokens=read,
        cache_creation_input_tokens=write,
    )
    return usage.model_dump(mode="json", exclude_none=True)


def anthropic_reply(usage: dict[str, Any], *blocks: dict[str, Any]) -> dict[str, Any]:
    if blocks:
        return anthropic_message(*blocks, usage=usage, stop="tool_use")
    return anthropic_message({"type": "text", "text": "Sunny."}, usage=usage)


def chat_usage(cached: int) -> dict[str, Any]:
    usage = CompletionUsage(
        prompt_tokens=120,
        completion_tokens=5,
        total_tokens=125,
        prompt_tokens_details=PromptTokensDetails(cached_tokens=cached, cache_write_tokens=16),
    )
    return usage.model_dump(mode="json", exclude_none=True)


def chat_reply(cached: int) -> dict[str, Any]:
    return chat_completion(usage=chat_usage(cached))


def responses_usage(cached: int) -> dict[str, Any]:
    usage = ResponseUsage(
        input_tokens=120,
        input_tokens_details=InputTokensDetails(cached_tokens=cached, cache_write_tokens=16),
        output_tokens=5,
        output_tokens_details=OutputTokensDetails(reasoning_tokens=0),
        total_tokens=125,
    )
    return usage.model_dump(mode="json", exclude_none=True)


def responses_reply(cached: int) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "status": "completed",
        "model": "gpt-4o",
        "output": [
            {
                "type": "message",
                "id": "m1",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": "Sunny.", "annotations": []}],
            }
        ],
        "usage": responses_usage(cached),
    }


def gemini_usage(cached: int) -> dict[str, Any]:
    usage = genai.GenerateContentResponseUsageMetadata(
        prompt_token_count=120,
        candidates_token_count=5,
        total_token_count=125,
        cached_content_token_count=cached,
    )
    return usage.model_dump(mode="json", by_alias=True, exclude_none=True)


def gemini_reply(cached: int) -> dict[str, Any]:
    return upstreams.gemini_reply(
        {"text": "Sunny."}, usage=gemini_usage(cached), modelVersion="gemini-2.5-flash"
    )


def ask(**settings: Any) -> ModelRequest:
    return ModelRequest(
        messages=[SystemMessage(content="Be brief."), UserMessage(content="Weather in Paris?")],
        tools=[WEATHER],
        settings=settings,
    )


# The breakpoints on the Anthropic wire


@pytest.mark.parametrize(
    ("value", "control"),
    [
        (True, CacheControlEphemeralParam(type="ephemeral")),
        ("5m", CacheControlEphemeralParam(type="ephemeral", ttl="5m")),
        ("1h", CacheControlEphemeralParam(type="ephemeral", ttl="1h")),
    ],
)
async def test_the_cache_settings_put_breakpoints_where_anthropic_documents_them(
    fake_upstream: Start, value: Any, control: CacheControlEphemeralParam
) -> None:
    upstream = fake_upstream([(200, anthropic_reply(anthropic_usage()))])
    model = model_of("anthropic", upstream.url)
    try:
        await model.request(
            ask(
                anthropic_cache_instructions=value,
                anthropic_cache_tool_definitions=value,
                anthropic_cache_messages=value,
            )
        )
    finally:
        await model.aclose()
    body = upstream.bodies[0]
    assert body["system"] == [TextBlockParam(type="text", text="Be brief.", cache_control=control)]
    assert body["tools"] == [
        ToolParam(
            name="get_weather",
            description=WEATHER["function"]["description"],
            input_schema=WEATHER["function"]["parameters"],
            cache_control=control,
        )
    ]
    assert body["messages"] == [
        {
            "role": "user",
            "content": [
                TextBlockParam(type="text", text="Weather in Paris?", cache_control=control)
            ],
        }
    ]


async def test_without_the_settings_nothing_is_marked(fake_upstream: Start) -> None:
    upstream = fake_upstream([(200, anthropic_reply(anthropic_usage()))])
    model = model_of("anthropic", upstream.url)
    try:
        await model.request(ask(anthropic_cache_instructions=False))
    finally:
        await model.aclose()
    assert "cache_control" not in json.dumps(upstream.bodies[0])
    assert upstream.bodies[0]["system"] == "Be brief."


async def test_each_setting_marks_only_its_part(fake_upstream: Start) -> None:
    upstream = fake_upstream([(200, anthropic_reply(anthropic_usage()))])
    model = model_of("anthropic", upstream.url)
    try:
        await model.request(ask(anthropic_cache_tool_definitions="1h"))
    finally:
        await model.aclose()
    body = upstream.bodies[0]
    assert body["system"] == "Be brief."
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert "cache_control" not in json.dumps(body["messages"])


async def test_the_last_message_is_marked_on_its_last_block_in_a_run_with_tools(
    fake_upstream: Start,
) -> None:
    call = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}
    upstream = fake_upstream(
        [
            (200, anthropic_reply(anthropic_usage(write=900), call)),
            (200, anthropic_reply(anthropic_usage(read=900))),
        ]
    )
    model = model_of("anthropic", upstream.url)
    def get_weather(city: str) -> str:
        """The weather in a city."""
        return "sunny"

    agent = Agent(
        "Be brief.",
        model=model,
        tools=[get_weather],
        model_settings={"anthropic_cache_messages": True, "anthropic_cache_instructions": True},
    )
    try:
        result = await agent.run("Weather in Paris?")
    finally:
        await model.aclose()
    second = upstream.bodies[1]["messages"]
    assert second[-1]["content"][-1]["type"] == "tool_result"
    assert second[-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert sum(json.dumps(m).count("cache_control") for m in second) == 1
    assert upstream.bodies[1]["system"][-1]["cache_control"] == {"type": "ephemeral"}
    # the run's usage sums the two responses, cache reads and writes apart
    assert result.usage.cache_write_tokens == 900
    assert result.usage.cache_read_tokens == 900
    assert result.usage.input_tokens == (20 + 900) * 2
    assert result.usage.requests == 2


async def test_a_bad_cache_value_is_refused_naming_the_setting(fake_upstream: Start) -> None:
    upstream = fake_upstream([(200, anthropic_reply(anthropic_usage()))])
    model = model_of("anthropic", upstream.url)
    try:
        with pytest.raises(ValueError, match="anthropic_cache_messages"):
            await model.request(ask(anthropic_cache_messages="2h"))
    finally:
        await model.aclose()
    assert upstream.bodies == []


async def test_the_cache_settings_are_not_sent_to_other_apis(fake_upstream: Start) -> None:
    upstream = fake_upstream([(200, chat_reply(0))])
    model = model_of("chat", upstream.url)
    try:
        await model.request(ask(anthropic_cache_messages=True))
    finally:
        await model.aclose()
    assert "cache" not in json.dumps(upstream.bodies[0])


# Cache reads and writes in usage, whole and streamed


@pytest.mark.parametrize(
    ("kind", "reply", "expected"),
    [
        ("anthropic", anthropic_reply(anthropic_usage(read=100, write=30)), Usage(150, 5, 100, 30)),
        ("chat", chat_reply(64), Usage(120, 5, 64, 16)),
        ("responses", responses_reply(64), Usage(120, 5, 64, 16)),
        ("gemini", gemini_reply(64), Usage(120, 5, 64, 0)),
    ],
)
async def test_cache_tokens_are_counted_from_a_whole_reply(
    fake_upstream: Start, kind: str, reply: dict[str, Any], expected: Usage
) -> None:
    upstream = fake_upstream([(200, reply)])
    model = model_of(kind, upstream.url)
    try:
        response = await model.request(ask())
    finally:
        await model.aclose()
    assert response.usage == expected


def anthropic_stream() -> tuple[int, bytes, dict[str, str]]:
    return sse(anthropic_text_events(anthropic_reply(anthropic_usage(read=100, write=30))))


def chat_stream() -> tuple[int, bytes, dict[str, str]]:
    chunk = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o"}
    return sse(
        [
            {**chunk, "choices": [{"index": 0, "delta": {"content": "Sunny."}}]},
            {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
            {**chunk, "choices": [], "usage": chat_usage(64)},
        ],
        named=False,
    )


def responses_stream() -> tuple[int, bytes, dict[str, str]]:
    done = responses_reply(64)
    return sse(
        [
            {"type": "response.output_text.delta", "delta": "Sunny."},
            {"type": "response.completed", "response": done},
        ]
    )


def gemini_stream() -> tuple[int, bytes, dict[str, str]]:
    return sse([gemini_reply(64)], named=False)


@pytest.mark.parametrize(
    ("kind", "stream", "expected"),
    [
        ("anthropic", anthropic_stream, Usage(150, 5, 100, 30)),
        ("chat", chat_stream, Usage(120, 5, 64, 16)),
        ("responses", responses_stream, Usage(120, 5, 64, 16)),
        ("gemini", gemini_stream, Usage(120, 5, 64, 0)),
    ],
)
async def test_cache_tokens_are_counted_from_a_stream(
    fake_upstream: Start,
    kind: str,
    stream: Callable[[], tuple[int, bytes, dict[str, str]]],
    expected: Usage,
) -> None:
    upstream = fake_upstream([stream()])
    model = model_of(kind, upstream.url)
    agent = Agent(model=model)
    try:
        async with agent.stream("Weather in Paris?") as run:
            async for _ in run:
                pass
    finally:
        await model.aclose()
    assert run.output == "Sunny."
    assert run.usage.cache_read_tokens == expected.cache_read_tokens
    assert run.usage.cache_write_tokens == expected.cache_write_tokens
    assert run.usage.input_tokens == expected.input_tokens
    assert run.usage.output_tokens == expected.output_tokens
