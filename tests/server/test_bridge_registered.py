"""Providers added with register_provider, served by the bridge through the model core."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from bridge_harness import CLIENT_KEY, USER

from good_agent.models import register_provider
from good_agent.server import create_app, parse_config
from good_agent.server.background import BackgroundServer

pytestmark = pytest.mark.anyio

REPLY = {
    "choices": [
        {
            "message": {"role": "assistant", "content": "Hi from a plain transport."},
            "finish_reason": "stop",
        }
    ],
    "usage": {"prompt_tokens": 4, "completion_tokens": 6},
}


class SendOnlyTransport:
    """A transport with ``send`` only: streamed requests are answered whole."""

    provider = "sendonly"

    def __init__(self, *, model: str, base_url: str | None, api_key: str | None) -> None:
        self.model = model

    async def send(self, body: dict[str, Any]) -> dict[str, Any]:
        return REPLY


class BrokenTransport(SendOnlyTransport):
    """A transport that fails with an untyped error."""

    provider = "broken"

    async def send(self, body: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("socket exploded")


@pytest.fixture(scope="module")
def registered_bridge() -> Iterator[BackgroundServer]:
    register_provider("sendonly", codec="openai_chat", transport=SendOnlyTransport)
    register_provider("broken", codec="openai_chat", transport=BrokenTransport)
    config = parse_config(
        {
            "server": {"api_keys_env": "GA_TEST_CLIENT_KEYS"},
            "models": [
                {"name": "plain", "provider": "sendonly", "model": "m"},
                {"name": "broken", "provider": "broken", "model": "m"},
            ],
        }
    )
    bridge = BackgroundServer(create_app(config)).start()
    yield bridge
    bridge.stop()


@pytest.fixture
async def registered_client(registered_bridge: BackgroundServer) -> Any:
    from openai import AsyncOpenAI

    async with AsyncOpenAI(
        base_url=f"{registered_bridge.url}/v1", api_key=CLIENT_KEY, max_retries=0
    ) as client:
        yield client


async def test_a_send_only_provider_streams_its_whole_reply(registered_client: Any) -> None:
    stream = await registered_client.chat.completions.create(
        model="plain", messages=USER, stream=True, stream_options={"include_usage": True}
    )
    chunks = [chunk async for chunk in stream]
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "Hi from a plain transport."
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].usage.prompt_tokens == 4


@pytest.mark.parametrize("stream", [True, False])
async def test_an_untyped_transport_failure_is_a_502(stream: bool, registered_client: Any) -> None:
    import openai

    with pytest.raises(openai.APIStatusError) as failed:
        if stream:
            async for _ in await registered_client.chat.completions.create(
                model="broken", messages=USER, stream=True
            ):
                pass
        else:
            await registered_client.chat.completions.create(model="broken", messages=USER)
    assert failed.value.status_code == 502
    assert "RuntimeError" in str(failed.value.message)
