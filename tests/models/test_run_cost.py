"""A run's price (``result.usage.cost``) from the genai-prices table, cache prices
applied; ``None`` for an unknown model, a local model, a test model, or without the
``cost`` extra: never a guess."""

from __future__ import annotations

import sys
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import genai_prices
import pytest

from good_agent import Agent, RunUsage, Usage
from good_agent.models import AnthropicModel, OllamaModel, OpenAIChatModel
from good_agent.models.prices import price
from good_agent.testing import TestModel

pytestmark = pytest.mark.anyio

Start = Callable[[list[Any]], Any]


def anthropic_reply(model: str, read: int, write: int, *calls: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": list(calls) or [{"type": "text", "text": "Sunny."}],
        "stop_reason": "tool_use" if calls else "end_turn",
        "usage": {
            "input_tokens": 200,
            "output_tokens": 50,
            "cache_read_input_tokens": read,
            "cache_creation_input_tokens": write,
        },
    }


def table_price(model: str, provider: str, usage: Usage) -> Decimal:
    counts = genai_prices.Usage(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_read_tokens=usage.cache_read_tokens,
        cache_write_tokens=usage.cache_write_tokens,
    )
    return genai_prices.calc_price(counts, model, provider_id=provider).total_price


async def test_a_run_costs_the_sum_of_its_responses_at_the_cache_prices(
    fake_upstream: Start,
) -> None:
    call = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}
    upstream = fake_upstream(
        [
            (200, anthropic_reply("claude-sonnet-4-5", 0, 4000, call)),
            (200, anthropic_reply("claude-sonnet-4-5", 4000, 0)),
        ]
    )
    model = AnthropicModel("claude-sonnet-4-5", base_url=upstream.url, api_key="k")

    def get_weather(city: str) -> str:
        """The weather in a city."""
        return "sunny"

    agent = Agent(model=model, tools=[get_weather])
    try:
        result = await agent.run("Weather in Paris?")
    finally:
        await model.aclose()
    first = table_price("claude-sonnet-4-5", "anthropic", Usage(4200, 50, 0, 4000))
    second = table_price("claude-sonnet-4-5", "anthropic", Usage(4200, 50, 4000, 0))
    assert result.usage.cost == first + second
    # the cache prices apply: reading the cache is cheaper than writing it, and than
    # the same tokens uncached
    uncached = table_price("claude-sonnet-4-5", "anthropic", Usage(4200, 50))
    assert second < uncached < first


async def test_an_openai_run_is_priced_with_its_cached_tokens(fake_upstream: Start) -> None:
    reply = {
        "id": "c",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "Hi."},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": 2000,
            "completion_tokens": 10,
            "total_tokens": 2010,
            "prompt_tokens_details": {"cached_tokens": 1024},
        },
    }
    upstream = fake_upstream([(200, reply)])
    model = OpenAIChatModel("gpt-4o", base_url=f"{upstream.url}/v1", api_key="k")
    try:
        result = await Agent(model=model).run("Hi")
    finally:
        await model.aclose()
    assert result.usage.cost == table_price("gpt-4o", "openai", Usage(2000, 10, 1024, 0))


async def test_an_unknown_model_has_no_price(fake_upstream: Start) -> None:
    reply = anthropic_reply("claude-of-tomorrow-9", 0, 0)
    upstream = fake_upstream([(200, reply)])
    model = AnthropicModel("claude-of-tomorrow-9", base_url=upstream.url, api_key="k")
    try:
        result = await Agent(model=model).run("Hi")
    finally:
        await model.aclose()
    assert result.usage.input_tokens == 200
    assert result.usage.cost is None


async def test_a_local_model_has_no_price_even_under_a_known_name(fake_upstream: Start) -> None:
    reply = {
        "model": "gpt-4o",
        "message": {"role": "assistant", "content": "Hi."},
        "done": True,
        "done_reason": "stop",
        "prompt_eval_count": 10,
        "eval_count": 3,
    }
    upstream = fake_upstream([(200, reply)])
    model = OllamaModel("gpt-4o", base_url=upstream.url, mode="native")
    try:
        result = await Agent(model=model).run("Hi")
    finally:
        await model.aclose()
    assert result.usage.input_tokens == 10
    assert result.usage.cost is None


async def test_a_test_model_has_no_price() -> None:
    result = await Agent(model=TestModel()).run("Hi")
    assert result.usage.requests == 1
    assert result.usage.cost is None


def test_one_unpriced_response_makes_the_run_unpriced() -> None:
    usage = RunUsage()
    assert usage.cost is None
    usage.add_response(Usage(10, 1), Decimal("0.5"))
    usage.add_response(Usage(10, 1), Decimal("0.25"))
    assert usage.cost == Decimal("0.75")
    usage.add_response(Usage(10, 1), None)
    assert usage.cost is None
    assert usage.requests == 3


def test_without_the_extra_there_is_no_price(monkeypatch: pytest.MonkeyPatch) -> None:
    assert price(Usage(1000, 100), "gpt-4o", "openai") is not None
    monkeypatch.setitem(sys.modules, "genai_prices", None)
    assert price(Usage(1000, 100), "gpt-4o", "openai") is None


@pytest.mark.parametrize(
    ("model", "provider"),
    [("gpt-4o", "openai"), ("gemini-2.5-flash", "gemini"), ("claude-sonnet-4-5", "anthropic")],
)
def test_each_provider_is_priced_under_the_tables_name(model: str, provider: str) -> None:
    usage = Usage(1000, 100, 500, 0)
    table_id = "google" if provider == "gemini" else provider
    assert price(usage, model, provider) == table_price(model, table_id, usage)
    assert price(usage, model, "no-such-provider") is None


async def test_an_hour_long_cache_write_is_priced_as_one(fake_upstream: Start) -> None:
    reply = anthropic_reply("claude-sonnet-4-5", 0, 4000)
    reply["usage"]["cache_creation"] = {
        "ephemeral_5m_input_tokens": 0,
        "ephemeral_1h_input_tokens": 4000,
    }
    upstream = fake_upstream([(200, reply)])
    model = AnthropicModel("claude-sonnet-4-5", base_url=upstream.url, api_key="k")
    agent = Agent(model=model, model_settings={"anthropic_cache_messages": "1h"})
    try:
        result = await agent.run("Hi")
    finally:
        await model.aclose()
    counts = genai_prices.Usage(
        input_tokens=4200, output_tokens=50, cache_write_tokens=4000, cache_write_1h_tokens=4000
    )
    hour = genai_prices.calc_price(counts, "claude-sonnet-4-5", provider_id="anthropic")
    assert result.usage.cost == hour.total_price
    five_minutes = table_price("claude-sonnet-4-5", "anthropic", Usage(4200, 50, 0, 4000))
    assert result.usage.cost > five_minutes


async def test_a_conversation_costs_the_sum_of_its_runs(fake_upstream: Start) -> None:
    upstream = fake_upstream(
        [
            (200, anthropic_reply("claude-sonnet-4-5", 0, 4000)),
            (200, anthropic_reply("claude-sonnet-4-5", 4000, 0)),
        ]
    )
    model = AnthropicModel("claude-sonnet-4-5", base_url=upstream.url, api_key="k")
    agent = Agent(model=model)
    try:
        async with agent:
            conversation = agent.conversation()
            first = await conversation.run("Hi")
            second = await conversation.run("Again")
    finally:
        await model.aclose()
    assert first.usage.cost is not None and second.usage.cost is not None
    assert conversation.usage.cost == first.usage.cost + second.usage.cost
    assert conversation.usage.cache_write_tokens == 4000
    assert conversation.usage.cache_read_tokens == 4000
