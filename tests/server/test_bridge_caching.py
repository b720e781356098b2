"""Prompt caching and cost on the bridge, over loopback with the official clients: an
Anthropic client's ``cache_control`` breakpoints reach an Anthropic upstream (and no
other), the cached tokens come back in each protocol's usage fields, whole and
streamed, and ``log_cost`` logs each request's price."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import anthropic
import genai_prices
import httpx2
import openai
import pytest
from anthropic.types import CacheControlEphemeralParam, TextBlockParam, ToolParam
from bridge_harness import CLIENT_KEY, upstream_entry
from google import genai
from google.genai import types as genai_types
from upstreams import anthropic_message, anthropic_text_events, chat_completion, sse

from good_agent.server.background import BackgroundServer

pytestmark = pytest.mark.anyio

Start = Callable[[list[Any]], Any]
CACHED = CacheControlEphemeralParam(type="ephemeral")
HOUR = CacheControlEphemeralParam(type="ephemeral", ttl="1h")
TOOL = ToolParam(
    name="get_weather",
    description="The weather in a city.",
    input_schema={"type": "object", "properties": {"city": {"type": "string"}}},
    cache_control=HOUR,
)
USAGE = {
    "input_tokens": 20,
    "output_tokens": 5,
    "cache_read_input_tokens": 3000,
    "cache_creation_input_tokens": 400,
}


def anthropic_reply(body: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
    """A whole reply, or the same reply as a Messages event stream."""
    message = anthropic_message({"type": "text", "text": "Sunny."}, usage=USAGE)
    if not body.get("stream"):
        return 200, message, {}
    return sse(anthropic_text_events(message))


def chat_reply(body: dict[str, Any]) -> tuple[int, Any]:
    return 200, chat_completion(
        usage={"prompt_tokens": 30, "completion_tokens": 5, "total_tokens": 35}
    )


@pytest.fixture
def upstreams(fake_upstream: Start) -> tuple[Any, Any]:
    return fake_upstream([anthropic_reply] * 20), fake_upstream([chat_reply] * 5)


@pytest.fixture
def cache_bridge(upstreams: tuple[Any, Any], bridges: Start) -> BackgroundServer:
    claude, gpt = upstreams
    models = [
        upstream_entry(claude.url, "claude", "anthropic", "claude-sonnet-4-5"),
        upstream_entry(gpt.url, "gpt", "openai", "gpt-4o", mode="native"),
    ]
    return bridges(models, log_cost=True)


def marked_request(model: str) -> dict[str, Any]:
    return {
        "model": model,
        "max_tokens": 100,
        "system": [
            TextBlockParam(type="text", text="A long manual.", cache_control=CACHED),
            TextBlockParam(type="text", text="Today is Monday."),
        ],
        "tools": [TOOL],
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {"role": "assistant", "content": "Let me look."},
            {
                "role": "user",
                "content": [TextBlockParam(type="text", text="Go on.", cache_control=CACHED)],
            },
        ],
    }


async def test_a_clients_breakpoints_reach_an_anthropic_upstream(
    cache_bridge: BackgroundServer, upstreams: tuple[Any, Any]
) -> None:
    async with anthropic.AsyncAnthropic(
        base_url=cache_bridge.url, api_key=CLIENT_KEY, max_retries=0
    ) as client:
        message = await client.messages.create(**marked_request("claude"))
    sent = upstreams[0].bodies[-1]
    assert sent["system"] == [
        TextBlockParam(type="text", text="A long manual.", cache_control=CACHED),
        TextBlockParam(type="text", text="Today is Monday."),
    ]
    assert sent["tools"] == [TOOL]
    assert sent["messages"][-1] == {
        "role": "user",
        "content": [TextBlockParam(type="text", text="Go on.", cache_control=CACHED)],
    }
    assert json.dumps(sent["messages"][:-1]).count("cache_control") == 0
    # the counts as Anthropic reports them: input_tokens is the uncached input
    assert message.usage.input_tokens == 20
    assert message.usage.cache_read_input_tokens == 3000
    assert message.usage.cache_creation_input_tokens == 400


async def test_breakpoints_are_left_out_for_an_upstream_of_another_api(
    cache_bridge: BackgroundServer, upstreams: tuple[Any, Any]
) -> None:
    async with anthropic.AsyncAnthropic(
        base_url=cache_bridge.url, api_key=CLIENT_KEY, max_retries=0
    ) as client:
        message = await client.messages.create(**marked_request("gpt"))
    assert message.content[0].type == "text"
    sent = upstreams[1].bodies[-1]
    assert "cache_control" not in json.dumps(sent)
    assert sent["messages"][-1]["content"] == [{"type": "text", "text": "Go on."}]


async def test_a_bad_breakpoint_is_a_400_naming_the_field(
    cache_bridge: BackgroundServer, upstreams: tuple[Any, Any]
) -> None:
    body = marked_request("claude")
    body["messages"][-1]["content"][0]["cache_control"] = {"type": "ephemeral", "ttl": "2h"}
    async with httpx2.AsyncClient() as http:
        response = await http.post(
            f"{cache_bridge.url}/v1/messages",
            json=body,
            headers={"x-api-key": CLIENT_KEY, "anthropic-version": "2023-06-01"},
        )
    assert response.status_code == 400
    assert "messages[2].content[0].cache_control.ttl" in response.text
    assert upstreams[0].bodies == []


async def test_a_streamed_messages_reply_reports_the_cache(cache_bridge: BackgroundServer) -> None:
    async with (
        anthropic.AsyncAnthropic(
            base_url=cache_bridge.url, api_key=CLIENT_KEY, max_retries=0
        ) as client,
        client.messages.stream(**marked_request("claude")) as stream,
    ):
        final = await stream.get_final_message()
    assert final.content[0].text == "Sunny."  # type: ignore[union-attr]
    assert final.usage.cache_read_input_tokens == 3000
    assert final.usage.cache_creation_input_tokens == 400
    assert final.usage.input_tokens == 20
    assert final.usage.output_tokens == 5


@pytest.mark.parametrize("stream", [False, True])
async def test_chat_completions_report_the_cached_tokens(
    cache_bridge: BackgroundServer, stream: bool
) -> None:
    async with openai.AsyncOpenAI(
        base_url=f"{cache_bridge.url}/v1", api_key=CLIENT_KEY, max_retries=0
    ) as client:
        messages: Any = [{"role": "user", "content": "Weather?"}]
        if stream:
            chunks = await client.chat.completions.create(
                model="claude",
                messages=messages,
                stream=True,
                stream_options={"include_usage": True},
            )
            usage = [chunk.usage async for chunk in chunks if chunk.usage][-1]
        else:
            reply = await client.chat.completions.create(model="claude", messages=messages)
            assert reply.usage is not None
            usage = reply.usage
    assert usage.prompt_tokens == 3420
    assert usage.prompt_tokens_details is not None
    assert usage.prompt_tokens_details.cached_tokens == 3000
    assert usage.prompt_tokens_details.cache_write_tokens == 400


@pytest.mark.parametrize("stream", [False, True])
async def test_responses_report_the_cached_tokens(
    cache_bridge: BackgroundServer, stream: bool
) -> None:
    async with openai.AsyncOpenAI(
        base_url=f"{cache_bridge.url}/v1", api_key=CLIENT_KEY, max_retries=0
    ) as client:
        if stream:
            events = await client.responses.create(model="claude", input="Weather?", stream=True)
            done = [e async for e in events if e.type == "response.completed"]
            usage = done[0].response.usage  # type: ignore[union-attr]
        else:
            usage = (await client.responses.create(model="claude", input="Weather?")).usage
    assert usage is not None
    assert usage.input_tokens == 3420
    assert usage.input_tokens_details.cached_tokens == 3000
    assert usage.input_tokens_details.cache_write_tokens == 400


@pytest.mark.parametrize("stream", [False, True])
async def test_gemini_reports_the_cached_tokens(
    cache_bridge: BackgroundServer, stream: bool
) -> None:
    client = genai.Client(
        api_key=CLIENT_KEY, http_options=genai_types.HttpOptions(base_url=cache_bridge.url)
    )
    if stream:
        chunks = [
            c
            async for c in await client.aio.models.generate_content_stream(
                model="claude", contents="Weather?"
            )
        ]
        usage = [c.usage_metadata for c in chunks if c.usage_metadata][-1]
    else:
        reply = await client.aio.models.generate_content(model="claude", contents="Weather?")
        usage = reply.usage_metadata
    assert usage is not None
    assert usage.prompt_token_count == 3420
    assert usage.cached_content_token_count == 3000


async def test_log_cost_logs_each_requests_price(
    cache_bridge: BackgroundServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="good_agent.server.cost")
    async with openai.AsyncOpenAI(
        base_url=f"{cache_bridge.url}/v1", api_key=CLIENT_KEY, max_retries=0
    ) as client:
        await client.chat.completions.create(
            model="claude", messages=[{"role": "user", "content": "Weather?"}]
        )
    records = [r for r in caplog.records if r.name == "good_agent.server.cost"]
    assert len(records) == 1
    counts = genai_prices.Usage(
        input_tokens=3420, output_tokens=5, cache_read_tokens=3000, cache_write_tokens=400
    )
    expected = genai_prices.calc_price(counts, "claude-sonnet-4-5", provider_id="anthropic")
    assert records[0].__dict__["cost"] == str(expected.total_price)
    assert records[0].__dict__["upstream"] == "anthropic:claude-sonnet-4-5"
    assert f"${expected.total_price}" in records[0].getMessage()
    assert "claude" in records[0].getMessage()


async def test_without_log_cost_no_price_is_logged(
    fake_upstream: Start, bridges: Start, caplog: pytest.LogCaptureFixture
) -> None:
    claude = fake_upstream([anthropic_reply])
    caplog.set_level(logging.INFO, logger="good_agent.server.cost")
    server = bridges([upstream_entry(claude.url, "claude", "anthropic", "claude-sonnet-4-5")])
    async with openai.AsyncOpenAI(
        base_url=f"{server.url}/v1", api_key=CLIENT_KEY, max_retries=0
    ) as client:
        await client.chat.completions.create(
            model="claude", messages=[{"role": "user", "content": "Weather?"}]
        )
    assert [r for r in caplog.records if r.name == "good_agent.server.cost"] == []
