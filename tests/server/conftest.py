"""Fixtures of the bridge tests: fake upstreams and a bridge, all on loopback."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from bridge_fakes import UPSTREAM_KEY, AnthropicFake, Fake, GeminiFake, OllamaFake, OpenAIFake

from good_agent.server import create_app, parse_config
from good_agent.server.background import BackgroundServer

CLIENT_KEY = "client-key-abcdef"
os.environ["GA_TEST_UPSTREAM_KEY"] = UPSTREAM_KEY
os.environ["GA_TEST_WRONG_KEY"] = "sk-wrong-key-987654"
os.environ["GA_TEST_CLIENT_KEYS"] = f"{CLIENT_KEY},second-client-key"


@pytest.fixture(scope="session")
def fakes() -> Iterator[dict[str, tuple[Fake, str]]]:
    instances: dict[str, Fake] = {
        "openai": OpenAIFake(),
        "text": OpenAIFake(text_only=True),
        "anthropic": AnthropicFake(),
        "gemini": GeminiFake(),
        "ollama": OllamaFake(),
    }
    servers = {name: BackgroundServer(fake.app()).start() for name, fake in instances.items()}
    yield {name: (instances[name], servers[name].url) for name in instances}
    for server in servers.values():
        server.stop()


def model_entries(fakes: dict[str, tuple[Fake, str]]) -> list[dict[str, Any]]:
    def entry(name: str, provider: str, fake: str, model: str, **extra: Any) -> dict[str, Any]:
        url = fakes[fake][1] + ("/v1" if provider == "openai" else "")
        return {
            "name": name,
            "provider": provider,
            "model": model,
            "base_url": url,
            "api_key_env": "GA_TEST_UPSTREAM_KEY",
            **extra,
        }

    return [
        entry("gpt", "openai", "openai", "fake-gpt", mode="native"),
        entry("claude", "anthropic", "anthropic", "claude-sonnet-4-5"),
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
    config = parse_config(
        {
            "server": {"api_keys_env": "GA_TEST_CLIENT_KEYS", **server},
            "models": model_entries(fakes),
        }
    )
    return BackgroundServer(create_app(config)).start()


@pytest.fixture(scope="session")
def bridge(fakes: dict[str, tuple[Fake, str]]) -> Iterator[BackgroundServer]:
    server = start_bridge(fakes, max_body_bytes=200_000)
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def _reset_fakes(request: pytest.FixtureRequest) -> None:
    if "fakes" in request.fixturenames or "bridge" in request.fixturenames:
        for fake, _ in request.getfixturevalue("fakes").values():
            fake.reset()


@pytest.fixture
async def client(bridge: BackgroundServer, anyio_backend: str) -> AsyncIterator[Any]:
    from openai import AsyncOpenAI

    async with AsyncOpenAI(
        base_url=f"{bridge.url}/v1", api_key=CLIENT_KEY, max_retries=0
    ) as client:
        yield client
