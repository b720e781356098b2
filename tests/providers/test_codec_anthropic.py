from __future__ import annotations

import anthropic
import pytest
from providers_fixtures import HISTORY, TOOLS, Recorder

from good_agent.providers.anthropic import codec
from good_agent.providers.types import ChatRequest

REPLY = {
    "id": "msg_01",
    "type": "message",
    "role": "assistant",
    "model": "claude-test-1",
    "content": [
        {"type": "text", "text": "Let me check."},
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}},
        {"type": "tool_use", "id": "toolu_2", "name": "math_factorial", "input": {"n": 6}},
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 30, "output_tokens": 12},
}


@pytest.mark.anyio
async def test_anthropic_sdk_round_trip() -> None:
    recorder = Recorder(REPLY)
    client = anthropic.AsyncAnthropic(api_key="k", http_client=recorder.client())
    request = ChatRequest(
        messages=HISTORY, tools=TOOLS, tool_choice="required", parallel_tool_calls=False
    )
    names = codec.tool_names(request)
    message = await client.messages.create(**codec.encode_request("claude-test-1", request))
    sent = recorder.body
    assert recorder.requests[-1].url.path == "/v1/messages"
    assert sent["system"] == "Be brief."
    assert sent["max_tokens"] == codec.DEFAULT_MAX_TOKENS
    assert sent["tool_choice"] == {"type": "any", "disable_parallel_tool_use": True}
    assert [t["name"] for t in sent["tools"]] == ["get_weather", "math_factorial"]
    assert sent["tools"][0]["input_schema"]["required"] == ["city"]
    assert sent["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Weather in Paris and 5!?"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Checking."},
                {
                    "type": "tool_use",
                    "id": "call_1",
                    "name": "get_weather",
                    "input": {"city": "Paris"},
                },
                {"type": "tool_use", "id": "call_2", "name": "math_factorial", "input": {"n": 5}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "call_1",
                    "content": "Error: service down",
                    "is_error": True,
                },
                {"type": "tool_result", "tool_use_id": "call_2", "content": "120"},
            ],
        },
    ]
    decoded = codec.decode_response(message.model_dump(), names)
    assert decoded.content == "Let me check."
    assert decoded.finish_reason == "tool_calls"
    assert [(c.id, c.name, c.arguments) for c in decoded.tool_calls] == [
        ("toolu_1", "get_weather", {"city": "Oslo"}),
        ("toolu_2", "math.factorial", {"n": 6}),
    ]
    assert decoded.usage.input_tokens == 30


@pytest.mark.parametrize(
    ("choice", "parallel", "expected"),
    [
        (None, None, None),
        ("auto", None, {"type": "auto"}),
        ("none", None, {"type": "none"}),
        (None, False, {"type": "auto", "disable_parallel_tool_use": True}),
        (
            {"type": "function", "function": {"name": "math.factorial"}},
            None,
            {"type": "tool", "name": "math_factorial"},
        ),
    ],
)
def test_anthropic_tool_choice(choice: object, parallel: bool | None, expected: object) -> None:
    request = ChatRequest(
        messages=[{"role": "user", "content": "hi"}],
        tools=TOOLS,
        tool_choice=choice,  # type: ignore[arg-type]
        parallel_tool_calls=parallel,
    )
    body = codec.encode_request("claude-x", request)
    assert body.get("tool_choice") == expected


def test_anthropic_settings_and_text_reply() -> None:
    request = ChatRequest(
        messages=[{"role": "user", "content": "hi"}],
        settings={"max_tokens": 50, "temperature": 0.2, "stop": "END"},
    )
    body = codec.encode_request("claude-x", request)
    assert body["max_tokens"] == 50
    assert body["stop_sequences"] == ["END"]
    reply = codec.decode_response(
        {"content": [{"type": "text", "text": "hello"}], "stop_reason": "max_tokens", "usage": {}}
    )
    assert reply.content == "hello"
    assert reply.finish_reason == "length"
