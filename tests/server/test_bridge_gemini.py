"""Gemini's API on the bridge, driven by the google-genai SDK and raw HTTP over loopback.

Every upstream kind (native OpenAI, Anthropic, Gemini, Ollama, structured, and text
models in prompted modes) answers a Gemini client with real ``functionCall`` parts,
whole and streamed; the SDK's automatic function calling runs a Python function
and sends its ``functionResponse`` back through the bridge.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import httpx2
import pytest
from bad_input import GEMINI_BAD, USER_TEXT, Case, refused, send
from bridge_fakes import Fake, Reply
from bridge_harness import CLIENT_KEY, HERMES, MISTRAL
from google import genai
from google.genai import errors as genai_errors
from google.genai import types
from tool_dicts import GEMINI_WEATHER

pytestmark = pytest.mark.anyio

FAKE_OF = {
    "gpt": "openai",
    "structured": "openai",
    "claude": "anthropic",
    "gemini": "gemini",
    "ollama": "ollama",
    "local": "text",
    "local-parsed": "text",
    "ollama-text": "ollama",
}


def get_weather(city: str) -> str:
    """Weather for a city."""
    return f"sunny in {city}"


def get_time(zone: str) -> str:
    """The time in a zone."""
    return f"noon {zone}"


WEATHER = GEMINI_WEATHER
TIME = {
    "name": "get_time",
    "parameters": {
        "type": "OBJECT",
        "properties": {"zone": {"type": "STRING"}},
        "required": ["zone"],
    },
}
MANUAL = types.AutomaticFunctionCallingConfig(disable=True)


@pytest.fixture
def genai_client(bridge: Any) -> genai.Client:
    return genai.Client(api_key=CLIENT_KEY, http_options=types.HttpOptions(base_url=bridge.url))


def url(bridge: Any, model: str, method: str = "generateContent") -> str:
    return f"{bridge.url}/v1beta/models/{model}:{method}"


def fake_for(fakes: dict[str, tuple[Fake, str]], model: str) -> Fake:
    return fakes[FAKE_OF[model]][0]


async def post(bridge: Any, model: str, body: Any, **kw: Any) -> httpx2.Response:
    headers = kw.pop("headers", {"x-goog-api-key": CLIENT_KEY})
    method = kw.pop("method", "generateContent")
    async with httpx2.AsyncClient(timeout=30) as http:
        return await http.post(url(bridge, model, method), json=body, headers=headers, **kw)


def sse_payloads(text: str) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


def assert_gemini_error(response: httpx2.Response, code: int, status: str) -> dict[str, Any]:
    assert response.status_code == code, response.text
    error = response.json()["error"]
    assert set(error) >= {"code", "message", "status"}
    assert error["code"] == code and error["status"] == status
    return dict(error)


def field_of_error(error: dict[str, Any]) -> str:
    return str(error["details"][0]["fieldViolations"][0]["field"])


@pytest.mark.parametrize("model", ["gpt", "claude", "gemini", "ollama", "structured"])
async def test_every_native_upstream_gives_function_calls(
    genai_client: genai.Client, fakes: dict[str, tuple[Fake, str]], model: str
) -> None:
    fake = fake_for(fakes, model)
    expected = [("get_weather", {"city": "Paris"}), ("get_time", {"zone": "CET"})]
    if model == "structured":  # one call per reply, written as the JSON action
        expected = expected[:1]
        action = {"tool": "get_weather", "arguments": {"city": "Paris"}, "scratchpad": None}
        fake.reply = Reply(text=json.dumps({"action": action}), input_tokens=21, output_tokens=9)
    else:
        fake.reply = Reply(calls=expected, input_tokens=21, output_tokens=9)
    config = types.GenerateContentConfig(
        tools=[get_weather, get_time], automatic_function_calling=MANUAL
    )
    reply = await genai_client.aio.models.generate_content(
        model=model, contents="Weather in Paris, time in CET?", config=config
    )
    calls = reply.function_calls or []
    assert [(c.name, c.args) for c in calls] == expected
    assert reply.candidates and reply.candidates[0].finish_reason == types.FinishReason.STOP
    usage = reply.usage_metadata
    assert usage and (usage.prompt_token_count, usage.candidates_token_count) == (21, 9)
    assert usage.total_token_count == 30
    streamed = [
        chunk
        async for chunk in await genai_client.aio.models.generate_content_stream(
            model=model, contents="Weather in Paris, time in CET?", config=config
        )
    ]
    names = [c.name for chunk in streamed for c in chunk.function_calls or []]
    assert names == [name for name, _ in expected]
    assert streamed[-1].candidates and streamed[-1].candidates[0].finish_reason is not None
    assert not fake.problems, fake.problems


@pytest.mark.parametrize("text", [HERMES, MISTRAL], ids=["hermes", "mistral"])
@pytest.mark.parametrize("model", ["local", "local-parsed", "ollama-text"])
@pytest.mark.parametrize("chunk_size", [1, 3, 50])
async def test_text_models_give_real_function_calls_split_invariant(
    genai_client: genai.Client,
    fakes: dict[str, tuple[Fake, str]],
    text: str,
    model: str,
    chunk_size: int,
) -> None:
    fake = fake_for(fakes, model)
    fake.reply = Reply(text=text)
    fake.chunk_size = chunk_size
    config = types.GenerateContentConfig(
        tools=[types.Tool(function_declarations=[WEATHER, TIME])],  # type: ignore[list-item]
        automatic_function_calling=MANUAL,
    )
    content, calls, finishes = "", [], []
    async for chunk in await genai_client.aio.models.generate_content_stream(
        model=model, contents="Weather in Paris, time in CET?", config=config
    ):
        candidate = (chunk.candidates or [None])[0]
        assert candidate is not None and candidate.content is not None
        for part in candidate.content.parts or []:
            if part.function_call is not None:
                calls.append((part.function_call.name, part.function_call.args))
            elif part.text:
                content += part.text
        finishes.append(candidate.finish_reason)
    assert calls == [("get_weather", {"city": "Paris"}), ("get_time", {"zone": "CET"})]
    assert "<" not in content and "TOOL_CALLS" not in content
    if text is HERMES:
        assert content.strip() == "Let me check."
    assert finishes[-1] == types.FinishReason.STOP and not any(finishes[:-1])
    assert not fake.problems, fake.problems
    assert "tools" not in fake.requests[-1]


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("model", ["gpt", "local"])
async def test_automatic_function_calling_round_trip(
    genai_client: genai.Client, fakes: dict[str, tuple[Fake, str]], model: str, stream: bool
) -> None:
    fake = fake_for(fakes, model)
    first = (
        Reply(calls=[("get_weather", {"city": "Paris"})])
        if model == "gpt"
        else Reply(
            text='<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
        )
    )
    replies = iter([first, Reply(text="It is sunny in Paris.")])
    fake.script = lambda body: next(replies)
    config = types.GenerateContentConfig(tools=[get_weather])
    if stream:
        text = "".join(
            [
                chunk.text or ""
                async for chunk in await genai_client.aio.models.generate_content_stream(
                    model=model, contents="Weather in Paris?", config=config
                )
            ]
        )
    else:
        reply = await genai_client.aio.models.generate_content(
            model=model, contents="Weather in Paris?", config=config
        )
        text = reply.text or ""
    assert text == "It is sunny in Paris."
    assert len(fake.requests) == 2 and not fake.problems, fake.problems
    history = fake.requests[1]["messages"]
    if model == "gpt":
        call = history[-2]["tool_calls"][0]
        assert history[-1]["role"] == "tool" and history[-1]["tool_call_id"] == call["id"]
        assert json.loads(history[-1]["content"]) == {"result": "sunny in Paris"}
    else:
        assert "sunny in Paris" in history[-1]["content"]
        assert "<tool_response>" in history[-1]["content"]


async def test_function_responses_are_matched_by_name_and_order(
    bridge: Any, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fake = fakes["openai"][0]
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "Paris, Rome, and the time?"}]},
            {
                "role": "model",
                "parts": [
                    {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
                    {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}},
                    {"functionCall": {"name": "get_time", "args": {"zone": "CET"}}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"name": "get_time", "response": {"output": "noon"}}},
                    {"functionResponse": {"name": "get_weather", "response": {"t": 21}}},
                    {"functionResponse": {"name": "get_weather", "response": {"error": "down"}}},
                    {"text": "Thanks."},
                ],
            },
        ],
        "tools": [{"functionDeclarations": [WEATHER, TIME]}],
    }
    response = await post(bridge, "gpt", body)
    assert response.status_code == 200, response.text
    assert not fake.problems, fake.problems
    messages = fake.requests[-1]["messages"]
    assistant = messages[1]
    ids = {
        json.loads(c["function"]["arguments"]).get("city", "time"): c["id"]
        for c in assistant["tool_calls"]
    }
    assert len(set(ids.values())) == 3
    tools = [m for m in messages if m["role"] == "tool"]
    assert [(m["tool_call_id"], m["content"]) for m in tools] == [
        (ids["time"], "noon"),
        (ids["Paris"], '{"t": 21}'),
        (ids["Rome"], '{"error": "down"}'),
    ]
    assert messages[-1] == {"role": "user", "content": "Thanks."}


async def test_a_function_response_without_its_call_is_a_400(bridge: Any) -> None:
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "hi"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {}}}]},
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"name": "get_weather", "response": {"a": 1}}},
                    {"functionResponse": {"name": "get_weather", "response": {"a": 2}}},
                ],
            },
        ]
    }
    error = assert_gemini_error(await post(bridge, "gpt", body), 400, "INVALID_ARGUMENT")
    assert field_of_error(error) == "contents[2].parts[1].functionResponse.name"
    assert "get_weather" in error["message"]


@pytest.mark.parametrize("case", GEMINI_BAD)
async def test_bad_fields_are_named_in_gemini_shape(
    bridge: Any, fakes: dict[str, tuple[Fake, str]], case: Case
) -> None:
    for method in ("generateContent", "streamGenerateContent"):
        refused(await send(bridge, case, method), case)
    assert fakes["openai"][0].requests == []


async def test_not_json_unknown_model_and_unknown_method(bridge: Any) -> None:
    async with httpx2.AsyncClient(timeout=30) as http:
        broken = await http.post(
            url(bridge, "gpt"), content=b"{not json", headers={"x-goog-api-key": CLIENT_KEY}
        )
        unknown = await http.post(
            url(bridge, "gpt", "countTokens"), json={}, headers={"x-goog-api-key": CLIENT_KEY}
        )
    assert_gemini_error(broken, 400, "INVALID_ARGUMENT")
    assert_gemini_error(unknown, 404, "NOT_FOUND")
    error = assert_gemini_error(
        await post(bridge, "nope", {"contents": USER_TEXT}), 400, "INVALID_ARGUMENT"
    )
    assert field_of_error(error) == "model"


async def test_tool_and_generation_config_reach_the_upstream(
    bridge: Any, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fake = fakes["openai"][0]
    tools = [{"functionDeclarations": [WEATHER, TIME]}]
    generation = {
        "temperature": 0.2,
        "topP": 0.9,
        "maxOutputTokens": 64,
        "stopSequences": ["END"],
        "seed": 7,
        "responseMimeType": "application/json",
        "responseSchema": {
            "type": "OBJECT",
            "properties": {"answer": {"type": "STRING", "nullable": True}},
            "required": ["answer"],
        },
    }
    cases = [
        (
            {"mode": "ANY", "allowedFunctionNames": ["get_time"]},
            {"type": "function", "function": {"name": "get_time"}},
            2,
        ),
        ({"mode": "ANY", "allowedFunctionNames": ["get_time", "get_weather"]}, "required", 2),
        ({"mode": "ANY"}, "required", 2),
        ({"mode": "NONE"}, "none", 2),
        ({"mode": "AUTO"}, "auto", 2),
    ]
    for config, choice, offered in cases:
        body = {
            "contents": USER_TEXT,
            "tools": tools,
            "toolConfig": {"functionCallingConfig": config},
            "generationConfig": generation,
        }
        response = await post(bridge, "gpt", body)
        assert response.status_code == 200, response.text
        sent = fake.requests[-1]
        assert sent["tool_choice"] == choice
        assert len(sent["tools"]) == offered
        assert sent["temperature"] == 0.2 and sent["top_p"] == 0.9 and sent["seed"] == 7
        assert sent["stop"] == ["END"]
        assert 64 in (sent.get("max_tokens"), sent.get("max_completion_tokens"))
        schema = sent["response_format"]["json_schema"]["schema"]
        assert schema["properties"]["answer"]["type"] == ["string", "null"]
    # allowedFunctionNames narrows the offered functions when several are allowed
    body = {
        "contents": USER_TEXT,
        "tools": [{"functionDeclarations": [WEATHER, TIME, {**TIME, "name": "other"}]}],
        "toolConfig": {
            "functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_time", "other"]}
        },
    }
    assert (await post(bridge, "gpt", body)).status_code == 200
    assert [t["function"]["name"] for t in fake.requests[-1]["tools"]] == ["get_time", "other"]
    assert not fake.problems, fake.problems


async def test_system_instruction_and_snake_case_fields(
    bridge: Any, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fake = fakes["gemini"][0]
    body = {
        "system_instruction": {"parts": [{"text": "Be brief."}]},
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "generation_config": {"max_output_tokens": 12, "response_mime_type": "application/json"},
    }
    response = await post(bridge, "gemini", body)
    assert response.status_code == 200, response.text
    reply = response.json()
    assert reply["candidates"][0]["content"]["parts"] == [{"text": "Hello from the fake."}]
    assert reply["usageMetadata"]["totalTokenCount"] == 18
    sent = fake.requests[-1]
    assert sent["system_instruction"] == {"parts": [{"text": "Be brief."}]}
    assert sent["generation_config"]["max_output_tokens"] == 12
    assert sent["generation_config"]["response_mime_type"] == "application/json"


async def test_client_keys_in_header_or_query_never_logged(
    bridge: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    body = {"contents": USER_TEXT}
    assert (
        await post(bridge, "gpt", body, headers={"x-goog-api-key": CLIENT_KEY})
    ).status_code == 200
    by_query = await post(bridge, "gpt", body, headers={}, params={"key": CLIENT_KEY})
    assert by_query.status_code == 200
    for headers, params in (
        ({}, {}),
        ({"x-goog-api-key": "wrong-key-123"}, {}),
        ({}, {"key": "wrong-key-123"}),
    ):
        refused = await post(bridge, "gpt", body, headers=headers, params=params)
        assert_gemini_error(refused, 401, "UNAUTHENTICATED")
    # The client is kept in a name: a client collected mid-request closes its connections.
    client = genai.Client(
        api_key="wrong-key-123", http_options=types.HttpOptions(base_url=bridge.url)
    )
    with pytest.raises(genai_errors.ClientError) as failed:
        await client.aio.models.generate_content(model="gpt", contents="hi")
    assert failed.value.code == 401
    for record in caplog.records:
        if not record.name.startswith(("good_agent", "uvicorn")):
            continue  # the test's own HTTP client logs the URLs it calls
        text = record.getMessage() + repr(record.__dict__)
        assert CLIENT_KEY not in text and "wrong-key-123" not in text


async def test_upstream_faults_are_gemini_errors(
    bridge: Any, fakes: dict[str, tuple[Fake, str]], genai_client: genai.Client
) -> None:
    fake = fakes["openai"][0]
    fake.fail_status = 503
    for method in ("generateContent", "streamGenerateContent"):
        response = await post(bridge, "gpt", {"contents": USER_TEXT}, method=method)
        error = assert_gemini_error(response, 502, "UNAVAILABLE")
        assert "upstream 'gpt'" in error["message"]
    fake.fail_status = 429
    fake.fail_headers = {"retry-after": "3"}
    limited = await post(bridge, "gpt", {"contents": USER_TEXT})
    assert_gemini_error(limited, 429, "RESOURCE_EXHAUSTED")
    assert limited.headers["retry-after"] == "3"
    with pytest.raises(genai_errors.APIError) as failed:
        await genai_client.aio.models.generate_content(model="dead", contents="hi")
    assert failed.value.code == 502


async def test_a_stream_cut_mid_reply_ends_with_an_error_event(
    bridge: Any, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fake = fakes["openai"][0]
    fake.reply = Reply(text="a long answer that will not finish " * 3)
    fake.break_after = 4
    response = await post(
        bridge,
        "gpt",
        {"contents": USER_TEXT},
        method="streamGenerateContent",
        params={"alt": "sse"},
    )
    assert response.status_code == 200
    payloads = sse_payloads(response.text)
    assert payloads[0]["candidates"][0]["content"]["parts"][0]["text"]
    assert payloads[-1]["error"]["status"] == "UNAVAILABLE"
    assert "upstream 'gpt'" in payloads[-1]["error"]["message"]
    assert not any("finishReason" in c for p in payloads[:-1] for c in p.get("candidates", []))


@pytest.mark.parametrize("stream", [True, False])
async def test_client_disconnect_cancels_the_upstream(
    bridge: Any, fakes: dict[str, tuple[Fake, str]], stream: bool
) -> None:
    fake = fakes["openai"][0]
    fake.reply = Reply(text="slow " * 200)
    fake.chunk_delay = 0.05
    if not stream:
        fake.hang = 5.0
    method = "streamGenerateContent" if stream else "generateContent"
    headers = {"x-goog-api-key": CLIENT_KEY}
    async with httpx2.AsyncClient(timeout=0.5) as http:
        if stream:
            async with http.stream(
                "POST",
                url(bridge, "gpt", method) + "?alt=sse",
                json={"contents": USER_TEXT},
                headers=headers,
            ) as response:
                async for _ in response.aiter_bytes():
                    break
        else:
            with pytest.raises(httpx2.ReadTimeout):
                await http.post(url(bridge, "gpt"), json={"contents": USER_TEXT}, headers=headers)
    assert fake.cancelled.wait(10), "the fake upstream saw no cancellation"
