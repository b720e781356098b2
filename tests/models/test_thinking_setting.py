"""The ``thinking`` setting over loopback: its wire form per API (Chat Completions,
Responses, Anthropic, Gemini), its refusal for a model without reasoning, the reasoning
text coming back whole and streamed, and the provider's reasoning items sent back in
the next request (Anthropic thinking blocks with their signatures, Responses reasoning
items)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest
from tool_dicts import WEATHER
from upstreams import (
    anthropic_events,
    anthropic_message,
    chat_completion,
    gemini_reply,
    model_of,
    sse,
)

from good_agent import Agent
from good_agent.models import (
    ModelRequest,
)
from good_agent.models.provider_model import ProviderModel
from good_agent.providers.streaming import ReasoningDelta
from good_agent.types.errors import ModelCapabilityError
from good_agent.types.messages import ModelResponse, ToolMessage, UserMessage

pytestmark = pytest.mark.anyio

Start = Callable[[list[Any]], Any]


def ask(**settings: Any) -> ModelRequest:
    return ModelRequest(messages=[UserMessage(content="Weather in Paris?")], settings=settings)


def chat_reply(reasoning: str | None = None) -> dict[str, Any]:
    extra = {"reasoning_content": reasoning} if reasoning else {}
    usage = {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
    return chat_completion(model="m", usage=usage, **extra)


THINKING_BLOCK = {"type": "thinking", "thinking": "Paris is in France.", "signature": "sig-1"}


RESPONSES_REPLY = {
    "id": "resp_1",
    "object": "response",
    "status": "completed",
    "model": "o4-mini",
    "output": [
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [{"type": "summary_text", "text": "Look it up."}],
            "encrypted_content": "enc-1",
        },
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_1",
            "name": "get_weather",
            "arguments": '{"city": "Paris"}',
        },
    ],
    "usage": {"input_tokens": 3, "output_tokens": 2},
}


@pytest.mark.parametrize(
    ("kind", "name", "reply", "thinking", "wire"),
    [
        ("chat", "o3-mini", chat_reply(), "high", {"reasoning_effort": "high"}),
        ("chat", "gpt-5", chat_reply(), 1500, {"reasoning_effort": "medium"}),
        ("chat", "gpt-5", chat_reply(), True, {"reasoning_effort": "medium"}),
        ("chat", "gpt-4o", chat_reply(), False, {}),
        (
            "responses",
            "o4-mini",
            RESPONSES_REPLY,
            "low",
            {"reasoning": {"effort": "low", "summary": "auto"}},
        ),
        (
            "anthropic",
            "claude-sonnet-4-5",
            anthropic_message({"type": "text", "text": "Sunny."}),
            "medium",
            {"thinking": {"type": "enabled", "budget_tokens": 2048}, "max_tokens": 2048 + 4096},
        ),
        (
            "anthropic",
            "claude-opus-4-1",
            anthropic_message({"type": "text", "text": "Sunny."}),
            False,
            {"thinking": {"type": "disabled"}},
        ),
        (
            "gemini",
            "gemini-2.5-flash",
            gemini_reply({"text": "Sunny."}),
            512,
            {"thinking_config": {"thinking_budget": 512, "include_thoughts": True}},
        ),
        (
            "gemini",
            "gemini-2.5-pro",
            gemini_reply({"text": "Sunny."}),
            "high",
            {"thinking_config": {"thinking_budget": 4096, "include_thoughts": True}},
        ),
        (
            "gemini",
            "gemini-3-pro-preview",
            gemini_reply({"text": "Sunny."}),
            "low",
            {"thinking_config": {"thinking_level": "low", "include_thoughts": True}},
        ),
        (
            "gemini",
            "gemini-2.5-flash",
            gemini_reply({"text": "Sunny."}),
            False,
            {"thinking_config": {"thinking_budget": 0}},
        ),
    ],
)
async def test_the_wire_form_of_thinking(
    fake_upstream: Start,
    kind: str,
    name: str,
    reply: dict[str, Any],
    thinking: Any,
    wire: dict[str, Any],
) -> None:
    upstream = fake_upstream([(200, reply)])
    model = model_of(kind, upstream.url, name)
    try:
        await model.request(ask(thinking=thinking))
    finally:
        await model.aclose()
    body = upstream.bodies[0]
    sent = (
        body.get("generationConfig") or body.get("generation_config") if kind == "gemini" else body
    )
    for key, value in wire.items():
        assert sent[key] == value, (key, sent)
    assert "thinking" not in body or kind == "anthropic"
    if not wire:
        assert "reasoning_effort" not in body and "reasoning" not in body


async def test_model_settings_of_an_agent_carry_thinking(fake_upstream: Start) -> None:
    upstream = fake_upstream([(200, chat_reply("The sky is clear."))])
    model = model_of("chat", upstream.url, "o3")
    agent = Agent("Be brief.", model=model, model_settings={"thinking": "low"})
    try:
        result = await agent.run("Weather?")
    finally:
        await model.aclose()
    assert upstream.bodies[0]["reasoning_effort"] == "low"
    assert result.output == "Sunny."
    assert result.message.reasoning == "The sky is clear."


async def test_anthropic_sampling_rules_under_thinking(
    fake_upstream: Start, caplog: pytest.LogCaptureFixture
) -> None:
    upstream = fake_upstream([(200, anthropic_message({"type": "text", "text": "Sunny."}))] * 2)
    model = model_of("anthropic", upstream.url, "claude-sonnet-4-5")
    try:
        with caplog.at_level(logging.WARNING, logger="good_agent.providers"):
            await model.request(ask(thinking=3000, temperature=0.2, top_k=5, max_tokens=8000))
        await model.request(ask(thinking="low", temperature=1, top_p=0.97))
        with pytest.raises(ValueError, match=r"max_tokens \(1500\) must be greater"):
            await model.request(ask(thinking="medium", max_tokens=1500))
    finally:
        await model.aclose()
    first, second = upstream.bodies
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 3000}
    assert "temperature" not in first and "top_k" not in first
    assert first["max_tokens"] == 8000
    assert "temperature, top_k left out" in caplog.text
    assert second["temperature"] == 1 and second["top_p"] == 0.97
    assert second["thinking"] == {"type": "enabled", "budget_tokens": 1024}
    assert len(upstream.bodies) == 2  # the refused request was never sent


@pytest.mark.parametrize(
    ("kind", "name"),
    [
        ("chat", "gpt-4o"),
        ("chat", "gpt-5-chat-latest"),
        ("responses", "gpt-4.1"),
        ("anthropic", "claude-3-5-haiku-latest"),
        ("gemini", "gemini-2.0-flash"),
    ],
)
async def test_a_model_without_reasoning_refuses_thinking(
    fake_upstream: Start, kind: str, name: str
) -> None:
    upstream = fake_upstream([])
    model = model_of(kind, upstream.url, name)
    try:
        with pytest.raises(ModelCapabilityError) as refused:
            await model.request(ask(thinking="high"))
        with pytest.raises(ModelCapabilityError):
            async for _ in model.stream(ask(thinking=2048)):
                pass
    finally:
        await model.aclose()
    assert f"model '{name}'" in str(refused.value)
    assert "thinking" in str(refused.value) and "no reasoning" in str(refused.value)
    assert isinstance(refused.value, ValueError)
    assert upstream.bodies == []


async def test_a_profile_override_allows_thinking(fake_upstream: Start) -> None:
    from dataclasses import replace

    from good_agent.providers.profiles import get_profile

    upstream = fake_upstream([(200, chat_reply("thought"))])
    profile = replace(get_profile("openai:my-reasoner"), supports_thinking=True)
    model = model_of("chat", upstream.url, "my-reasoner", profile=profile)
    try:
        reply = await model.request(ask(thinking="medium"))
    finally:
        await model.aclose()
    assert upstream.bodies[0]["reasoning_effort"] == "medium"
    assert reply.reasoning == "thought"


@pytest.mark.parametrize("value", ["extreme", 0, -5, 1.5, "LOW"])
async def test_a_bad_thinking_value_is_a_value_error(fake_upstream: Start, value: Any) -> None:
    upstream = fake_upstream([])
    model = model_of("chat", upstream.url, "o3")
    try:
        with pytest.raises(ValueError, match="thinking must be 'low', 'medium', 'high'"):
            await model.request(ask(thinking=value))
    finally:
        await model.aclose()
    assert upstream.bodies == []


ANTHROPIC_STREAM = anthropic_events(
    anthropic_message(usage={"input_tokens": 3, "output_tokens": 0}, stop="tool_use"),
    (
        {"type": "thinking", "thinking": "", "signature": ""},
        [
            {"type": "thinking_delta", "thinking": "Paris is "},
            {"type": "thinking_delta", "thinking": "in France."},
            {"type": "signature_delta", "signature": "sig-1"},
        ],
    ),
    ({"type": "redacted_thinking", "data": "opaque-1"}, []),
    (
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}},
        [{"type": "input_json_delta", "partial_json": '{"city": "Paris"}'}],
    ),
    output_tokens=9,
)
ANTHROPIC_WHOLE = anthropic_message(
    THINKING_BLOCK,
    {"type": "redacted_thinking", "data": "opaque-1"},
    {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
    stop="tool_use",
)


async def follow_up(model: ProviderModel, reply: ModelResponse, call_id: str) -> None:
    """The next request of the conversation: the reply, then its tool's result."""
    messages = [
        UserMessage(content="Weather in Paris?"),
        reply.to_message(),
        ToolMessage(tool_call_id=call_id, tool_name="get_weather", content="21C"),
    ]
    await model.request(
        ModelRequest(messages=messages, tools=[WEATHER], settings={"thinking": 2048})
    )


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_anthropic_thinking_comes_back_and_is_sent_back_signed(
    fake_upstream: Start, streamed: bool
) -> None:
    first = sse(ANTHROPIC_STREAM) if streamed else (200, ANTHROPIC_WHOLE)
    upstream = fake_upstream([first, (200, anthropic_message({"type": "text", "text": "21C."}))])
    model = model_of("anthropic", upstream.url, "claude-sonnet-4-5")
    request = ModelRequest(
        messages=[UserMessage(content="Weather in Paris?")],
        tools=[WEATHER],
        settings={"thinking": 2048},
    )
    try:
        if streamed:
            items = [item async for item in model.stream(request)]
            reply = items[-1]
            assert isinstance(reply, ModelResponse)
            deltas = [i.text for i in items if isinstance(i, ReasoningDelta)]
            assert deltas == ["Paris is ", "in France."]
        else:
            reply = await model.request(request)
        assert reply.reasoning == "Paris is in France."
        await follow_up(model, reply, reply.tool_calls[0].id)
    finally:
        await model.aclose()
    assert upstream.bodies[0]["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    turn = upstream.bodies[1]["messages"][1]
    assert turn["role"] == "assistant"
    # The thinking that led to the call goes back first, its signature intact.
    assert turn["content"][0] == THINKING_BLOCK
    assert turn["content"][1] == {"type": "redacted_thinking", "data": "opaque-1"}
    assert turn["content"][2]["type"] == "tool_use"


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_responses_reasoning_comes_back_and_is_sent_back(
    fake_upstream: Start, streamed: bool
) -> None:
    events: list[dict[str, Any]] = [
        {
            "type": "response.created",
            "response": {**RESPONSES_REPLY, "output": [], "status": "in_progress"},
        },
        {
            "type": "response.reasoning_summary_text.delta",
            "item_id": "rs_1",
            "summary_index": 0,
            "delta": "Look it up.",
        },
        {
            "type": "response.output_item.added",
            "output_index": 1,
            "item": {**RESPONSES_REPLY["output"][1], "arguments": ""},
        },
        {
            "type": "response.function_call_arguments.done",
            "item_id": "fc_1",
            "arguments": '{"city": "Paris"}',
        },
        {"type": "response.completed", "response": RESPONSES_REPLY},
    ]
    first = sse(events, named=False) if streamed else (200, RESPONSES_REPLY)
    done = {
        **RESPONSES_REPLY,
        "output": [{"type": "message", "content": [{"type": "output_text", "text": "21C."}]}],
    }
    upstream = fake_upstream([first, (200, done)])
    model = model_of("responses", upstream.url, "o4-mini")
    request = ModelRequest(
        messages=[UserMessage(content="Weather in Paris?")],
        tools=[WEATHER],
        settings={"thinking": "high"},
    )
    try:
        if streamed:
            items = [item async for item in model.stream(request)]
            reply = items[-1]
            assert isinstance(reply, ModelResponse)
            assert [i.text for i in items if isinstance(i, ReasoningDelta)] == ["Look it up."]
        else:
            reply = await model.request(request)
        assert reply.reasoning == "Look it up."
        await follow_up(model, reply, "call_1")
    finally:
        await model.aclose()
    assert upstream.bodies[0]["reasoning"] == {"effort": "high", "summary": "auto"}
    items_sent = upstream.bodies[1]["input"]
    kinds = [item.get("type") for item in items_sent]
    assert kinds[1:4] == ["reasoning", "function_call", "function_call_output"]
    assert items_sent[1]["id"] == "rs_1" and items_sent[1]["encrypted_content"] == "enc-1"
    assert items_sent[2]["id"] == "fc_1"
    assert upstream.bodies[1]["reasoning"] == {"effort": "medium", "summary": "auto"}


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_gemini_thoughts_come_back(fake_upstream: Start, streamed: bool) -> None:
    reply = gemini_reply({"text": "Clear skies.", "thought": True}, {"text": "Sunny."})
    first = sse([reply], named=False) if streamed else (200, reply)
    upstream = fake_upstream([first])
    model = model_of("gemini", upstream.url, "gemini-2.5-flash")
    try:
        if streamed:
            items = [item async for item in model.stream(ask(thinking="low"))]
            final = items[-1]
            assert isinstance(final, ModelResponse)
            assert [i.text for i in items if isinstance(i, ReasoningDelta)] == ["Clear skies."]
        else:
            final = await model.request(ask(thinking="low"))
    finally:
        await model.aclose()
    assert final.reasoning == "Clear skies." and final.content == "Sunny."
    body = upstream.bodies[0]
    config = body.get("generationConfig") or body["generation_config"]
    assert config["thinking_config"] == {"thinking_budget": 1024, "include_thoughts": True}


async def test_ollama_thinks_with_a_profile_that_reasons(fake_upstream: Start) -> None:
    from dataclasses import replace

    from good_agent.models import OllamaModel
    from good_agent.providers.profiles import get_profile

    reply = {
        "model": "qwen3",
        "message": {"role": "assistant", "content": "Hi.", "thinking": "Hm."},
    }
    upstream = fake_upstream([(200, {**reply, "done": True})] * 2)
    profile = replace(get_profile("ollama:qwen3"), supports_thinking=True)
    model = OllamaModel("qwen3", base_url=upstream.url, api_key="k", profile=profile)
    try:
        answer = await model.request(ask(thinking="high"))
        await model.request(ask(thinking=False))
    finally:
        await model.aclose()
    assert [body["think"] for body in upstream.bodies] == [True, False]
    assert answer.reasoning == "Hm."
