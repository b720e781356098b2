"""Chat Completions through the bridge with the real openai client, every native upstream."""

from __future__ import annotations

import json
from typing import Any

import pytest
from bridge_fakes import Fake, Reply
from bridge_harness import TIME, USER, WEATHER, collect_stream

pytestmark = [pytest.mark.anyio, pytest.mark.both_paths]

NATIVE = {"gpt": "openai", "claude": "anthropic", "gemini": "gemini", "ollama": "ollama"}


@pytest.mark.parametrize("model", list(NATIVE))
async def test_plain_reply(client: Any, fakes: dict[str, tuple[Fake, str]], model: str) -> None:
    fake = fakes[NATIVE[model]][0]
    fake.reply = Reply(text="Bonjour, Paris is sunny.")
    reply = await client.chat.completions.create(model=model, messages=USER)
    assert reply.choices[0].message.content == "Bonjour, Paris is sunny."
    assert reply.choices[0].finish_reason == "stop"
    assert reply.choices[0].message.tool_calls is None
    assert reply.usage.prompt_tokens == 11 and reply.usage.completion_tokens == 7
    assert reply.model == model
    assert not fake.problems

    text, calls, finish, chunks = await collect_stream(
        client, model=model, messages=USER, stream_options={"include_usage": True}
    )
    assert text == "Bonjour, Paris is sunny." and not calls and finish == "stop"
    assert chunks[0].choices[0].delta.role == "assistant"
    assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens == 7
    assert len(chunks) > 4, "streamed in pieces"
    assert not fake.problems


@pytest.mark.parametrize("model", list(NATIVE))
async def test_single_and_parallel_tool_calls(
    client: Any, fakes: dict[str, tuple[Fake, str]], model: str
) -> None:
    fake = fakes[NATIVE[model]][0]
    fake.reply = Reply(calls=[("get_weather", {"city": "Paris"})])
    reply = await client.chat.completions.create(model=model, messages=USER, tools=[WEATHER])
    choice = reply.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert [c.function.name for c in choice.message.tool_calls] == ["get_weather"]
    assert json.loads(choice.message.tool_calls[0].function.arguments) == {"city": "Paris"}
    assert choice.message.tool_calls[0].id

    fake.reply = Reply(calls=[("get_weather", {"city": "Paris"}), ("get_time", {"zone": "CET"})])
    text, calls, finish, _ = await collect_stream(
        client, model=model, messages=USER, tools=[WEATHER, TIME]
    )
    assert finish == "tool_calls" and text == ""
    assert [calls[i]["name"] for i in sorted(calls)] == ["get_weather", "get_time"]
    assert json.loads(calls[1]["arguments"]) == {"zone": "CET"}
    assert calls[0]["id"] != calls[1]["id"]
    assert not fake.problems


@pytest.mark.parametrize("model", list(NATIVE))
async def test_history_with_tool_results(
    client: Any, fakes: dict[str, tuple[Fake, str]], model: str
) -> None:
    fake = fakes[NATIVE[model]][0]
    fake.reply = Reply(text="Paris: 21C, Rome: 25C.")
    messages = [
        {"role": "system", "content": "Be brief."},
        *USER,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_a",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                },
                {
                    "id": "call_b",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_a", "content": "21C"},
        {"role": "tool", "tool_call_id": "call_b", "content": "25C"},
    ]
    reply = await client.chat.completions.create(model=model, messages=messages, tools=[WEATHER])
    assert reply.choices[0].message.content == "Paris: 21C, Rome: 25C."
    assert not fake.problems, fake.problems
    sent = json.dumps(fake.requests[-1])
    assert "21C" in sent and "25C" in sent


async def test_history_shapes_per_provider(client: Any, fakes: dict[str, tuple[Fake, str]]) -> None:
    messages = [
        *USER,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_a",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_a", "content": "21C"},
    ]
    await client.chat.completions.create(model="claude", messages=messages, tools=[WEATHER])
    turns = fakes["anthropic"][0].requests[-1]["messages"]
    assert turns[1]["content"][0]["type"] == "tool_use"
    assert turns[2]["content"][0] == {
        "type": "tool_result",
        "tool_use_id": "call_a",
        "content": "21C",
    }
    await client.chat.completions.create(model="gemini", messages=messages, tools=[WEATHER])
    contents = fakes["gemini"][0].requests[-1]["contents"]
    assert contents[1]["role"] == "model" and "function_call" in contents[1]["parts"][0]
    assert contents[2]["parts"][0]["function_response"]["name"] == "get_weather"
    await client.chat.completions.create(model="ollama", messages=messages, tools=[WEATHER])
    sent = fakes["ollama"][0].requests[-1]["messages"]
    assert sent[1]["tool_calls"][0]["function"]["arguments"] == {"city": "Paris"}


