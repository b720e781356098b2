"""The bridge's ``fallback = [...]``: a failing model hands the request to the next entry."""

from __future__ import annotations

from typing import Any

import pytest
from bridge_fakes import Fake
from bridge_harness import CLIENT_KEY

from good_agent.server import create_app, parse_config
from good_agent.server.background import BackgroundServer
from good_agent.server.config import ConfigError

pytestmark = pytest.mark.anyio


def config(fakes: dict[str, tuple[Fake, str]]) -> Any:
    return parse_config(
        {
            "server": {"api_keys_env": "GA_TEST_CLIENT_KEYS"},
            "models": [
                {
                    "name": "primary",
                    "provider": "openai",
                    "model": "fake-gpt",
                    "mode": "native",
                    "base_url": fakes["openai"][1] + "/v1",
                    "api_key_env": "GA_TEST_UPSTREAM_KEY",
                    "fallback": ["backup"],
                },
                {
                    "name": "backup",
                    "provider": "anthropic",
                    "model": "claude-sonnet-4-6",
                    "base_url": fakes["anthropic"][1],
                    "api_key_env": "GA_TEST_UPSTREAM_KEY",
                },
            ],
        }
    )


@pytest.mark.parametrize("stream", [False, True])
async def test_an_overloaded_model_falls_back_to_the_next_entry(
    fakes: dict[str, tuple[Fake, str]], stream: bool
) -> None:
    from openai import AsyncOpenAI

    openai_fake, anthropic_fake = fakes["openai"][0], fakes["anthropic"][0]
    openai_fake.fail_status = 503
    server = BackgroundServer(create_app(config(fakes))).start()
    try:
        async with AsyncOpenAI(
            base_url=f"{server.url}/v1", api_key=CLIENT_KEY, max_retries=0
        ) as client:
            messages: Any = [{"role": "user", "content": "hi"}]
            if stream:
                chunks = await client.chat.completions.create(
                    model="primary", messages=messages, stream=True
                )
                text = "".join(
                    [c.choices[0].delta.content or "" async for c in chunks if c.choices]
                )
            else:
                reply = await client.chat.completions.create(model="primary", messages=messages)
                text = reply.choices[0].message.content or ""
    finally:
        server.stop()
    assert text == "Hello from the fake."
    assert len(openai_fake.requests) == 1 and len(anthropic_fake.requests) == 1


def test_fallback_names_must_be_other_configured_models() -> None:
    base = {"provider": "openai", "model": "m", "base_url": "http://127.0.0.1:9/v1"}
    with pytest.raises(ConfigError, match="unknown model 'ghost'"):
        parse_config({"models": [{"name": "a", **base, "fallback": ["ghost"]}]})
    with pytest.raises(ConfigError, match="falls back to itself"):
        parse_config({"models": [{"name": "a", **base, "fallback": ["a"]}]})
