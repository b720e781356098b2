"""What a text-only upstream receives through the bridge: history whose written calls
carry their ids and whose results name their tool and call."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import pytest
from bridge_fakes import Fake, Reply
from bridge_harness import CLIENT_KEY, TIME, WEATHER, collect_stream

pytestmark = pytest.mark.anyio


def written_ids_and_names(text: str) -> list[tuple[str, str]]:
    blocks = [json.loads(p.split("</tool_call>")[0]) for p in text.split("<tool_call>")[1:]]
    return [(b["id"], b["name"]) for b in blocks]


def assert_paired(sent: list[dict[str, Any]]) -> None:
    assistant = next(m for m in sent if m["role"] == "assistant")
    assert written_ids_and_names(assistant["content"]) == [
        ("call_w", "get_weather"),
        ("call_t", "get_time"),
    ]
    results = sent[-1]["content"]
    assert "Tool get_weather (call call_w) returned: 21C" in results
    assert "Tool get_time (call call_t) returned: 12:00" in results


@pytest.mark.parametrize("model", ["local", "local-parsed", "ollama-text"])
async def test_chat_history_to_a_text_model(
    client: Any, fakes: dict[str, tuple[Fake, str]], model: str
) -> None:
    fake = fakes["ollama" if model.startswith("ollama") else "text"][0]
    fake.reply = Reply(text="21C at noon.")
    messages = [
        {"role": "user", "content": "Weather and time in Paris?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": name, "arguments": arguments},
                }
                for call_id, name, arguments in (
                    ("call_w", "get_weather", '{"city": "Paris"}'),
                    ("call_t", "get_time", '{"zone": "CET"}'),
                )
            ],
        },
        {"role": "tool", "tool_call_id": "call_t", "content": "12:00"},
        {"role": "tool", "tool_call_id": "call_w", "content": "21C"},
    ]
    reply = await client.chat.completions.create(
        model=model, messages=messages, tools=[WEATHER, TIME]
    )
    assert reply.choices[0].message.content == "21C at noon."
    assert_paired(fake.requests[-1]["messages"])


async def test_messages_history_to_a_text_model(
    bridge: Any, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fake = fakes["text"][0]
    fake.reply = Reply(text="21C at noon.")
    tools = [
        {"name": t["function"]["name"], "input_schema": t["function"]["parameters"]}
        for t in (WEATHER, TIME)
    ]
    history = [
        {"role": "user", "content": "Weather and time in Paris?"},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "call_w", "name": "get_weather", "input": {"city": "P"}},
                {"type": "tool_use", "id": "call_t", "name": "get_time", "input": {"zone": "CET"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "call_t", "content": "12:00"},
                {"type": "tool_result", "tool_use_id": "call_w", "content": "21C"},
            ],
        },
    ]
    async with anthropic.AsyncAnthropic(
        base_url=bridge.url, api_key=CLIENT_KEY, max_retries=0
    ) as claude:
        message = await claude.messages.create(
            model="local", max_tokens=50, messages=history, tools=tools
        )
    assert message.content[0].text == "21C at noon."
    assert_paired(fake.requests[-1]["messages"])


ANSWER_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "celsius": {"type": "number"}},
    "required": ["city", "celsius"],
    "additionalProperties": False,
}
STRICT_FORMAT = {
    "type": "json_schema",
    "json_schema": {"name": "weather", "schema": ANSWER_SCHEMA, "strict": True},
}


@pytest.mark.parametrize("stream", [False, True])
async def test_tools_and_a_strict_response_format_make_one_instruction(
    client: Any, fakes: dict[str, tuple[Fake, str]], stream: bool
) -> None:
    fake = fakes["text"][0]
    fake.reply = Reply(
        text='<tool_call>{"name": "get_weather", "arguments": {"city": "P"}}</tool_call>'
    )
    kw: dict[str, Any] = {
        "model": "local",
        "messages": [{"role": "user", "content": "Weather in Paris?"}],
        "tools": [WEATHER],
        "response_format": STRICT_FORMAT,
    }
    if stream:
        _, calls, finish, _ = await collect_stream(client, **kw)
        assert finish == "tool_calls" and calls[0]["name"] == "get_weather"
    else:
        reply = await client.chat.completions.create(**kw)
        assert reply.choices[0].message.tool_calls[0].function.name == "get_weather"
    sent = fake.requests[-1]
    # Nothing in the request forbids writing a call; the schema is on the answer only.
    assert "response_format" not in sent and "tools" not in sent
    system = sent["messages"][0]["content"]
    assert "<tool_call>" in system and "get_weather" in system
    rule = system[system.index("# Format of the final answer") :]
    assert "final answer only, never your tool calls" in rule
    assert json.dumps(ANSWER_SCHEMA) in rule


async def test_without_possible_calls_the_response_format_is_sent(
    client: Any, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fake = fakes["text"][0]
    fake.reply = Reply(text='{"city": "Paris", "celsius": 21}')
    reply = await client.chat.completions.create(
        model="local",
        messages=[{"role": "user", "content": "Weather in Paris?"}],
        tools=[WEATHER],
        tool_choice="none",
        response_format=STRICT_FORMAT,
    )
    assert json.loads(reply.choices[0].message.content) == {"city": "Paris", "celsius": 21}
    sent = fake.requests[-1]
    assert sent["response_format"]["json_schema"]["schema"] == ANSWER_SCHEMA
    assert "# Format of the final answer" not in sent["messages"][0]["content"]
