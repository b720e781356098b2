"""Fields that reached the upstream (or were dropped) with a wrong value are 400s
naming the field, and the upstream receives nothing."""

from __future__ import annotations

from typing import Any

import pytest
from bad_input import BAD_VALUES, HUGE_MAX_TOKENS, Case, messages, refused, send
from bridge_fakes import Fake
from bridge_harness import CLIENT_KEY, USER

pytestmark = [pytest.mark.anyio, pytest.mark.both_paths]


@pytest.mark.parametrize("case", BAD_VALUES)
async def test_bad_values_are_400s_naming_the_field(
    bridge: Any, fakes: dict[str, tuple[Fake, str]], case: Case
) -> None:
    refused(await send(bridge, case), case)
    assert not fakes["openai"][0].requests and not fakes["anthropic"][0].requests


@pytest.mark.parametrize("case", HUGE_MAX_TOKENS)
async def test_a_5000_digit_max_tokens_names_max_tokens(
    bridge: Any, fakes: dict[str, tuple[Fake, str]], case: Case
) -> None:
    refused(await send(bridge, case), case)
    assert not fakes["openai"][0].requests and not fakes["anthropic"][0].requests


async def test_sdk_clients_see_the_field_named(
    bridge: Any, fakes: dict[str, tuple[Fake, str]]
) -> None:
    import anthropic
    import openai

    async with openai.AsyncOpenAI(
        base_url=f"{bridge.url}/v1", api_key=CLIENT_KEY, max_retries=0
    ) as client:
        with pytest.raises(openai.BadRequestError) as chat_error:
            await client.chat.completions.create(
                model="gpt",
                messages=USER,
                temperature=-5,
            )
    assert chat_error.value.param == "temperature"
    async with anthropic.AsyncAnthropic(
        base_url=bridge.url, api_key=CLIENT_KEY, max_retries=0
    ) as claude:
        with pytest.raises(anthropic.BadRequestError) as messages_error:
            await claude.messages.create(
                model="claude",
                max_tokens=10,
                messages=USER,
                extra_body={"top_k": -1},
            )
    assert "top_k" in str(messages_error.value)
    assert not fakes["openai"][0].requests and not fakes["anthropic"][0].requests


async def test_well_formed_thinking_and_metadata_are_accepted_and_not_forwarded(
    bridge: Any, fakes: dict[str, tuple[Fake, str]], pass_through: bool
) -> None:
    """As docs/server.md says: checked, then left out of the upstream request by the
    translating path; the pass-through path sends them on to the Anthropic upstream
    as the client wrote them."""
    fakes["anthropic"][0].reset()
    body = messages(
        thinking={"type": "enabled", "budget_tokens": 1024}, metadata={"user_id": "u-1"}
    )
    response = await send(bridge, Case("messages", body, None))
    assert response.status_code == 200, response.text
    [sent] = fakes["anthropic"][0].requests
    if pass_through:
        assert sent["thinking"] == {"type": "enabled", "budget_tokens": 1024}
        assert sent["metadata"] == {"user_id": "u-1"}
    else:
        assert "thinking" not in sent and "metadata" not in sent, sent
