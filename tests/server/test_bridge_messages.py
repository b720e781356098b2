"""``/v1/messages`` with the real anthropic client, against native and text-only upstreams."""

from __future__ import annotations

from typing import Any

import anthropic
import pytest
from bridge_fakes import Fake, Reply
from bridge_harness import CLIENT_KEY

pytestmark = [pytest.mark.anyio, pytest.mark.both_paths]

TOOL = {
    "name": "get_weather",
    "description": "Weather for a city.",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}
ASK = [{"role": "user", "content": "Weather in Paris?"}]
HERMES = 'Sure. <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'


@pytest.fixture
async def claude(bridge: Any, anyio_backend: str) -> Any:
    async with anthropic.AsyncAnthropic(
        base_url=bridge.url, api_key=CLIENT_KEY, max_retries=0
    ) as client:
        yield client


@pytest.mark.parametrize(
    ("model", "fake_name", "text"),
    [("gpt", "openai", None), ("local", "text", HERMES), ("gemini", "gemini", None)],
)
async def test_messages_tool_use(
    claude: Any, fakes: dict[str, tuple[Fake, str]], model: str, fake_name: str, text: str | None
) -> None:
    fake = fakes[fake_name][0]
    fake.reply = Reply(text=text) if text else Reply(calls=[("get_weather", {"city": "Paris"})])
    message = await claude.messages.create(
        model=model, max_tokens=100, messages=ASK, tools=[TOOL], system="Be brief."
    )
    assert message.stop_reason == "tool_use"
    uses = [b for b in message.content if b.type == "tool_use"]
    assert uses[0].name == "get_weather" and uses[0].input == {"city": "Paris"}
    assert all("tool_call" not in getattr(b, "text", "") for b in message.content)

    async with claude.messages.stream(
        model=model, max_tokens=100, messages=ASK, tools=[TOOL]
    ) as stream:
        final = await stream.get_final_message()
    assert final.stop_reason == "tool_use"
    streamed = [b for b in final.content if b.type == "tool_use"]
    assert streamed[0].name == "get_weather" and streamed[0].input == {"city": "Paris"}
    assert not fake.problems, fake.problems


async def test_messages_history_with_tool_results(
    claude: Any, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fake = fakes["openai"][0]
    fake.reply = Reply(text="Paris is 21C.")
    history = [
        *ASK,
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Checking."},
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "get_weather",
                    "input": {"city": "Paris"},
                },
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "21C"}],
        },
    ]
    message = await claude.messages.create(
        model="gpt", max_tokens=50, messages=history, tools=[TOOL], tool_choice={"type": "auto"}
    )
    assert message.content[0].text == "Paris is 21C."
    assert message.stop_reason == "end_turn"
    assert message.usage.input_tokens == 11
    sent = fake.requests[-1]["messages"]
    assert sent[1]["tool_calls"][0]["id"] == "toolu_1"
    assert sent[2] == {"role": "tool", "tool_call_id": "toolu_1", "content": "21C"}
    assert not fake.problems

    async with claude.messages.stream(model="gpt", max_tokens=50, messages=history) as stream:
        text = "".join([piece async for piece in stream.text_stream])
    assert text == "Paris is 21C."


async def test_messages_errors(claude: Any, fakes: dict[str, tuple[Fake, str]]) -> None:
    with pytest.raises(anthropic.BadRequestError) as unknown:
        await claude.messages.create(model="nope", max_tokens=10, messages=ASK)
    assert unknown.value.body["type"] == "error"
    assert "unknown model" in unknown.value.body["error"]["message"]
    with pytest.raises(anthropic.BadRequestError) as bad_tool:
        await claude.messages.create(
            model="gpt",
            max_tokens=10,
            messages=ASK,
            tools=[{"name": "x", "input_schema": {"type": "string"}}],
        )
    assert "tools[0].input_schema" in bad_tool.value.body["error"]["message"]
    fakes["openai"][0].fail_status = 429
    with pytest.raises(anthropic.RateLimitError):
        await claude.messages.create(model="gpt", max_tokens=10, messages=ASK)
