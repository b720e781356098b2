"""The same two-tool conversation through every provider's codec, over the real SDKs.

Each fake upstream answers in its provider's documented format: first two parallel
tool calls, then text. The agent must run exactly the same tools with the same
arguments, and send both results back in the provider's own tool-result slot.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anthropic
import httpx2
import pytest
from google import genai
from google.genai import types
from openai import AsyncOpenAI

from good_agent import Agent, LanguageModel, tool
from good_agent.models import (
    AnthropicModel,
    GeminiModel,
    OllamaModel,
    OpenAIChatModel,
    OpenAIResponsesModel,
)

pytestmark = pytest.mark.anyio

CALLS = [("add", {"a": 1, "b": 2}), ("math.multiply", {"a": 3, "b": 4})]


class Upstream:
    """Replies with a scripted pair of bodies and records what it received."""

    def __init__(self, first: dict[str, Any], second: dict[str, Any]) -> None:
        self.replies = [first, second]
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.bodies.append(json.loads(request.content))
        return httpx2.Response(200, json=self.replies.pop(0))

    def client(self) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(transport=httpx2.MockTransport(self))


def openai_chat() -> tuple[Upstream, LanguageModel, Callable[[dict[str, Any]], list[str]]]:
    def completion(message: dict[str, Any], finish: str) -> dict[str, Any]:
        return {
            "id": "c",
            "object": "chat.completion",
            "created": 0,
            "model": "gpt-4-turbo",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        }

    calls = [
        {
            "id": f"call_{i}",
            "type": "function",
            "function": {"name": n.replace(".", "_"), "arguments": json.dumps(a)},
        }
        for i, (n, a) in enumerate(CALLS)
    ]
    up = Upstream(
        completion({"role": "assistant", "content": None, "tool_calls": calls}, "tool_calls"),
        completion({"role": "assistant", "content": "3 and 12"}, "stop"),
    )
    client = AsyncOpenAI(api_key="k", base_url="https://api.test/v1", http_client=up.client())
    return (
        up,
        OpenAIChatModel("gpt-4-turbo", client=client),
        lambda b: [m["content"] for m in b["messages"] if m["role"] == "tool"],
    )


def openai_responses() -> tuple[Upstream, LanguageModel, Callable[[dict[str, Any]], list[str]]]:
    def response(output: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "id": "resp_1",
            "object": "response",
            "created_at": 0,
            "model": "gpt-4-turbo",
            "status": "completed",
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
        }

    calls = [
        {
            "type": "function_call",
            "id": f"fc_{i}",
            "call_id": f"call_{i}",
            "name": n.replace(".", "_"),
            "arguments": json.dumps(a),
            "status": "completed",
        }
        for i, (n, a) in enumerate(CALLS)
    ]
    text = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "3 and 12", "annotations": []}],
    }
    up = Upstream(response(calls), response([text]))
    client = AsyncOpenAI(api_key="k", base_url="https://api.test/v1", http_client=up.client())
    return (
        up,
        OpenAIResponsesModel("gpt-4-turbo", client=client, mode="native"),
        lambda b: [i["output"] for i in b["input"] if i.get("type") == "function_call_output"],
    )


def anthropic_messages() -> tuple[Upstream, LanguageModel, Callable[[dict[str, Any]], list[str]]]:
    def message(content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
        return {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-test",
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }

    calls = [
        {"type": "tool_use", "id": f"toolu_{i}", "name": n.replace(".", "_"), "input": a}
        for i, (n, a) in enumerate(CALLS)
    ]
    up = Upstream(
        message(calls, "tool_use"), message([{"type": "text", "text": "3 and 12"}], "end_turn")
    )
    client = anthropic.AsyncAnthropic(api_key="k", http_client=up.client(), max_retries=0)

    def results(body: dict[str, Any]) -> list[str]:
        blocks = [
            b for m in body["messages"] if isinstance(m["content"], list) for b in m["content"]
        ]
        return [str(b["content"]) for b in blocks if b.get("type") == "tool_result"]

    return up, AnthropicModel("claude-test", client=client), results


def gemini() -> tuple[Upstream, LanguageModel, Callable[[dict[str, Any]], list[str]]]:
    def candidate(parts: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2},
        }

    calls = [{"functionCall": {"name": n, "args": a}} for n, a in CALLS]  # dots are allowed
    up = Upstream(candidate(calls), candidate([{"text": "3 and 12"}]))
    client = genai.Client(
        api_key="k",
        http_options=types.HttpOptions(
            httpx_async_client=up.client(), retry_options=types.HttpRetryOptions(attempts=1)
        ),
    )

    def results(body: dict[str, Any]) -> list[str]:
        parts = [p for c in body["contents"] for p in c["parts"]]
        return [
            json.dumps(p["functionResponse"]["response"]) for p in parts if "functionResponse" in p
        ]

    return up, GeminiModel("gemini-2.5-flash", client=client), results


def ollama() -> tuple[Upstream, LanguageModel, Callable[[dict[str, Any]], list[str]]]:
    def chat(message: dict[str, Any]) -> dict[str, Any]:
        return {
            "model": "qwen2.5",
            "created_at": "2026-01-01T00:00:00Z",
            "message": message,
            "done": True,
            "done_reason": "stop",
            "prompt_eval_count": 5,
            "eval_count": 5,
        }

    calls = [{"function": {"name": n, "arguments": a}} for n, a in CALLS]
    up = Upstream(
        chat({"role": "assistant", "content": "", "tool_calls": calls}),
        chat({"role": "assistant", "content": "3 and 12"}),
    )
    return (
        up,
        OllamaModel("qwen2.5", client=up.client()),
        lambda b: [m["content"] for m in b["messages"] if m["role"] == "tool"],
    )


@pytest.mark.parametrize(
    "make",
    [openai_chat, openai_responses, anthropic_messages, gemini, ollama],
    ids=["openai-chat", "openai-responses", "anthropic", "gemini", "ollama"],
)
async def test_same_conversation_same_tool_executions(
    make: Callable[[], tuple[Upstream, LanguageModel, Callable[[dict[str, Any]], list[str]]]],
) -> None:
    upstream, model, tool_results = make()
    executed: list[tuple[str, dict[str, int]]] = []

    @tool
    def add(a: int, b: int) -> int:
        """Add."""
        executed.append(("add", {"a": a, "b": b}))
        return a + b

    @tool(name="math.multiply")
    def multiply(a: int, b: int) -> int:
        """Multiply."""
        executed.append(("math.multiply", {"a": a, "b": b}))
        return a * b

    answer = await Agent("Use tools.", model=model, tools=[add, multiply]).call("1+2 and 3*4?")
    assert answer.content == "3 and 12"
    assert sorted(executed) == sorted(CALLS)
    assert len(upstream.bodies) == 2
    sent = tool_results(upstream.bodies[1])
    assert len(sent) == 2 and "3" in sent[0] and "12" in sent[1]
