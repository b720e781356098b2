"""Text-only upstreams in validated/parsed mode: calls written as text become real tool_calls."""

from __future__ import annotations

import json
from typing import Any

import pytest
from bridge_fakes import Fake, Reply
from bridge_harness import HERMES, MISTRAL, TIME, USER, WEATHER, collect_stream

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("text", [HERMES, MISTRAL], ids=["hermes", "mistral"])
@pytest.mark.parametrize("model", ["local", "local-parsed", "ollama-text"])
@pytest.mark.parametrize("chunk_size", [1, 3, 50])
async def test_text_calls_become_tool_calls(
    client: Any, fakes: dict[str, tuple[Fake, str]], text: str, model: str, chunk_size: int
) -> None:
    fake = fakes["ollama" if model.startswith("ollama") else "text"][0]
    fake.reply = Reply(text=text)
    fake.chunk_size = chunk_size
    if chunk_size == 3:
        reply = await client.chat.completions.create(
            model=model, messages=USER, tools=[WEATHER, TIME]
        )
        message = reply.choices[0].message
        assert reply.choices[0].finish_reason == "tool_calls"
        assert [c.function.name for c in message.tool_calls] == ["get_weather", "get_time"]
        assert json.loads(message.tool_calls[0].function.arguments) == {"city": "Paris"}
        assert "tool_call" not in (message.content or "")
        assert "TOOL_CALLS" not in (message.content or "")
        assert len({c.id for c in message.tool_calls}) == 2
    content, calls, finish, _ = await collect_stream(
        client, model=model, messages=USER, tools=[WEATHER, TIME]
    )
    assert finish == "tool_calls"
    assert [calls[i]["name"] for i in sorted(calls)] == ["get_weather", "get_time"]
    assert json.loads(calls[1]["arguments"]) == {"zone": "CET"}
    assert "<" not in content and "[TOOL_CALLS]" not in content
    if text is HERMES:
        assert content.strip() == "Let me check."
    assert not fake.problems, fake.problems
    sent = fake.requests[-1]
    assert "tools" not in sent
    assert "get_weather" in json.dumps(sent["messages"][0])


async def test_text_mode_history_and_tool_choice(
    client: Any, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fake = fakes["text"][0]
    fake.reply = Reply(text="It is 21C in Paris.")
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
    reply = await client.chat.completions.create(
        model="local",
        messages=messages,
        tools=[WEATHER, TIME],
        tool_choice={"type": "function", "function": {"name": "get_weather"}},
    )
    assert reply.choices[0].message.content == "It is 21C in Paris."
    assert reply.choices[0].message.tool_calls is None
    assert not fake.problems, fake.problems
    sent = fake.requests[-1]["messages"]
    system = sent[0]["content"]
    assert "get_weather" in system and "get_time" not in system
    assert "must call" in system
    assert "<tool_call>" in sent[2]["content"] and "21C" in sent[3]["content"]


async def test_plain_text_and_parallel_limit(
    client: Any, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fake = fakes["text"][0]
    fake.reply = Reply(text="No tools needed: 2 < 3 and [1, 2] are fine.")
    content, calls, finish, _ = await collect_stream(
        client, model="local", messages=USER, tools=[WEATHER]
    )
    assert content == "No tools needed: 2 < 3 and [1, 2] are fine." and not calls
    assert finish == "stop"
    fake.reply = Reply(text=HERMES)
    reply = await client.chat.completions.create(
        model="local", messages=USER, tools=[WEATHER, TIME], parallel_tool_calls=False
    )
    assert len(reply.choices[0].message.tool_calls) == 1
    _, calls, _, _ = await collect_stream(
        client, model="local", messages=USER, tools=[WEATHER, TIME], parallel_tool_calls=False
    )
    assert list(calls) == [0]
