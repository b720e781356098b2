"""The short path of one reply, over loopback HTTP against each vendor's fake upstream.

Whole: wire JSON -> the codec's ``ModelResponse`` (with the history's ``ToolCall``)
-> ``AssistantMessage``. Streamed: wire events -> one delta family -> the run's
events. The agent and the bridge use the same ``request`` and ``stream`` methods.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from bridge_fakes import Reply
from tool_dicts import WEATHER
from vendor_models import Vendors, vendor_model

import good_agent.providers
from good_agent import Agent, TextDeltaEvent, ToolCallArgsEvent, ToolCallStartEvent, tool
from good_agent.models import ModelRequest, ModelResponse
from good_agent.models.provider_model import ProviderModel
from good_agent.providers.streaming import (
    FinishDelta,
    ModelDelta,
    ReasoningDelta,
    TextDelta,
    ToolCallArgs,
    ToolCallEnd,
    ToolCallStart,
)
from good_agent.providers.types import ChatRequest
from good_agent.types.messages import AssistantMessage, ToolCall, UserMessage

pytestmark = pytest.mark.anyio

VENDORS = ["openai", "anthropic", "gemini", "ollama"]


CALLS = Reply(calls=[("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Lima"})])


def ask() -> ModelRequest:
    return ModelRequest([UserMessage(content="Weather in Paris and Lima?")], [WEATHER])


def calls_of(response: ModelResponse) -> list[tuple[str, dict[str, Any]]]:
    return [(call.name, call.arguments) for call in response.tool_calls]


@pytest.mark.parametrize("kind", VENDORS)
async def test_the_codec_decodes_wire_json_into_the_models_reply_and_the_historys_calls(
    kind: str, vendors: Vendors
) -> None:
    fake, url = vendors[kind]
    model = vendor_model(kind, url)
    try:
        body = model.build_body(ask())
        wire = fake.whole(CALLS, body)
        decoded = model.tool_strategy.codec.decode_response(wire, None)
        assert type(decoded) is ModelResponse
        assert [type(call) for call in decoded.tool_calls] == [ToolCall, ToolCall]
        assert calls_of(decoded) == [
            ("get_weather", {"city": "Paris"}),
            ("get_weather", {"city": "Lima"}),
        ]
        fake.reply = CALLS
        over_http = await model.request(ask())
        assert calls_of(over_http) == calls_of(decoded)
        message = over_http.to_message()
        assert isinstance(message, AssistantMessage)
        # the history holds the decoded calls themselves, not copies of another type
        assert all(a is b for a, b in zip(message.tool_calls, over_http.tool_calls, strict=True))
    finally:
        await model.aclose()


def test_the_provider_layer_has_no_second_reply_or_call_type() -> None:
    for gone in ("ParsedToolCall", "ProviderResponse"):
        assert not hasattr(good_agent.providers, gone)
        assert not hasattr(good_agent.providers.types, gone)
    assert good_agent.providers.ToolCall is ToolCall
    assert good_agent.providers.ModelResponse is ModelResponse


def test_the_model_has_one_request_method_and_one_stream_method() -> None:
    assert not hasattr(ProviderModel, "request_chat")
    assert not hasattr(ProviderModel, "stream_chat")


@pytest.mark.parametrize("kind", VENDORS)
async def test_the_bridges_request_and_the_agents_request_take_the_same_method(
    kind: str, vendors: Vendors
) -> None:
    fake, url = vendors[kind]
    fake.reply = CALLS
    model = vendor_model(kind, url)
    try:
        agents = await model.request(ask())
        chat = ChatRequest(
            messages=[{"role": "user", "content": "Weather in Paris and Lima?"}], tools=[WEATHER]
        )
        bridges = await model.request(chat)
        assert type(bridges) is ModelResponse
        assert calls_of(bridges) == calls_of(agents)
        assert fake.requests[0] == fake.requests[1]
        streamed = [item async for item in model.stream(chat)]
        assert type(streamed[-1]) is ModelResponse
        assert calls_of(streamed[-1]) == calls_of(agents)
        assert not fake.problems
    finally:
        await model.aclose()


class DeltaModel:
    """A model of one's own that streams fixed delta objects."""

    model_name = "deltas"

    def __init__(self, deltas: list[ModelDelta]) -> None:
        self.deltas = deltas

    async def request(self, request: ModelRequest) -> ModelResponse:
        return ModelResponse(content="hello world")

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelDelta | ModelResponse]:
        for delta in self.deltas:
            yield delta
        yield ModelResponse(content="hello world", finish_reason="stop")


async def test_a_streamed_run_yields_the_model_streams_own_deltas() -> None:
    deltas: list[ModelDelta] = [
        ReasoningDelta("thinking"),
        TextDelta("hello "),
        TextDelta("world"),
        FinishDelta("stop"),
    ]
    agent = Agent(model=DeltaModel(deltas))
    async with agent.stream("hi") as run:
        events = [event async for event in run]
    assert [e for e in events if isinstance(e, TextDelta | ReasoningDelta)] == deltas[:3]
    assert all(a is b for a, b in zip(events[:3], deltas[:3], strict=True))
    assert TextDeltaEvent is TextDelta


async def test_a_streamed_runs_call_events_are_the_decoders_deltas_over_http(
    vendors: Vendors,
) -> None:
    fake, url = vendors["openai"]
    fake.reply = Reply(calls=[("get_weather", {"city": "Paris"})])

    @tool
    def get_weather(city: str) -> str:
        """Weather for a city."""
        return f"sunny in {city}"

    model = vendor_model("openai", url)
    try:
        agent = Agent(model=model, tools=[get_weather])
        fake.script = lambda body: (
            Reply(text="It is sunny.")
            if any(m.get("role") == "tool" for m in body["messages"])
            else Reply(calls=[("get_weather", {"city": "Paris"})])
        )
        async with agent.stream("Weather in Paris?") as run:
            events = [event async for event in run]
    finally:
        await model.aclose()
    (start,) = [e for e in events if isinstance(e, ToolCallStartEvent)]
    args = [e for e in events if isinstance(e, ToolCallArgsEvent)]
    assert type(start) is ToolCallStart
    assert args and all(isinstance(e, ToolCallArgs) and e.id == start.id for e in args)
    assert not [e for e in events if isinstance(e, ToolCallEnd | FinishDelta)]
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "It is sunny."
