"""The bridge serves user-registered providers, and falls back like the agent does."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from openai import APIStatusError, AsyncOpenAI
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from good_agent.models import prompt_fallback
from good_agent.server import create_app, parse_config
from good_agent.server.background import BackgroundServer

pytestmark = pytest.mark.anyio
ROOT = Path(__file__).parent.parent.parent

ADD = {
    "type": "function",
    "function": {
        "name": "add",
        "description": "Add two integers.",
        "parameters": {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
        },
    },
}
HERMES = '<tool_call>{"name": "add", "arguments": {"a": 2, "b": 3}}</tool_call>'
LEAKED = json.dumps({"tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}]})


class QuirkyServer:
    """An OpenAI-compatible server that refuses tools, or writes calls into content."""

    def __init__(self, *, refuse_tools: bool) -> None:
        self.refuse_tools = refuse_tools
        self.bodies: list[dict[str, Any]] = []

    async def handle(self, request: Request) -> Response:
        body = await request.json()
        self.bodies.append(body)
        if "tools" in body and self.refuse_tools:
            message = f"registry.ollama.ai/library/{body['model']} does not support tools"
            return JSONResponse({"error": {"message": message, "type": "api_error"}}, 400)
        content = HERMES if self.refuse_tools else LEAKED
        if body.get("stream"):
            return StreamingResponse(self.chunks(body, content), media_type="text/event-stream")
        message = {"role": "assistant", "content": content}
        return JSONResponse(
            {
                "id": "x",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            }
        )

    async def chunks(self, body: dict[str, Any], content: str) -> AsyncIterator[bytes]:
        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            data = {
                "id": "x",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": body["model"],
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            return f"data: {json.dumps(data)}\n\n".encode()

        yield chunk({"role": "assistant", "content": ""})
        for i in range(0, len(content), 5):
            yield chunk({"content": content[i : i + 5]})
        yield chunk({}, "stop")
        yield b"data: [DONE]\n\n"

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/v1/chat/completions", self.handle, methods=["POST"])])


def bridge_for(models: list[dict[str, Any]]) -> BackgroundServer:
    return BackgroundServer(create_app(parse_config({"models": models}))).start()


def client_for(bridge: BackgroundServer) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=f"{bridge.url}/v1", api_key="unused", max_retries=0)


async def streamed_calls(client: AsyncOpenAI, model: str) -> tuple[list[tuple[str, str]], str]:
    stream = await client.chat.completions.create(
        model=model, messages=[{"role": "user", "content": "2+3?"}], tools=[ADD], stream=True
    )
    calls: dict[int, list[str]] = {}
    names: dict[int, str] = {}
    content: list[str] = []
    finish = ""
    async for chunk in stream:
        choice = chunk.choices[0]
        content.append(choice.delta.content or "")
        for delta in choice.delta.tool_calls or []:
            if delta.function and delta.function.name:
                names[delta.index] = delta.function.name
            calls.setdefault(delta.index, []).append(
                (delta.function.arguments if delta.function else "") or ""
            )
        finish = choice.finish_reason or finish
    assert "".join(content).strip() == ""  # no call syntax leaks into content
    return [(names[i], "".join(parts)) for i, parts in sorted(calls.items())], finish


def toy_module() -> Any:
    path = ROOT / "examples" / "custom_provider.py"
    spec = importlib.util.spec_from_file_location("custom_provider_bridge", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["custom_provider_bridge"] = module
    spec.loader.exec_module(module)
    return module


async def test_bridge_serves_a_registered_provider() -> None:
    toy = toy_module()
    with toy.fake_toy_upstream() as (url, bodies):
        bridge = bridge_for([{"name": "toy", "provider": "toy", "model": "toy-1", "base_url": url}])
        try:
            async with client_for(bridge) as client:
                first = await client.chat.completions.create(
                    model="toy", messages=[{"role": "user", "content": "1+2, 3+4?"}], tools=[ADD]
                )
                message = first.choices[0].message
                assert first.choices[0].finish_reason == "tool_calls"
                calls = [
                    (c.function.name, json.loads(c.function.arguments))
                    for c in message.tool_calls or []
                ]
                assert calls == [("add", {"a": 1, "b": 2}), ("add", {"a": 3, "b": 4})]
                history = [
                    {"role": "user", "content": "1+2, 3+4?"},
                    message.model_dump(exclude_none=True),
                    *[
                        {"role": "tool", "tool_call_id": c.id, "content": r}
                        for c, r in zip(message.tool_calls or [], ["3", "7"], strict=True)
                    ],
                ]
                second = await client.chat.completions.create(
                    model="toy", messages=history, tools=[ADD]
                )
                assert second.choices[0].message.content == "The sums are 3 and 7."
                streamed, finish = await streamed_calls(client, "toy")
                assert finish == "tool_calls" and [n for n, _ in streamed] == ["add", "add"]
        finally:
            bridge.stop()
    assert bodies[0]["functions"][0]["id"] == "add"
    assert bodies[1]["turns"][-1]["who"] == "tool"


async def test_bridge_falls_back_when_the_upstream_refuses_tools() -> None:
    upstream = QuirkyServer(refuse_tools=True)
    server = BackgroundServer(upstream.app()).start()
    entries = [
        {"name": name, "provider": "openai", "model": model, "base_url": f"{server.url}/v1"}
        for name, model in (("whole", "llama3.2"), ("streamed", "qwen2.5"), ("strict", "llama3.3"))
    ]
    entries[2]["mode"] = "native"
    bridge = bridge_for(entries)
    try:
        async with client_for(bridge) as client:
            reply = await client.chat.completions.create(
                model="whole", messages=[{"role": "user", "content": "2+3?"}], tools=[ADD]
            )
            call = (reply.choices[0].message.tool_calls or [])[0]
            assert (call.function.name, json.loads(call.function.arguments)) == (
                "add",
                {"a": 2, "b": 3},
            )
            assert reply.choices[0].finish_reason == "tool_calls"
            assert not reply.choices[0].message.content
            assert "tools" in upstream.bodies[0] and "tools" not in upstream.bodies[1]
            seen = len(upstream.bodies)
            await client.chat.completions.create(
                model="whole", messages=[{"role": "user", "content": "again"}], tools=[ADD]
            )
            assert len(upstream.bodies) == seen + 1  # straight to prompt mode
            assert "tools" not in upstream.bodies[-1]

            streamed, finish = await streamed_calls(client, "streamed")
            assert streamed == [("add", '{"a":2,"b":3}')] and finish == "tool_calls"

            before = len(upstream.bodies)
            with pytest.raises(APIStatusError) as info:
                await client.chat.completions.create(
                    model="strict", messages=[{"role": "user", "content": "2+3?"}], tools=[ADD]
                )
            assert info.value.status_code == 400
            assert "does not support tools" in str(info.value)
            assert len(upstream.bodies) == before + 1  # explicit native: no retry
    finally:
        bridge.stop()
        server.stop()


async def test_bridge_parses_tool_calls_written_in_content() -> None:
    upstream = QuirkyServer(refuse_tools=False)
    server = BackgroundServer(upstream.app()).start()
    bridge = bridge_for(
        [
            {
                "name": "leaky",
                "provider": "openai",
                "model": "mistral-small",
                "base_url": f"{server.url}/v1",
            }
        ]
    )
    try:
        async with client_for(bridge) as client:
            reply = await client.chat.completions.create(
                model="leaky", messages=[{"role": "user", "content": "2+3?"}], tools=[ADD]
            )
            call = (reply.choices[0].message.tool_calls or [])[0]
            assert call.function.name == "add" and not reply.choices[0].message.content
            streamed, finish = await streamed_calls(client, "leaky")
            assert [n for n, _ in streamed] == ["add"] and finish == "tool_calls"
    finally:
        bridge.stop()
        server.stop()
    assert all("tools" in body for body in upstream.bodies)  # still native requests


class ScriptedTextServer:
    """A text-only OpenAI-compatible server that replies from a script."""

    def __init__(self, replies: list[str]) -> None:
        self.replies = replies
        self.bodies: list[dict[str, Any]] = []

    async def handle(self, request: Request) -> Response:
        body = await request.json()
        self.bodies.append(body)
        assert "tools" not in body
        if body.get("stream"):
            chunks = QuirkyServer(refuse_tools=True).chunks(body, self.replies.pop(0))
            return StreamingResponse(chunks, media_type="text/event-stream")
        message = {"role": "assistant", "content": self.replies.pop(0)}
        return JSONResponse(
            {
                "id": "x",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 4, "total_tokens": 14},
            }
        )

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/v1/chat/completions", self.handle, methods=["POST"])])


BAD = '<tool_call>{"name": "add", "arguments": {"a": "two", "b": 3}}</tool_call>'


@pytest.mark.parametrize(
    ("retries", "expected"), [(1, {"a": 2, "b": 3}), (0, {"a": "two", "b": 3})]
)
async def test_validated_bridge_sends_invalid_calls_back_with_the_errors(
    retries: int, expected: dict[str, Any]
) -> None:
    upstream = ScriptedTextServer([BAD, HERMES])
    server = BackgroundServer(upstream.app()).start()
    bridge = bridge_for(
        [
            {
                "name": "local",
                "provider": "openai",
                "model": "local-model",
                "base_url": f"{server.url}/v1",
                "mode": "validated",
                "validation_retries": retries,
            }
        ]
    )
    try:
        async with client_for(bridge) as client:
            reply = await client.chat.completions.create(
                model="local", messages=[{"role": "user", "content": "2+3?"}], tools=[ADD]
            )
    finally:
        bridge.stop()
        server.stop()
    call = (reply.choices[0].message.tool_calls or [])[0]
    assert json.loads(call.function.arguments) == expected
    assert len(upstream.bodies) == 1 + retries
    if retries:
        assistant, feedback = upstream.bodies[1]["messages"][-2:]
        assert assistant == {"role": "assistant", "content": BAD}
        assert feedback["role"] == "user" and "a: expected integer" in feedback["content"]
        assert reply.usage is not None and reply.usage.prompt_tokens == 20


async def test_prompted_reasoning_comes_back_as_reasoning_content() -> None:
    thought = "<think>The user wants a sum.</think>"
    upstream = ScriptedTextServer([thought + HERMES])
    server = BackgroundServer(upstream.app()).start()
    entry = {
        "name": "local",
        "provider": "openai",
        "model": "m",
        "base_url": f"{server.url}/v1",
        "mode": "validated",
    }
    bridge = bridge_for([entry])
    try:
        async with client_for(bridge) as client:
            reply = await client.chat.completions.create(
                model="local", messages=[{"role": "user", "content": "2+3?"}], tools=[ADD]
            )
            upstream.replies.append(thought + HERMES)
            stream = await client.chat.completions.create(
                model="local",
                messages=[{"role": "user", "content": "2+3?"}],
                tools=[ADD],
                stream=True,
            )
            reasoning = ""
            async for chunk in stream:
                reasoning += (chunk.choices[0].delta.model_extra or {}).get(
                    "reasoning_content"
                ) or ""
    finally:
        bridge.stop()
        server.stop()
    message = reply.choices[0].message
    assert (message.model_extra or {}).get("reasoning_content") == "The user wants a sum."
    assert not message.content and message.tool_calls
    assert reasoning == "The user wants a sum."


async def test_a_fallback_is_remembered_per_upstream_not_per_model_name() -> None:
    refusing, accepting = QuirkyServer(refuse_tools=True), QuirkyServer(refuse_tools=False)
    servers = [BackgroundServer(upstream.app()).start() for upstream in (refusing, accepting)]
    bridge = bridge_for(
        [
            {"name": name, "provider": "openai", "model": "llama3.2", "base_url": f"{s.url}/v1"}
            for name, s in zip(("old-box", "new-box"), servers, strict=True)
        ]
    )
    ask = [{"role": "user", "content": "2+3?"}]
    try:
        async with client_for(bridge) as client:
            first = await client.chat.completions.create(model="old-box", messages=ask, tools=[ADD])
            assert first.choices[0].finish_reason == "tool_calls"
            assert ["tools" in body for body in refusing.bodies] == [True, False]
            for _ in range(2):
                other = await client.chat.completions.create(
                    model="new-box", messages=ask, tools=[ADD]
                )
                assert other.choices[0].finish_reason == "tool_calls"
            streamed, finish = await streamed_calls(client, "new-box")
            assert [n for n, _ in streamed] == ["add"] and finish == "tool_calls"
            # The other server still gets native tools; the refusing one goes straight to text.
            assert len(accepting.bodies) == 3 and all("tools" in b for b in accepting.bodies)
            await client.chat.completions.create(model="old-box", messages=ask, tools=[ADD])
            assert len(refusing.bodies) == 3 and "tools" not in refusing.bodies[-1]
    finally:
        bridge.stop()
        for server in servers:
            server.stop()


def test_the_fallback_key_names_the_server_without_its_credentials() -> None:
    key = prompt_fallback.upstream_key("openai", "m", "http://user:secret@10.0.0.5:8000/v1/?token=t#x")
    assert key == "openai:m@http://10.0.0.5:8000/v1"
    assert prompt_fallback.upstream_key("openai", "m", None) == "openai:m"
    upstream_key = prompt_fallback.upstream_key
    assert upstream_key("openai", "m", "http://a/v1") != upstream_key("openai", "m", "http://b/v1")
