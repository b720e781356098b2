"""Agent.stream over loopback fakes through the real SDK clients, against Agent.call.

For each provider (and a prompted text-only server) the same script runs once
streamed and once with ``call()``: the final message, the history and the tool
results must match, and the streamed events must add up to them.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import anthropic
import anyio
import anyio.to_thread
import pytest
from bridge_fakes import UPSTREAM_KEY, Fake, Reply
from google import genai
from google.genai import types
from openai import AsyncOpenAI

from good_agent import (
    Agent,
    LanguageModel,
    TextDeltaEvent,
    ToolCallStartEvent,
    ToolExecuteEvent,
    ToolResultEvent,
    TurnEndEvent,
    tool,
)
from good_agent.models import AnthropicModel, GeminiModel, OllamaModel, OpenAIChatModel

pytestmark = pytest.mark.anyio

CLIENTS: list[Any] = []


@pytest.fixture(autouse=True)
async def _close_clients() -> AsyncIterator[None]:
    yield
    while CLIENTS:
        await CLIENTS.pop().close()


@tool
def weather(city: str) -> str:
    """Weather for a city."""
    return f"sunny in {city}"


def build(provider: str, url: str) -> LanguageModel:
    if provider in ("openai", "text", "structured", "parsed"):
        client = AsyncOpenAI(base_url=url + "/v1", api_key=UPSTREAM_KEY, max_retries=0)
        CLIENTS.append(client)
        modes = {"openai": "native", "text": "validated"}
        return OpenAIChatModel("fake-gpt", client=client, mode=modes.get(provider, provider))
    if provider == "anthropic":
        claude = anthropic.AsyncAnthropic(
            api_key=UPSTREAM_KEY,
            base_url=url,
            default_headers={"x-api-key": UPSTREAM_KEY},
            max_retries=0,
        )
        CLIENTS.append(claude)
        return AnthropicModel("claude-sonnet-4-6", client=claude)
    if provider == "gemini":
        options = types.HttpOptions(base_url=url, api_version="v1beta")
        client = genai.Client(api_key=UPSTREAM_KEY, http_options=options)
        return GeminiModel("gemini-2.5-flash", client=client)
    return OllamaModel("qwen2.5", base_url=url, mode="native")


ANSWER = "It is sunny in Paris today."


def script(provider: str) -> Callable[[dict[str, Any]], Reply]:
    if provider in ("text", "parsed"):
        first = Reply(
            text='<tool_call>{"name": "weather", "arguments": {"city": "Paris"}}</tool_call>'
        )
        second = Reply(text=ANSWER)
    elif provider == "structured":
        call = {"tool": "weather", "arguments": {"city": "Paris"}, "scratchpad": None}
        first = Reply(text=json.dumps({"action": call}))
        second = Reply(text=json.dumps({"action": {"answer": ANSWER, "scratchpad": None}}))
    else:
        first = Reply(calls=[("weather", {"city": "Paris"})])
        second = Reply(text=ANSWER)
    replies = [first, second]
    return lambda body: replies.pop(0)


FAKE = {"structured": "openai", "parsed": "text"}


def shape(messages: list[Any]) -> list[tuple[str, str | None, list[tuple[str, Any]]]]:
    """The history without the fakes' random call ids."""
    return [
        (
            m.role,
            m.content,
            [(c.name, c.arguments) for c in getattr(m, "tool_calls", [])],
        )
        for m in messages
    ]


@pytest.mark.parametrize(
    "provider", ["openai", "anthropic", "gemini", "ollama", "text", "structured", "parsed"]
)
async def test_streamed_run_matches_call(fakes: dict[str, tuple[Fake, str]], provider: str) -> None:
    fake, url = fakes[FAKE.get(provider, provider)]

    fake.script = script(provider)
    called = Agent("Be brief.", model=build(provider, url), tools=[weather])
    final = await called.call("Weather in Paris?")

    fake.script = script(provider)
    streamed = Agent("Be brief.", model=build(provider, url), tools=[weather])
    async with streamed.stream("Weather in Paris?") as run:
        events = [event async for event in run]

    assert fake.problems == []
    assert run.result.content == final.content == "It is sunny in Paris today."
    assert shape(streamed.messages) == shape(called.messages)
    text = "".join(e.text for e in events if isinstance(e, TextDeltaEvent))
    assert text == "It is sunny in Paris today."
    assert "tool_call" not in text and "action" not in text
    (start,) = [e for e in events if isinstance(e, ToolCallStartEvent)]
    (executing,) = [e for e in events if isinstance(e, ToolExecuteEvent)]
    (result,) = [e for e in events if isinstance(e, ToolResultEvent)]
    assert start.name == "weather" and executing.parameters == {"city": "Paris"}
    assert start.id == executing.call.id == result.call.id
    assert result.message.content == "sunny in Paris"
    turns = [e for e in events if isinstance(e, TurnEndEvent)]
    assert len(turns) == 2 and turns[-1].message is run.result
    if provider not in ("text", "parsed"):
        assert run.usage.input_tokens == 2 * 11 and run.usage.output_tokens == 2 * 7


def received(fake: Fake) -> None:
    """Block until ``fake`` has received a request (at most 20 s)."""
    for _ in range(2000):
        if fake.requests:
            return
        time.sleep(0.01)
    raise AssertionError("the fake received no request")


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_leaving_a_streamed_run_cancels_the_upstream_request(
    fakes: dict[str, tuple[Fake, str]], provider: str
) -> None:
    fake, url = fakes[provider]
    fake.hang = 30.0  # the fake holds the request until the client goes away
    agent = Agent(model=build(provider, url), tools=[weather])
    async with agent.stream("Weather in Paris?") as run:
        # the fake serves from another thread: wait for it there
        await anyio.to_thread.run_sync(received, fake)
    with anyio.fail_after(20):
        await anyio.to_thread.run_sync(fake.cancelled.wait)
    # the reply cut short (nothing had arrived) stays as an incomplete assistant turn
    assert [m.role for m in agent.messages] == ["user", "assistant"]
    assert agent.messages[-1].incomplete and not agent.messages[-1].content  # type: ignore[union-attr]
    with pytest.raises(RuntimeError, match="has not finished"):
        _ = run.result
