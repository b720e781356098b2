"""A malformed upstream reply becomes a 502 naming the provider, never a 500 or a blank answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from openai import APIStatusError, AsyncOpenAI

from good_agent.server import create_app, parse_config
from good_agent.server.background import BackgroundServer

pytestmark = [pytest.mark.anyio, pytest.mark.both_paths]


@pytest.mark.parametrize("tools", [False, True])
async def test_empty_choices_from_upstream_is_a_502(
    fake_upstream: Callable[[list[Any]], Any], tools: bool, pass_through: bool
) -> None:
    upstream = fake_upstream([(200, {"id": "x", "object": "chat.completion", "choices": []})])
    models = [
        {
            "name": "m",
            "provider": "openai",
            "model": "gpt-4o-mini",
            "mode": "native",
            "base_url": f"{upstream.url}/v1",
        }
    ]
    config = parse_config({"models": models, "server": {"pass_through": pass_through}})
    bridge = BackgroundServer(create_app(config)).start()
    try:
        extra: dict[str, Any] = {}
        if tools:
            extra["tools"] = [
                {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
            ]
        async with AsyncOpenAI(
            base_url=f"{bridge.url}/v1", api_key="unused", max_retries=0
        ) as client:
            with pytest.raises(APIStatusError) as info:
                await client.chat.completions.create(
                    model="m", messages=[{"role": "user", "content": "hi"}], **extra
                )
    finally:
        bridge.stop()
    assert info.value.status_code == 502
    assert "no choices" in str(info.value)
