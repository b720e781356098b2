"""The OpenAI Agents SDK's default model (``OpenAIResponsesModel``) over the bridge: an
agent with a function tool, run whole and streamed, against native and prompted upstreams."""

from __future__ import annotations

import json
from typing import Any

import pytest
from bridge_fakes import Fake, Reply
from bridge_harness import CLIENT_KEY
from openai import AsyncOpenAI
from responses_harness import RESP, sqlite_bridge

from good_agent.server.background import BackgroundServer

agents = pytest.importorskip("agents")

pytestmark = pytest.mark.anyio


def weather_then_answer(model: str) -> Any:
    if model == "gpt":
        first = Reply(calls=[("get_weather", {"city": "Paris"})])
    else:
        first = Reply(
            text='<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
        )
    replies = [first, Reply(text="It is 21C in Paris.")]
    return lambda body: replies.pop(0)


async def run_forecaster(url: str, model: str, tool: Any, streamed: bool) -> Any:
    """An Agents SDK agent with ``tool`` on the bridge at ``url`` (its Responses
    model), run once (streamed or not); its final output."""
    client = AsyncOpenAI(base_url=f"{url}/v1", api_key=CLIENT_KEY, max_retries=0)
    agent = agents.Agent(
        name="forecaster",
        instructions="Answer with the tool.",
        tools=[tool],
        model=agents.OpenAIResponsesModel(model=model, openai_client=client),
    )
    config = agents.RunConfig(tracing_disabled=True)
    try:
        if streamed:
            run = agents.Runner.run_streamed(agent, "Weather in Paris?", run_config=config)
            kinds = [event.type async for event in run.stream_events()]
            assert "raw_response_event" in kinds
            return run.final_output
        result = await agents.Runner.run(agent, "Weather in Paris?", run_config=config)
        return result.final_output
    finally:
        await client.close()


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "run_streamed"])
@pytest.mark.parametrize("model", ["gpt", "local"])
async def test_an_agents_sdk_agent_calls_a_tool_through_the_bridge(
    rbridge: BackgroundServer, fakes: dict[str, tuple[Fake, str]], model: str, streamed: bool
) -> None:
    fake = fakes["openai" if model == "gpt" else "text"][0]
    fake.script = weather_then_answer(model)
    seen: list[str] = []

    @agents.function_tool
    def get_weather(city: str) -> str:
        """The weather in a city."""
        seen.append(city)
        return "21C"

    output = await run_forecaster(rbridge.url, model, get_weather, streamed)
    assert output == "It is 21C in Paris."
    assert seen == ["Paris"]
    second = fake.requests[-1]["messages"]
    assert second[0]["role"] == "system" and "Answer with the tool." in json.dumps(second[0])
    if model == "gpt":
        assert [m["role"] for m in second] == ["system", "user", "assistant", "tool"]
        assert second[-1]["content"] == "21C"
    else:
        assert "21C" in json.dumps(second[-1])
    assert not fake.problems, fake.problems


@pytest.mark.parametrize("pass_through", [True, False], ids=["pass-through", "translated"])
@pytest.mark.parametrize("streamed", [False, True], ids=["run", "run_streamed"])
async def test_an_agents_sdk_agent_over_a_responses_upstream(
    fakes: dict[str, tuple[Fake, str]],
    tmp_path: Any,
    pass_through: bool,
    streamed: bool,
) -> None:
    """A Responses route (passed through when the path is on: the tool is not strict)."""
    fake = fakes["responses"][0]
    fake.script = weather_then_answer("gpt")
    seen: list[str] = []

    @agents.function_tool(strict_mode=False)
    def get_weather(city: str) -> str:
        """The weather in a city."""
        seen.append(city)
        return "21C"

    bridge = sqlite_bridge(fakes, tmp_path, pass_through=pass_through)
    try:
        output = await run_forecaster(bridge.url, RESP, get_weather, streamed)
    finally:
        bridge.stop()
    assert output == "It is 21C in Paris."
    assert seen == ["Paris"]
    first, second = fake.requests
    if pass_through:  # the SDK's own request, with store: false
        assert first["instructions"] == "Answer with the tool." and first["store"] is False
    else:
        assert first["input"][0] == {"role": "system", "content": "Answer with the tool."}
    outputs = [item for item in second["input"] if item.get("type") == "function_call_output"]
    assert [item["output"] for item in outputs] == ["21C"]
    assert not fake.problems, fake.problems
