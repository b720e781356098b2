from __future__ import annotations

import pytest
from google import genai
from google.genai import types
from providers_fixtures import HISTORY, TOOLS, Recorder

from good_agent.providers.gemini import codec
from good_agent.providers.types import ChatRequest

REPLY = {
    "candidates": [
        {
            "content": {
                "role": "model",
                "parts": [
                    {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}},
                    {
                        "functionCall": {"id": "fc-2", "name": "math.factorial", "args": {"n": 6}},
                        "thoughtSignature": "c2lnbmF0dXJl",
                    },
                ],
            },
            "finishReason": "STOP",
            "index": 0,
        }
    ],
    "usageMetadata": {"promptTokenCount": 20, "candidatesTokenCount": 9, "totalTokenCount": 29},
    "modelVersion": "gemini-2.5-flash",
}


@pytest.mark.anyio
async def test_gemini_sdk_round_trip() -> None:
    from good_agent.providers.gemini.sdk_transport import sdk_arguments

    recorder = Recorder(REPLY)
    client = genai.Client(
        api_key="k", http_options=types.HttpOptions(httpx_async_client=recorder.client())
    )
    request = ChatRequest(
        messages=HISTORY,
        tools=TOOLS,
        tool_choice={"type": "function", "function": {"name": "math.factorial"}},
        settings={"temperature": 0.1, "max_tokens": 99},
    )
    names = codec.tool_names(request)
    body = codec.encode_request("gemini-2.5-flash", request, names)
    response = await client.aio.models.generate_content(**sdk_arguments(body))
    sent = recorder.body
    assert recorder.requests[-1].url.path.endswith("/models/gemini-2.5-flash:generateContent")
    assert sent["systemInstruction"]["parts"] == [{"text": "Be brief."}]
    declarations = sent["tools"][0]["functionDeclarations"]
    assert [d["name"] for d in declarations] == ["get_weather", "math.factorial"]
    assert sent["toolConfig"] == {
        "functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["math.factorial"]}
    }
    assert sent["generationConfig"]["maxOutputTokens"] == 99
    contents = sent["contents"]
    assert [c["role"] for c in contents] == ["user", "model", "user"]
    assert contents[1]["parts"][2]["functionCall"] == {
        "id": "call_2",
        "name": "math.factorial",
        "args": {"n": 5},
    }
    assert contents[2]["parts"] == [
        {
            "functionResponse": {
                "id": "call_1",
                "name": "get_weather",
                "response": {"error": "Error: service down"},
            }
        },
        {
            "functionResponse": {
                "id": "call_2",
                "name": "math.factorial",
                "response": {"output": "120"},
            }
        },
    ]
    decoded, signatures = codec.decode_with_signatures(
        response.model_dump(mode="json", exclude_none=True), names
    )
    first, second = decoded.tool_calls
    assert first.id.startswith(codec.GENERATED_ID_PREFIX)
    assert (first.name, first.arguments) == ("get_weather", {"city": "Oslo"})
    assert (second.id, second.name, second.arguments) == ("fc-2", "math.factorial", {"n": 6})
    assert signatures == {"fc-2": "c2lnbmF0dXJl"}
    assert decoded.finish_reason == "tool_calls"
    assert decoded.usage.input_tokens == 20


def test_gemini_camel_case_reply_and_generated_ids_stay_local() -> None:
    decoded = codec.decode_response(REPLY)
    call_id = decoded.tool_calls[0].id
    history = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": call_id, "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'}}
            ],
        },
        {"role": "tool", "tool_call_id": call_id, "content": "sunny"},
    ]
    body = codec.encode_request("gemini-2.5-flash", ChatRequest(messages=history, tools=TOOLS))
    call_part = body["contents"][1]["parts"][0]["function_call"]
    assert "id" not in call_part
    response_part = body["contents"][2]["parts"][0]["function_response"]
    assert response_part == {"name": "get_weather", "response": {"output": "sunny"}}


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        (None, None),
        ("auto", {"mode": "AUTO"}),
        ("none", {"mode": "NONE"}),
        ("required", {"mode": "ANY"}),
    ],
)
def test_gemini_tool_choice(choice: object, expected: object) -> None:
    request = ChatRequest(
        messages=[{"role": "user", "content": "x"}], tools=TOOLS, tool_choice=choice
    )  # type: ignore[arg-type]
    body = codec.encode_request("gemini-2.5-flash", request)
    assert (body.get("tool_config") or {}).get("function_calling_config") == expected
