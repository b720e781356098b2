"""FallbackModel over real transports (the default HTTP transports, and a given SDK
client): a member before the last sends each request once (no retries), the last keeps
its retries. Counted at loopback upstreams."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from openai import AsyncOpenAI

from good_agent import FallbackModel
from good_agent.models import AnthropicModel, OpenAIChatModel
from good_agent.models.base import ModelRequest, ModelResponse
from good_agent.testing import ScriptedModel
from good_agent.types.messages import UserMessage

pytestmark = pytest.mark.anyio

Start = Callable[[list[Any]], Any]
REQUEST = ModelRequest(messages=[UserMessage(content="hi")])
BUSY = (503, {"error": {"message": "overloaded", "type": "server_error"}})
LIMITED = (429, {"error": {"message": "rate limited", "type": "rate_limit_error"}})
OK = (
    200,
    {
        "id": "c",
        "object": "chat.completion",
        "created": 0,
        "model": "backup",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "from backup"},
                "finish_reason": "stop",
            }
        ],
    },
)


def backup(upstream: Any) -> OpenAIChatModel:
    return OpenAIChatModel("backup", base_url=upstream.url, api_key="k")


@pytest.mark.parametrize("failure", [BUSY, LIMITED], ids=["503", "429"])
async def test_a_member_before_the_last_is_asked_once(
    failure: tuple[int, dict[str, Any]], fake_upstream: Start
) -> None:
    first, last = fake_upstream([failure] * 5), fake_upstream([OK])
    primary = OpenAIChatModel("primary", base_url=first.url, api_key="k")
    reply = await FallbackModel(primary, backup(last)).request(REQUEST)
    assert reply.content == "from backup"
    assert len(first.bodies) == 1 and len(last.bodies) == 1


async def test_an_anthropic_member_before_the_last_is_asked_once(fake_upstream: Start) -> None:
    first, last = fake_upstream([BUSY] * 5), fake_upstream([OK])
    primary = AnthropicModel("claude-sonnet-4-6", base_url=first.url, api_key="k")
    assert (await FallbackModel(primary, backup(last)).request(REQUEST)).content == "from backup"
    assert len(first.bodies) == 1


async def test_a_given_sdk_client_is_asked_once_too(fake_upstream: Start) -> None:
    first, last = fake_upstream([BUSY] * 5), fake_upstream([OK])
    client = AsyncOpenAI(base_url=first.url, api_key="k")
    primary = OpenAIChatModel("primary", client=client)
    assert (await FallbackModel(primary, backup(last)).request(REQUEST)).content == "from backup"
    assert len(first.bodies) == 1
    # The caller's own client keeps its retries.
    assert client.max_retries == 2


async def test_a_streamed_request_is_asked_once_before_falling_back(fake_upstream: Start) -> None:
    first = fake_upstream([BUSY] * 5)
    primary = OpenAIChatModel("primary", base_url=first.url, api_key="k")
    last = ScriptedModel([ScriptedModel.streamed("from ", "backup")])
    items = [item async for item in FallbackModel(primary, last).stream(REQUEST)]
    final = items[-1]
    assert isinstance(final, ModelResponse) and final.content == "from backup"
    assert len(first.bodies) == 1


async def test_the_last_member_keeps_its_retries(fake_upstream: Start) -> None:
    first, last = fake_upstream([BUSY] * 5), fake_upstream([BUSY, OK])
    primary = OpenAIChatModel("primary", base_url=first.url, api_key="k")
    assert (await FallbackModel(primary, backup(last)).request(REQUEST)).content == "from backup"
    assert len(first.bodies) == 1 and len(last.bodies) == 2


async def test_the_models_given_keep_their_retries(fake_upstream: Start) -> None:
    """The fallback asks copies once; the model objects given to it are unchanged."""
    first = fake_upstream([BUSY, OK])
    primary = OpenAIChatModel("primary", base_url=first.url, api_key="k")
    FallbackModel(primary, backup(fake_upstream([])))
    assert (await primary.request(REQUEST)).content == "from backup"
    assert len(first.bodies) == 2