@pytest.mark.parametrize(
    ("model", "required", "named"),
    [
        ("gpt", "required", {"type": "function", "function": {"name": "get_time"}}),
        ("claude", {"type": "any"}, {"type": "tool", "name": "get_time"}),
        (
            "gemini",
            {"function_calling_config": {"mode": "ANY"}},
            {"function_calling_config": {"mode": "ANY", "allowed_function_names": ["get_time"]}},
        ),
    ],
)
async def test_tool_choice_required_and_named(
    client: Any, fakes: dict[str, tuple[Fake, str]], model: str, required: Any, named: Any
) -> None:
    fake = fakes[NATIVE[model]][0]
    fake.reply = Reply(calls=[("get_time", {"zone": "UTC"})])
    key = "tool_config" if model == "gemini" else "tool_choice"
    await client.chat.completions.create(
        model=model, messages=USER, tools=[WEATHER, TIME], tool_choice="required"
    )
    assert fake.requests[-1][key] == required
    reply = await client.chat.completions.create(
        model=model,
        messages=USER,
        tools=[WEATHER, TIME],
        tool_choice={"type": "function", "function": {"name": "get_time"}},
    )
    assert fake.requests[-1][key] == named
    assert reply.choices[0].message.tool_calls[0].function.name == "get_time"


async def test_stream_helper_and_parallel_flag(
    client: Any, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fake = fakes["openai"][0]
    fake.reply = Reply(text="Checking.", calls=[("get_weather", {"city": "Paris"})])
    async with client.chat.completions.stream(
        model="gpt", messages=USER, tools=[WEATHER], parallel_tool_calls=False
    ) as stream:
        async for _ in stream:
            pass
        final = await stream.get_final_completion()
    message = final.choices[0].message
    assert message.content == "Checking."
    assert message.tool_calls[0].function.parsed_arguments is None or True
    assert json.loads(message.tool_calls[0].function.arguments) == {"city": "Paris"}
    assert fake.requests[-1]["parallel_tool_calls"] is False


async def test_response_format_and_models_and_health(
    client: Any, fakes: dict[str, tuple[Fake, str]], bridge: Any
) -> None:
    fake = fakes["openai"][0]
    fake.reply = Reply(text='{"ok": true}')
    fmt = {
        "type": "json_schema",
        "json_schema": {
            "name": "r",
            "schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
        },
    }
    reply = await client.chat.completions.create(model="gpt", messages=USER, response_format=fmt)
    assert json.loads(reply.choices[0].message.content) == {"ok": True}
    assert fake.requests[-1]["response_format"] == fmt
    models = await client.models.list()
    assert {m.id for m in models.data} >= {"gpt", "claude", "gemini", "ollama", "local"}
    import httpx2

    async with httpx2.AsyncClient() as http:
        health = await http.get(f"{bridge.url}/health")
    assert health.json()["status"] == "ok"


async def test_structured_mode(client: Any, fakes: dict[str, tuple[Fake, str]]) -> None:
    fake = fakes["openai"][0]
    fake.reply = Reply(
        text=json.dumps(
            {"action": {"tool": "get_weather", "arguments": {"city": "Oslo"}, "scratchpad": None}}
        )
    )
    reply = await client.chat.completions.create(model="structured", messages=USER, tools=[WEATHER])
    call = reply.choices[0].message.tool_calls[0]
    assert call.function.name == "get_weather"
    assert json.loads(call.function.arguments) == {"city": "Oslo"}
    assert "tools" not in fake.requests[-1]
    assert fake.requests[-1]["response_format"]["type"] == "json_schema"
    text, calls, finish, _ = await collect_stream(
        client, model="structured", messages=USER, tools=[WEATHER]
    )
    assert calls[0]["name"] == "get_weather" and finish == "tool_calls" and text == ""


async def test_strict_tools_stay_strict(client: Any, fakes: dict[str, tuple[Fake, str]]) -> None:
    fake = fakes["openai"][0]
    strict = {"type": "function", "function": {**WEATHER["function"], "strict": True}}
    await client.chat.completions.create(model="gpt", messages=USER, tools=[strict])
    sent = fake.requests[-1]["tools"][0]["function"]
    assert sent["strict"] is True and sent["parameters"]["additionalProperties"] is False
    await client.chat.completions.create(model="gpt", messages=USER, tools=[WEATHER])
    assert "strict" not in fake.requests[-1]["tools"][0]["function"]
