"""Provider details through the real SDK clients over httpx mock transports: sampling
settings with the installed ``anthropic`` SDK, thinking blocks and reasoning items
replayed, malformed replies and unreachable endpoints as typed, explanatory errors."""

from __future__ import annotations

import json
import re
from typing import Any

import anthropic
import httpx2
import openai
import pytest

from good_agent.models import ModelRequest
from good_agent.models.vendors import AnthropicModel, OpenAIChatModel, OpenAIResponsesModel
from good_agent.types.errors import ModelBadRequestError, ModelConnectionError, ModelResponseError
from good_agent.types.messages import ToolMessage, UserMessage

TOOL = {
    "type": "function",
    "function": {
        "name": "math.factorial",
        "description": "n!",
        "parameters": {
            "type": "object",
            "properties": {"n": {"type": "integer"}},
            "required": ["n"],
        },
    },
}


class Handler:
    """Answers requests in order and records the JSON bodies sent."""

    def __init__(self, *responses: httpx2.Response | Exception) -> None:
        self.responses = list(responses)
        self.bodies: list[dict[str, Any]] = []
        self.urls: list[str] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.urls.append(str(request.url))
        self.bodies.append(json.loads(request.content))
        reply = self.responses.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply

    def client(self) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(transport=httpx2.MockTransport(self))


def claude(handler: Handler, **kw: Any) -> AnthropicModel:
    client = anthropic.AsyncAnthropic(api_key="k", http_client=handler.client(), max_retries=0)
    return AnthropicModel("claude-test-1", client=client, **kw)


def chat(handler: Handler, base_url: str = "http://127.0.0.1:9/v1") -> OpenAIChatModel:
    client = openai.AsyncOpenAI(
        api_key="k", base_url=base_url, http_client=handler.client(), max_retries=0
    )
    return OpenAIChatModel("gpt-4o-mini", client=client)


def anthropic_reply(*blocks: dict[str, Any], stop: str = "end_turn") -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test-1",
        "content": list(blocks),
        "stop_reason": stop,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


@pytest.mark.anyio
async def test_anthropic_sampling_settings_reach_the_wire_with_the_installed_sdk() -> None:
    handler = Handler(httpx2.Response(200, json=anthropic_reply({"type": "text", "text": "hi"})))
    model = claude(handler, settings={"temperature": 0.2, "top_p": 0.9, "top_k": 5})
    response = await model.request(ModelRequest(messages=[UserMessage(content="x")]))
    assert response.content == "hi"
    sent = handler.bodies[0]
    assert (sent["temperature"], sent["top_p"], sent["top_k"]) == (0.2, 0.9, 5)


@pytest.mark.anyio
async def test_thinking_blocks_with_signatures_go_back_on_the_tool_use_turn() -> None:
    thinking = {"type": "thinking", "thinking": "I need 5!", "signature": "sig-abc"}
    redacted = {"type": "redacted_thinking", "data": "opaque"}
    first = anthropic_reply(
        thinking,
        redacted,
        {"type": "tool_use", "id": "toolu_1", "name": "math_factorial", "input": {"n": 5}},
        stop="tool_use",
    )
    second = anthropic_reply({"type": "text", "text": "120"})
    handler = Handler(httpx2.Response(200, json=first), httpx2.Response(200, json=second))
    model = claude(handler, settings={"thinking": {"type": "enabled", "budget_tokens": 1024}})
    question = UserMessage(content="5!?")
    reply = await model.request(ModelRequest(messages=[question], tools=[TOOL]))
    assert reply.reasoning == "I need 5!"
    history = [
        question,
        reply.to_message(),
        ToolMessage(tool_call_id="toolu_1", tool_name="math.factorial", content="120"),
    ]
    await model.request(ModelRequest(messages=history, tools=[TOOL]))
    assistant = handler.bodies[1]["messages"][1]
    assert assistant["role"] == "assistant"
    assert [block["type"] for block in assistant["content"]] == [
        "thinking",
        "redacted_thinking",
        "tool_use",
    ]
    assert assistant["content"][0]["signature"] == "sig-abc"
    assert assistant["content"][1]["data"] == "opaque"


@pytest.mark.anyio
async def test_responses_reasoning_items_are_replayed_in_the_next_request() -> None:
    reasoning = {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [{"type": "summary_text", "text": "use the tool"}],
        "encrypted_content": "enc-xyz",
    }
    call = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "math_factorial",
        "arguments": '{"n": 5}',
        "status": "completed",
    }

    def reply(*output: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": "resp_1",
            "object": "response",
            "created_at": 0,
            "model": "o4-mini",
            "status": "completed",
            "output": list(output),
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "usage": {
                "input_tokens": 1,
                "output_tokens": 1,
                "total_tokens": 2,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens_details": {"reasoning_tokens": 1},
            },
        }

    text = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "120", "annotations": []}],
    }
    handler = Handler(
        httpx2.Response(200, json=reply(reasoning, call)), httpx2.Response(200, json=reply(text))
    )
    client = openai.AsyncOpenAI(api_key="k", http_client=handler.client(), max_retries=0)
    model = OpenAIResponsesModel("o4-mini", client=client)
    question = UserMessage(content="5!?")
    first = await model.request(ModelRequest(messages=[question], tools=[TOOL]))
    assert first.tool_calls[0].name == "math.factorial"
    history = [
        question,
        first.to_message(),
        ToolMessage(tool_call_id="call_1", tool_name="math.factorial", content="120"),
    ]
    await model.request(ModelRequest(messages=history, tools=[TOOL]))
    items = handler.bodies[1]["input"]
    kinds = [item.get("type", "message") for item in items]
    assert kinds == ["message", "reasoning", "function_call", "function_call_output"]
    assert items[1]["id"] == "rs_1" and items[1]["encrypted_content"] == "enc-xyz"
    assert (items[2]["id"], items[2]["call_id"]) == ("fc_1", "call_1")


