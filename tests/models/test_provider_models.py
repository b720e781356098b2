from __future__ import annotations

import json
import sys
from typing import Any

import anthropic
import httpx2
import pytest
from google import genai
from google.genai import types

from good_agent.models import ModelRequest
from good_agent.models.resolve import resolve_model
from good_agent.models.vendors import (
    AnthropicModel,
    GeminiModel,
    OllamaModel,
    OpenAIChatModel,
    OpenAIResponsesModel,
)
from good_agent.providers.anthropic.http_transport import AnthropicHttpTransport
from good_agent.providers.gemini.http_transport import GeminiHttpTransport
from good_agent.providers.strategies import ToolCallingMode
from good_agent.types.errors import (
    ModelAuthenticationError,
    ModelBadRequestError,
    ModelConfigError,
    ModelOverloadedError,
    ModelRateLimitError,
)
from good_agent.types.messages import AssistantMessage, ToolCall, ToolMessage, UserMessage

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
    def __init__(self, *responses: httpx2.Response) -> None:
        self.responses = list(responses)
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.bodies.append(json.loads(request.content))
        return self.responses.pop(0)

    def client(self) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(transport=httpx2.MockTransport(self))


def history() -> list[Any]:
    return [
        UserMessage(content="5!?"),
        AssistantMessage(
            tool_calls=[ToolCall(id="toolu_1", name="math.factorial", arguments={"n": 5})]
        ),
        ToolMessage(
            tool_call_id="toolu_1", tool_name="math.factorial", content="boom", is_error=True
        ),
    ]


def claude(handler: Handler) -> AnthropicModel:
    client = anthropic.AsyncAnthropic(api_key="k", http_client=handler.client(), max_retries=0)
    return AnthropicModel("claude-test-1", client=client)


@pytest.mark.anyio
async def test_anthropic_model_sends_error_results_and_maps_names_back() -> None:
    reply = {
        "id": "m",
        "type": "message",
        "role": "assistant",
        "model": "claude-test-1",
        "content": [
            {"type": "tool_use", "id": "toolu_2", "name": "math_factorial", "input": {"n": 3}}
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    handler = Handler(httpx2.Response(200, json=reply))
    response = await claude(handler).request(ModelRequest(messages=history(), tools=[TOOL]))
    sent = handler.bodies[0]
    assert sent["messages"][2]["content"][0]["is_error"] is True
    assert response.tool_calls[0].name == "math.factorial"
    assert response.tool_calls[0].arguments == {"n": 3}


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("status", "error", "expected"),
    [
        (401, "authentication_error", ModelAuthenticationError),
        (429, "rate_limit_error", ModelRateLimitError),
        (529, "overloaded_error", ModelOverloadedError),
        (400, "invalid_request_error", ModelBadRequestError),
    ],
)
async def test_anthropic_errors_are_typed(status: int, error: str, expected: type) -> None:
    body = {"type": "error", "error": {"type": error, "message": f"provider says {error}"}}
    handler = Handler(httpx2.Response(status, json=body))
    with pytest.raises(expected, match=f"provider says {error}") as info:
        await claude(handler).request(ModelRequest(messages=[UserMessage(content="x")]))
    assert info.value.provider == "anthropic" and info.value.status_code == status


@pytest.mark.anyio
async def test_gemini_model_and_its_errors() -> None:
    reply = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [{"functionCall": {"name": "math.factorial", "args": {"n": 2}}}],
                },
                "finishReason": "STOP",
            }
        ],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2},
    }
    error = {
        "error": {
            "code": 429,
            "message": "Resource has been exhausted",
            "status": "RESOURCE_EXHAUSTED",
        }
    }
    handler = Handler(httpx2.Response(200, json=reply), httpx2.Response(429, json=error))
    client = genai.Client(
        api_key="k",
        http_options=types.HttpOptions(
            httpx_async_client=handler.client(), retry_options=types.HttpRetryOptions(attempts=1)
        ),
    )
    model = GeminiModel("gemini-2.5-flash", client=client)
    response = await model.request(
        ModelRequest(messages=history(), tools=[TOOL], tool_choice="required")
    )
    assert handler.bodies[0]["toolConfig"] == {"functionCallingConfig": {"mode": "ANY"}}
    assert handler.bodies[0]["contents"][2]["parts"][0]["functionResponse"]["response"] == {
        "error": "boom"
    }
    assert response.tool_calls[0].name == "math.factorial"
    with pytest.raises(ModelRateLimitError, match="Resource has been exhausted"):
        await model.request(ModelRequest(messages=[UserMessage(content="x")]))


