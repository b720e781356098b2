from __future__ import annotations

import pytest
from openai import AsyncOpenAI
from providers_fixtures import HISTORY, TOOLS, Recorder

from good_agent.providers.openai import chat_codec as openai_chat
from good_agent.providers.openai import responses_codec as openai_responses
from good_agent.providers.types import ChatRequest

CHAT_REPLY = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1700000000,
    "model": "gpt-4o-mini",
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_a",
                        "type": "function",
                        "function": {"name": "math_factorial", "arguments": '{"n": 7}'},
                    },
                    {
                        "id": "call_b",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Li'},
                    },
                ],
            },
            "finish_reason": "tool_calls",
        }
    ],
    "usage": {"prompt_tokens": 5, "completion_tokens": 6, "total_tokens": 11},
}

RESPONSES_REPLY = {
    "id": "resp_1",
    "object": "response",
    "created_at": 1700000000,
    "status": "completed",
    "model": "gpt-4.1",
    "output": [
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_x",
            "name": "get_weather",
            "arguments": '{"city": "Rome", "unit": null}',
            "status": "completed",
        },
        {
            "type": "function_call",
            "id": "fc_2",
            "call_id": "call_y",
            "name": "math_factorial",
            "arguments": '{"n": 3}',
            "status": "completed",
        },
    ],
    "parallel_tool_calls": True,
    "tool_choice": "auto",
    "tools": [],
    "usage": {
        "input_tokens": 10,
        "output_tokens": 4,
        "total_tokens": 14,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens_details": {"reasoning_tokens": 0},
    },
}


def client(recorder: Recorder) -> AsyncOpenAI:
    return AsyncOpenAI(api_key="k", http_client=recorder.client(), max_retries=0)


@pytest.mark.anyio
async def test_chat_sdk_round_trip_with_sanitized_names_and_malformed_arguments() -> None:
    recorder = Recorder(CHAT_REPLY)
    request = ChatRequest(
        messages=HISTORY,
        tools=TOOLS,
        tool_choice={"type": "function", "function": {"name": "math.factorial"}},
        parallel_tool_calls=True,
        settings={"strict_tools": None},
    )
    names = openai_chat.tool_names(request)
    completion = await client(recorder).chat.completions.create(
        **openai_chat.encode_request("gpt-4o-mini", request, names)
    )
    sent = recorder.body
    weather, factorial = (t["function"] for t in sent["tools"])
    assert factorial["name"] == "math_factorial"
    assert weather["strict"] is True
    assert weather["parameters"]["required"] == ["city", "unit"]
    assert weather["parameters"]["properties"]["unit"]["type"] == ["string", "null"]
    assert sent["tool_choice"] == {"type": "function", "function": {"name": "math_factorial"}}
    assert sent["parallel_tool_calls"] is True
    assert sent["messages"][2]["tool_calls"][1]["function"]["name"] == "math_factorial"
    assert sent["messages"][3] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": "Error: service down",
    }
    decoded = openai_chat.decode_response(completion.model_dump(), names)
    good, bad = decoded.tool_calls
    assert (good.name, good.arguments) == ("math.factorial", {"n": 7})
    assert bad.arguments == {} and bad.arguments_error and bad.raw_arguments == '{"city": "Li'


@pytest.mark.anyio
async def test_responses_sdk_round_trip() -> None:
    recorder = Recorder(RESPONSES_REPLY)
    request = ChatRequest(
        messages=HISTORY,
        tools=TOOLS,
        tool_choice="required",
        parallel_tool_calls=False,
        settings={"strict_tools": None, "max_tokens": 64},
    )
    names = openai_responses.tool_names(request)
    reply = await client(recorder).responses.create(
        **openai_responses.encode_request("gpt-4.1", request, names)
    )
    sent = recorder.body
    assert recorder.requests[-1].url.path == "/v1/responses"
    assert [(t["type"], t["name"], t["strict"]) for t in sent["tools"]] == [
        ("function", "get_weather", True),
        ("function", "math_factorial", True),
    ]
    assert sent["tool_choice"] == "required"
    assert sent["parallel_tool_calls"] is False
    assert sent["max_output_tokens"] == 64
    assert sent["input"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Paris and 5!?"},
        {"role": "assistant", "content": "Checking."},
        {
            "type": "function_call",
            "call_id": "call_1",
            "name": "get_weather",
            "arguments": '{"city": "Paris"}',
        },
        {
            "type": "function_call",
            "call_id": "call_2",
            "name": "math_factorial",
            "arguments": '{"n": 5}',
        },
        {"type": "function_call_output", "call_id": "call_1", "output": "Error: service down"},
        {"type": "function_call_output", "call_id": "call_2", "output": "120"},
    ]
    decoded = openai_responses.decode_response(reply.model_dump(), names)
    assert [(c.id, c.name, c.arguments) for c in decoded.tool_calls] == [
        ("call_x", "get_weather", {"city": "Rome"}),
        ("call_y", "math.factorial", {"n": 3}),
    ]
    assert decoded.finish_reason == "tool_calls"


def test_chat_tool_choice_values() -> None:
    for choice in ("auto", "none", "required"):
        body = openai_chat.encode_request(
            "m", ChatRequest(messages=[], tools=TOOLS, tool_choice=choice)
        )
        assert body["tool_choice"] == choice
    body = openai_responses.encode_request(
        "m", ChatRequest(messages=[], tools=TOOLS, tool_choice={"name": "math.factorial"})
    )
    assert body["tool_choice"] == {"type": "function", "name": "math_factorial"}