@pytest.mark.anyio
async def test_replay_items_never_reach_a_chat_completions_body() -> None:
    reply = {
        "id": "c",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-4o-mini",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
        ],
    }
    handler = Handler(httpx2.Response(200, json=reply))
    from good_agent.types.messages import AssistantMessage

    turn = AssistantMessage(content="hm", replay=[{"type": "thinking", "signature": "s"}])
    await chat(handler).request(ModelRequest(messages=[UserMessage(content="x"), turn]))
    assert all("replay_items" not in m for m in handler.bodies[0]["messages"])


MALFORMED = {
    "empty choices": (
        httpx2.Response(200, json={"id": "c", "object": "chat.completion", "choices": []}),
        "no choices",
    ),
    "not json": (
        httpx2.Response(200, text="<html>gateway</html>", headers={"content-type": "text/html"}),
        "not JSON",
    ),
    "choices not a list": (
        httpx2.Response(200, json={"id": "c", "object": "chat.completion", "choices": "oops"}),
        "'choices' is a str",
    ),
    "message not an object": (
        httpx2.Response(
            200,
            json={
                "id": "c",
                "object": "chat.completion",
                "choices": [{"index": 0, "message": "hi", "finish_reason": "stop"}],
            },
        ),
        "'choices[0].message' is a str",
    ),
}


@pytest.mark.anyio
@pytest.mark.parametrize("case", sorted(MALFORMED))
async def test_malformed_chat_replies_raise_a_typed_error(case: str) -> None:
    response, words = MALFORMED[case]
    handler = Handler(response)
    with pytest.raises(ModelResponseError, match=re.escape(words)) as info:
        await chat(handler).request(ModelRequest(messages=[UserMessage(content="x")]))
    assert info.value.provider == "openai"
    assert "openai sent a malformed reply" in str(info.value)


@pytest.mark.anyio
async def test_malformed_anthropic_reply_raises_a_typed_error() -> None:
    body = {**anthropic_reply(), "content": {"type": "text"}}
    handler = Handler(httpx2.Response(200, json=body))
    with pytest.raises(ModelResponseError, match="'content' is a dict") as info:
        await claude(handler).request(ModelRequest(messages=[UserMessage(content="x")]))
    assert info.value.provider == "anthropic"


@pytest.mark.anyio
async def test_connection_errors_name_the_url_and_suggest_fixes() -> None:
    handler = Handler(httpx2.ConnectError("connection refused"))
    model = chat(handler, base_url="http://127.0.0.1:9")
    with pytest.raises(ModelConnectionError) as info:
        await model.request(ModelRequest(messages=[UserMessage(content="x")]))
    text = str(info.value)
    assert "http://127.0.0.1:9/chat/completions" in text
    assert "/v1" in text and "running" in text


def test_a_base_url_without_scheme_gets_the_scheme_hint() -> None:
    from good_agent.http.wire_errors import connection_error

    error = connection_error("openai", "localhost:8000/v1/chat/completions", OSError("bad"))
    assert "localhost:8000/v1/chat/completions" in str(error)
    assert "http://" in str(error)


@pytest.mark.anyio
async def test_404_names_the_url_and_suggests_v1() -> None:
    handler = Handler(httpx2.Response(404, json={"error": {"message": "Not Found"}}))
    model = chat(handler, base_url="http://127.0.0.1:8000")
    with pytest.raises(ModelBadRequestError) as info:
        await model.request(ModelRequest(messages=[UserMessage(content="x")]))
    text = str(info.value)
    assert "http://127.0.0.1:8000/chat/completions" in text and "'/v1'" in text
    assert info.value.status_code == 404


def gemini_model(response: httpx2.Response) -> Any:
    from google import genai
    from google.genai import types

    from good_agent.models.vendors import GeminiModel

    client = genai.Client(
        api_key="k",
        http_options=types.HttpOptions(
            httpx_async_client=Handler(response).client(),
            retry_options=types.HttpRetryOptions(attempts=1),
        ),
    )
    return GeminiModel("gemini-2.5-flash", client=client)


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("response", "words"),
    [
        (httpx2.Response(200, text="<html>x</html>"), "not JSON"),
        (httpx2.Response(200, json={"candidates": []}), "no candidates"),
    ],
)
async def test_malformed_gemini_replies_raise_a_typed_error(
    response: httpx2.Response, words: str
) -> None:
    with pytest.raises(ModelResponseError, match=words) as info:
        await gemini_model(response).request(ModelRequest(messages=[UserMessage(content="x")]))
    assert info.value.provider == "gemini"


@pytest.mark.anyio
async def test_a_blocked_gemini_prompt_is_a_content_filter_finish() -> None:
    blocked = httpx2.Response(200, json={"promptFeedback": {"blockReason": "SAFETY"}})
    reply = await gemini_model(blocked).request(ModelRequest(messages=[UserMessage(content="x")]))
    assert reply.finish_reason == "content_filter" and reply.content is None