@pytest.mark.anyio
async def test_structured_mode_through_the_agent_protocol() -> None:
    content = json.dumps(
        {"action": {"tool": "math.factorial", "arguments": {"n": 4}, "scratchpad": None}}
    )
    reply = {
        "id": "c",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-4o-mini",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
    }
    handler = Handler(httpx2.Response(200, json=reply), httpx2.Response(200, json=reply))
    from openai import AsyncOpenAI

    client = AsyncOpenAI(api_key="k", http_client=handler.client(), max_retries=0)
    model = OpenAIChatModel("gpt-4o-mini", client=client, mode=ToolCallingMode.STRUCTURED)
    response = await model.request(ModelRequest(messages=[UserMessage(content="4!")], tools=[TOOL]))
    assert "tools" not in handler.bodies[0]
    assert handler.bodies[0]["response_format"]["type"] == "json_schema"
    assert (response.tool_calls[0].name, response.tool_calls[0].arguments) == (
        "math.factorial",
        {"n": 4},
    )
    assert response.finish_reason == "tool_calls"
    native = ModelRequest(
        messages=[UserMessage(content="4!")], tools=[TOOL], settings={"mode": "native"}
    )
    await model.request(native)
    assert handler.bodies[1]["tools"][0]["function"]["name"] == "math_factorial"
    assert "mode" not in handler.bodies[1]


def test_resolve_model_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    assert isinstance(resolve_model("anthropic:claude-sonnet-4-6"), AnthropicModel)
    assert isinstance(resolve_model("claude-sonnet-4-6"), AnthropicModel)
    gem = resolve_model("gemini-2.5-flash")
    assert isinstance(gem, GeminiModel) and gem.model_name == "gemini-2.5-flash"
    ollama = resolve_model("ollama:qwen2.5")
    assert isinstance(ollama, OllamaModel) and ollama.tool_strategy.mode is ToolCallingMode.NATIVE
    openai_model = resolve_model("openai:gpt-4o")
    assert isinstance(openai_model, OpenAIChatModel)
    assert openai_model.tool_strategy.mode is ToolCallingMode.NATIVE
    assert isinstance(resolve_model("openai-responses:gpt-4.1"), OpenAIResponsesModel)
    assert resolve_model("phi3").tool_strategy.mode is ToolCallingMode.VALIDATED  # type: ignore[attr-defined]
    local = resolve_model("local-model", base_url="http://localhost:8000/v1")
    assert local.tool_strategy.mode is ToolCallingMode.NATIVE  # type: ignore[attr-defined]
    with pytest.raises(ModelConfigError, match="unknown model provider"):
        resolve_model("nope:model")


@pytest.mark.anyio
async def test_missing_keys_and_extras(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    request = ModelRequest(messages=[UserMessage(content="x")])
    with pytest.raises(ModelConfigError, match="ANTHROPIC_API_KEY"):
        await AnthropicModel("claude-x").request(request)
    with pytest.raises(ModelConfigError, match="GEMINI_API_KEY"):
        await GeminiModel("gemini-x").request(request)


def test_built_in_models_need_no_vendor_sdk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the ``anthropic`` and ``google-genai`` SDKs, their models are built on the
    HTTP transports (the SDKs are needed only to pass one of their clients)."""
    monkeypatch.setitem(sys.modules, "anthropic", None)
    monkeypatch.setitem(sys.modules, "google.genai", None)
    claude = AnthropicModel("claude-x", api_key="k")
    gemini = GeminiModel("gemini-x", api_key="k")
    assert isinstance(claude.transport, AnthropicHttpTransport)
    assert isinstance(gemini.transport, GeminiHttpTransport)


@pytest.mark.anyio
async def test_env_keys_and_ollama_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_API_KEY", "from-env")
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    transport = GeminiModel("gemini-x").transport
    assert isinstance(transport, GeminiHttpTransport) and transport.api_key == "from-env"
    assert transport.headers() == {"x-goog-api-key": "from-env"}
    handler = Handler(httpx2.Response(404, json={"error": "model 'nope' not found"}))
    with pytest.raises(ModelBadRequestError, match="model 'nope' not found"):
        await OllamaModel("nope", client=handler.client()).request(
            ModelRequest(messages=[UserMessage(content="x")])
        )
