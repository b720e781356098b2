"""An upstream that refuses the bridge's key is answered with a status clients do not retry."""

from __future__ import annotations

from typing import Any

import anthropic
import openai
import pytest
from bridge_fakes import Fake
from bridge_harness import CLIENT_KEY, USER

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("stream", [False, True])
async def test_refused_credentials_are_not_retried_by_the_openai_sdk(
    bridge: Any, fakes: dict[str, tuple[Fake, str]], stream: bool
) -> None:
    fake = fakes["openai"][0]
    async with openai.AsyncOpenAI(
        base_url=f"{bridge.url}/v1", api_key=CLIENT_KEY, max_retries=3
    ) as client:
        with pytest.raises(openai.PermissionDeniedError) as refused:
            await client.chat.completions.create(model="wrong-key", messages=USER, stream=stream)
    assert refused.value.status_code == 403
    assert "refused the bridge's credentials" in refused.value.message
    assert "api_key_env" in refused.value.message
    assert len(fake.requests) == 1, "the SDK did not retry"


async def test_refused_credentials_are_not_retried_by_the_anthropic_sdk(
    bridge: Any, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fake = fakes["openai"][0]
    async with anthropic.AsyncAnthropic(
        base_url=bridge.url, api_key=CLIENT_KEY, max_retries=3
    ) as client:
        with pytest.raises(anthropic.PermissionDeniedError):
            await client.messages.create(
                model="wrong-key",
                max_tokens=50,
                messages=[{"role": "user", "content": "hi"}],
            )
    assert len(fake.requests) == 1
