"""Runs over loopback HTTP through the real SDKs: usage and limits, per-tool retries,
approvals, a history moved between providers, and FallbackModel.

The fakes validate every body against their provider's rules, so a history that
one provider could not take shows up as a problem.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import anthropic
import pytest
from bridge_fakes import UPSTREAM_KEY, Fake, Reply
from openai import AsyncOpenAI

from good_agent import (
    Agent,
    FallbackModel,
    ToolRetry,
    UsageLimitExceeded,
    UsageLimits,
    tool,
)
from good_agent.messages import dump_messages, load_messages
from good_agent.models import AnthropicModel, OpenAIChatModel

pytestmark = pytest.mark.anyio

CLIENTS: list[Any] = []


@pytest.fixture(autouse=True)
async def _close_clients() -> AsyncIterator[None]:
    yield
    while CLIENTS:
        await CLIENTS.pop().close()


def gpt(fakes: dict[str, tuple[Fake, str]]) -> OpenAIChatModel:
    client = AsyncOpenAI(base_url=fakes["openai"][1] + "/v1", api_key=UPSTREAM_KEY, max_retries=0)
    CLIENTS.append(client)
    return OpenAIChatModel("fake-gpt", client=client, mode="native")


def claude(fakes: dict[str, tuple[Fake, str]]) -> AnthropicModel:
    client = anthropic.AsyncAnthropic(
        api_key=UPSTREAM_KEY,
        base_url=fakes["anthropic"][1],
        default_headers={"x-api-key": UPSTREAM_KEY},
        max_retries=0,
    )
    CLIENTS.append(client)
    return AnthropicModel("claude-sonnet-4-6", client=client)


def scripted(*replies: Reply) -> Callable[[dict[str, Any]], Reply]:
    queue = list(replies)
    return lambda body: queue.pop(0)


@tool
def weather(city: str) -> str:
    """Weather for a city."""
    return f"sunny in {city}"


async def test_usage_totals_and_a_request_limit(fakes: dict[str, tuple[Fake, str]]) -> None:
    fake = fakes["openai"][0]
    fake.script = scripted(Reply(calls=[("weather", {"city": "Oslo"})]), Reply(text="Sunny."))
    result = await Agent(model=gpt(fakes), tools=[weather]).run("Weather?")
    usage = result.usage
    assert (usage.requests, usage.input_tokens, usage.output_tokens) == (2, 22, 14)
    assert usage.tool_calls == 1

    fake.reset()
    fake.script = scripted(Reply(calls=[("weather", {"city": "Oslo"})]), Reply(text="Sunny."))
    agent = Agent(model=gpt(fakes), tools=[weather], usage_limits=UsageLimits(request_limit=1))
    with pytest.raises(UsageLimitExceeded):
        await agent.run("Weather?")
    assert len(fake.requests) == 1 and fake.problems == []


async def test_tool_retry_reaches_the_model_in_its_tool_result_slot(
    fakes: dict[str, tuple[Fake, str]],
) -> None:
    @tool(retries=1)
    def pick_day(day: str) -> str:
        """Pick a day."""
        if day != "monday":
            raise ToolRetry("only monday is free")
        return "booked"

    fake = fakes["anthropic"][0]
    fake.script = scripted(
        Reply(calls=[("pick_day", {"day": "friday"})]),
        Reply(calls=[("pick_day", {"day": "monday"})]),
        Reply(text="Booked for Monday."),
    )
    result = await Agent(model=claude(fakes), tools=[pick_day]).run("Book a day")
    assert result.output == "Booked for Monday." and fake.problems == []
    retry = fake.requests[1]["messages"][-1]["content"][0]
    assert retry["type"] == "tool_result" and retry["is_error"] is True
    assert "only monday is free" in str(retry["content"])


async def test_a_denied_call_goes_back_as_an_error_result(
    fakes: dict[str, tuple[Fake, str]],
) -> None:
    @tool(requires_approval=True)
    def refund(order: str) -> str:
        """Refund an order."""
        return "refunded"

    fake = fakes["anthropic"][0]
    fake.script = scripted(
        Reply(calls=[("refund", {"order": "A-1"})]), Reply(text="I could not refund it.")
    )
    agent = Agent(model=claude(fakes), tools=[refund])
    first = await agent.run("Refund A-1")
    (pending,) = first.deferred
    assert pending.parameters == {"order": "A-1"} and len(fake.requests) == 1
    result = await agent.run(approvals={pending.call_id: "refunds need a manager"})
    assert result.output == "I could not refund it." and fake.problems == []
    denial = fake.requests[1]["messages"][-1]["content"][0]
    assert denial["is_error"] is True and "refunds need a manager" in str(denial["content"])


async def test_a_dumped_history_continues_with_another_provider(
    fakes: dict[str, tuple[Fake, str]],
) -> None:
    anthropic_fake, openai_fake = fakes["anthropic"][0], fakes["openai"][0]
    anthropic_fake.script = scripted(
        Reply(calls=[("weather", {"city": "Rome"})]), Reply(text="Sunny in Rome.")
    )
    first = Agent("Be brief.", model=claude(fakes), tools=[weather])
    await first.run("Weather in Rome?")
    data = dump_messages(first.messages)

    openai_fake.script = scripted(Reply(text="Yes, take sunglasses."))
    second = Agent(model=gpt(fakes), tools=[weather], messages=load_messages(data))
    result = await second.run("Sunglasses?")
    assert result.output == "Yes, take sunglasses."
    assert anthropic_fake.problems == [] and openai_fake.problems == []
    sent = openai_fake.requests[0]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert sent[3]["content"] == "sunny in Rome"


async def test_fallback_model_over_http(fakes: dict[str, tuple[Fake, str]]) -> None:
    openai_fake, anthropic_fake = fakes["openai"][0], fakes["anthropic"][0]
    openai_fake.fail_status = 529
    anthropic_fake.script = scripted(Reply(text="From Claude."))
    agent = Agent(model=FallbackModel(gpt(fakes), claude(fakes)))
    assert (await agent.run("Hi")).output == "From Claude."
    assert len(openai_fake.requests) == 1 and len(anthropic_fake.requests) == 1
