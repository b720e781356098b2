"""The ``thinking`` setting on a bridge route: translated for the upstream's API, and a
route whose model has no reasoning answers 400 naming it (never 500)."""

from __future__ import annotations

from collections.abc import Iterator

import openai
import pytest
from bridge_fakes import Fake, Reply
from bridge_harness import CLIENT_KEY, fake_entry

from good_agent.server import create_app, parse_config
from good_agent.server.background import BackgroundServer

pytestmark = pytest.mark.anyio
USER = [{"role": "user", "content": "Why is the sky blue?"}]


@pytest.fixture(scope="module")
def thinking_bridge(fakes: dict[str, tuple[Fake, str]]) -> Iterator[BackgroundServer]:
    models = [
        fake_entry(
            fakes,
            "claude",
            "anthropic",
            "anthropic",
            "claude-sonnet-4-6",
            settings={"thinking": "high"},
        ),
        fake_entry(
            fakes, "gemini", "gemini", "gemini", "gemini-2.5-flash", settings={"thinking": 512}
        ),
        fake_entry(
            fakes,
            "plain",
            "anthropic",
            "anthropic",
            "claude-3-5-haiku-latest",
            settings={"thinking": "low"},
        ),
        fake_entry(fakes, "claude-own", "anthropic", "anthropic", "claude-opus-4-1"),
        fake_entry(fakes, "haiku", "anthropic", "anthropic", "claude-3-5-haiku-latest"),
    ]
    config = parse_config({"server": {"api_keys_env": "GA_TEST_CLIENT_KEYS"}, "models": models})
    server = BackgroundServer(create_app(config)).start()
    yield server
    server.stop()


async def test_a_route_thinks_in_its_upstreams_terms(
    thinking_bridge: BackgroundServer, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fakes["anthropic"][0].reply = Reply(text="Rayleigh scattering.")
    async with openai.AsyncOpenAI(
        base_url=f"{thinking_bridge.url}/v1", api_key=CLIENT_KEY, max_retries=0
    ) as client:
        reply = await client.chat.completions.create(model="claude", messages=USER, temperature=0.3)
        await client.chat.completions.create(model="gemini", messages=USER)
    assert reply.choices[0].message.content == "Rayleigh scattering."
    sent = fakes["anthropic"][0].requests[-1]
    assert sent["thinking"] == {"type": "enabled", "budget_tokens": 4096}
    assert "temperature" not in sent and sent["max_tokens"] == 4096 + 4096
    body = fakes["gemini"][0].requests[-1]
    config = body.get("generationConfig") or body["generation_config"]
    assert config["thinking_config"] == {"thinking_budget": 512, "include_thoughts": True}


async def test_a_route_without_reasoning_is_a_400_naming_its_model(
    thinking_bridge: BackgroundServer, fakes: dict[str, tuple[Fake, str]]
) -> None:
    async with openai.AsyncOpenAI(
        base_url=f"{thinking_bridge.url}/v1", api_key=CLIENT_KEY, max_retries=0
    ) as client:
        for stream in (False, True):
            with pytest.raises(openai.BadRequestError) as refused:
                await client.chat.completions.create(model="plain", messages=USER, stream=stream)
            assert "claude-3-5-haiku-latest" in refused.value.message
            assert "thinking" in refused.value.message
            assert refused.value.code == "unsupported_setting"
    assert fakes["anthropic"][0].requests == []


async def test_a_chat_clients_reasoning_effort_thinks_on_other_apis(
    thinking_bridge: BackgroundServer, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fake = fakes["anthropic"][0]
    async with openai.AsyncOpenAI(
        base_url=f"{thinking_bridge.url}/v1", api_key=CLIENT_KEY, max_retries=0
    ) as client:
        await client.chat.completions.create(
            model="claude-own", messages=USER, reasoning_effort="low"
        )
        sent = fake.requests[-1]
        assert sent["thinking"] == {"type": "enabled", "budget_tokens": 1024}
        assert "reasoning_effort" not in sent
        # A model without reasoning is left as it was: the effort is not sent.
        await client.chat.completions.create(model="haiku", messages=USER, reasoning_effort="low")
        assert "thinking" not in fake.requests[-1]
        # An effort the setting has no word for stays the client's own.
        await client.chat.completions.create(
            model="claude-own", messages=USER, reasoning_effort="minimal"
        )
        assert "thinking" not in fake.requests[-1]
    assert not fake.problems, fake.problems
