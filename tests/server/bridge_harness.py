"""Shared pieces of the bridge tests: keys, request data, a bridge factory, a stream reader.

Kept out of ``conftest.py`` so test modules can import them by a unique name.
"""

from __future__ import annotations

import os
import threading
from typing import Any

import anyio
import anyio.to_thread
import httpx2
import pytest
from bridge_fakes import UPSTREAM_KEY, Fake, Reply
from tool_dicts import WEATHER as WEATHER  # re-exported: the bridge tests take it from here

from good_agent.server import create_app, parse_config
from good_agent.server.background import BackgroundServer

CLIENT_KEY = "client-key-abcdef"
os.environ["GA_TEST_UPSTREAM_KEY"] = UPSTREAM_KEY
os.environ["GA_TEST_WRONG_KEY"] = "sk-wrong-key-987654"
os.environ["GA_TEST_CLIENT_KEYS"] = f"{CLIENT_KEY},second-client-key"


def fake_entry(
    fakes: dict[str, tuple[Fake, str]],
    name: str,
    provider: str,
    fake: str,
    model: str,
    **extra: Any,
) -> dict[str, Any]:
    """A ``[[models]]`` entry named ``name`` for ``provider``, served by the fake ``fake``."""
    return upstream_entry(fakes[fake][1], name, provider, model, **extra)


def upstream_entry(url: str, name: str, provider: str, model: str, **extra: Any) -> dict[str, Any]:
    """A ``[[models]]`` entry named ``name`` for ``provider``, served by the fake upstream
    at ``url`` (``/v1`` added for the OpenAI APIs)."""
    v1 = "/v1" if provider in ("openai", "openai-responses") else ""
    return {
        "name": name,
        "provider": provider,
        "model": model,
        "base_url": url + v1,
        "api_key_env": "GA_TEST_UPSTREAM_KEY",
        **extra,
    }


def model_entries(fakes: dict[str, tuple[Fake, str]]) -> list[dict[str, Any]]:
    def entry(name: str, provider: str, fake: str, model: str, **extra: Any) -> dict[str, Any]:
        return fake_entry(fakes, name, provider, fake, model, **extra)

    return [
        entry("gpt", "openai", "openai", "fake-gpt", mode="native"),
        entry("claude", "anthropic", "anthropic", "claude-sonnet-4-6"),
        entry("gemini", "gemini", "gemini", "gemini-2.5-flash"),
        entry("ollama", "ollama", "ollama", "qwen2.5", mode="native"),
        entry("local", "openai", "text", "local-model", mode="validated"),
        entry("local-parsed", "openai", "text", "local-model", mode="parsed"),
        entry("ollama-text", "ollama", "ollama", "tinyllama", mode="validated"),
        entry("structured", "openai", "openai", "fake-gpt", mode="structured"),
        entry(
            "wrong-key",
            "openai",
            "openai",
            "fake-gpt",
            mode="native",
            api_key_env="GA_TEST_WRONG_KEY",
        ),
        {
            "name": "dead",
            "provider": "openai",
            "model": "x",
            "mode": "native",
            "base_url": "http://127.0.0.1:9/v1",
        },
    ]


def start_bridge(fakes: dict[str, tuple[Fake, str]], **server: Any) -> BackgroundServer:
    return bridge_over(model_entries(fakes), **server)


def bridge_over(
    models: list[dict[str, Any]], responses: dict[str, Any] | None = None, **server: Any
) -> BackgroundServer:
    """A bridge serving ``models`` (client keys from ``GA_TEST_CLIENT_KEYS``), started;
    ``server`` are more ``[server]`` settings, ``responses`` its ``[responses]`` table."""
    config: dict[str, Any] = {
        "server": {"api_keys_env": "GA_TEST_CLIENT_KEYS", **server},
        "models": models,
    }
    if responses is not None:
        config["responses"] = responses
    return BackgroundServer(create_app(parse_config(config))).start()


TIME = {
    "type": "function",
    "function": {
        "name": "get_time",
        "parameters": {
            "type": "object",
            "properties": {"zone": {"type": "string"}},
            "required": ["zone"],
        },
    },
}
USER = [{"role": "user", "content": "Weather in Paris and Rome?"}]

# Two calls written as text, as a prompted model writes them (Hermes and Mistral).
HERMES = (
    "Let me check. <tool_call>\n"
    '{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    '<tool_call>{"name": "get_time", "arguments": {"zone": "CET"}}</tool_call>'
)
MISTRAL = (
    '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}, '
    '{"name": "get_time", "arguments": {"zone": "CET"}}]'
)


async def collect_stream(
    client: Any, **kw: Any
) -> tuple[str, dict[int, dict[str, str]], str, list[Any]]:
    stream = await client.chat.completions.create(stream=True, **kw)
    chunks = [chunk async for chunk in stream]
    text, calls, finish = "", {}, ""
    for chunk in chunks:
        for choice in chunk.choices:
            text += choice.delta.content or ""
            for call in choice.delta.tool_calls or []:
                slot = calls.setdefault(call.index, {"id": "", "name": "", "arguments": ""})
                if call.id:
                    assert not slot["id"], "id only on a call's first delta"
                    slot["id"] = call.id
                    slot["name"] = call.function.name
                slot["arguments"] += call.function.arguments or ""
            finish = choice.finish_reason or finish
    return text, calls, finish, chunks


async def wait_for(event: threading.Event, limit: float = 5.0) -> bool:
    """Whether ``event`` is set within ``limit`` seconds (waited for off the event loop)."""
    return await anyio.to_thread.run_sync(event.wait, limit)


async def leave_early_cancels_upstream(fake: Fake, url: str, body: dict[str, Any]) -> None:
    """A client that leaves a slow call (a stream after its first bytes, a whole request
    at its read timeout) makes the bridge cancel the call upstream."""
    fake.reply = Reply(text="slow " * 200)
    fake.chunk_delay = 0.05
    if not body.get("stream"):
        fake.hang = 5.0
    auth = {"authorization": f"Bearer {CLIENT_KEY}"}
    async with httpx2.AsyncClient(timeout=0.5) as http:
        if body.get("stream"):
            async with http.stream("POST", url, json=body, headers=auth) as response:
                async for _ in response.aiter_bytes():
                    break
        else:
            with pytest.raises(httpx2.ReadTimeout):
                await http.post(url, json=body, headers=auth)
    assert await wait_for(fake.cancelled), "the fake upstream saw no cancellation"
