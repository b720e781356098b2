"""OpenAIChatModel through the real openai client over an httpx mock transport."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest
from openai import AsyncOpenAI

from good_agent import (
    Agent,
    ModelAuthenticationError,
    ModelRateLimitError,
    OpenAIChatModel,
    ToolMessage,
    tool,
)

pytestmark = pytest.mark.anyio


def completion(message: dict[str, Any], finish: str) -> dict[str, Any]:
    """A Chat Completions response body shaped like the API reference's example."""
    return {
        "id": "chatcmpl-123",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "gpt-4o-mini-2024-07-18",
        "system_fingerprint": "fp_44709d6fcb",
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
        "usage": {"prompt_tokens": 42, "completion_tokens": 7, "total_tokens": 49},
    }


def tool_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


class FakeOpenAI:
    """Replies in order and keeps the JSON bodies it received."""

    def __init__(self, replies: list[httpx2.Response]) -> None:
        self.replies = replies
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        assert request.url.path == "/v1/chat/completions"
        assert request.headers["authorization"] == "Bearer sk-test"
        self.bodies.append(json.loads(request.content))
        return self.replies.pop(0)

    def model(self) -> OpenAIChatModel:
        client = AsyncOpenAI(
            api_key="sk-test",
            base_url="https://api.openai.test/v1",
            http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(self)),
            max_retries=0,
        )
        return OpenAIChatModel("gpt-4o-mini", client=client)


@tool
def get_weather(city: str) -> str:
    """Weather for a city."""
    return f"sunny in {city}"


async def test_text_reply() -> None:
    fake = FakeOpenAI(
        [httpx2.Response(200, json=completion({"role": "assistant", "content": "Hi!"}, "stop"))]
    )
    agent = Agent("Be brief.", model=fake.model(), model_settings={"temperature": 0.2})
    answer = await agent.call("Hello")
    assert answer.content == "Hi!"
    assert answer.usage is not None and answer.usage.input_tokens == 42
    assert fake.bodies == [
        {
            "model": "gpt-4o-mini",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Hello"},
            ],
            "temperature": 0.2,
        }
    ]


async def test_tool_call_reply_then_answer_sends_the_tool_result() -> None:
    fake = FakeOpenAI(
        [
            httpx2.Response(
                200,
                json=completion(
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [tool_call("call_abc", "get_weather", '{"city": "Oslo"}')],
                    },
                    "tool_calls",
                ),
            ),
            httpx2.Response(
                200, json=completion({"role": "assistant", "content": "Sunny."}, "stop")
            ),
        ]
    )
    agent = Agent(model=fake.model(), tools=[get_weather])
    assert (await agent.call("Weather in Oslo?")).content == "Sunny."
    first, second = fake.bodies
    assert first["tools"] == [get_weather.signature]
    assert "tool_choice" not in first
    assert second["messages"][1:] == [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [tool_call("call_abc", "get_weather", '{"city": "Oslo"}')],
        },
        {"role": "tool", "tool_call_id": "call_abc", "content": "sunny in Oslo"},
    ]


async def test_parallel_tool_calls_and_malformed_arguments() -> None:
    fake = FakeOpenAI(
        [
            httpx2.Response(
                200,
                json=completion(
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            tool_call("call_1", "get_weather", '{"city": "Paris"}'),
                            tool_call("call_2", "get_weather", '{"city": "Tok'),
                        ],
                    },
                    "tool_calls",
                ),
            ),
            httpx2.Response(
                200, json=completion({"role": "assistant", "content": "Done."}, "stop")
            ),
        ]
    )
    agent = Agent(model=fake.model(), tools=[get_weather], tool_choice="required")
    await agent.call("Paris and Tokyo?")
    assert fake.bodies[0]["tool_choice"] == "required"
    results = [m for m in agent.messages if isinstance(m, ToolMessage)]
    assert results[0].content == "sunny in Paris" and not results[0].is_error
    assert results[1].is_error and "not valid JSON" in results[1].content
    sent_back = fake.bodies[1]["messages"]
    assert sent_back[1]["tool_calls"][1]["function"]["arguments"] == '{"city": "Tok'
    assert sent_back[3]["role"] == "tool" and "is_error" not in sent_back[3]


async def test_http_errors_become_typed_errors() -> None:
    body = {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}
    fake = FakeOpenAI([httpx2.Response(401, json=body)])
    with pytest.raises(ModelAuthenticationError, match="Incorrect API key provided") as info:
        await Agent(model=fake.model()).call("x")
    assert info.value.status_code == 401

    limited = {"error": {"message": "Rate limit reached", "type": "requests"}}
    fake = FakeOpenAI([httpx2.Response(429, json=limited, headers={"retry-after": "7"})])
    with pytest.raises(ModelRateLimitError) as rate:
        await Agent(model=fake.model()).call("x")
    assert rate.value.retry_after == 7.0


async def test_model_by_name_requires_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    from good_agent import ModelConfigError

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ModelConfigError, match="OPENAI_API_KEY"):
        await Agent(model="gpt-4o-mini").call("x")
