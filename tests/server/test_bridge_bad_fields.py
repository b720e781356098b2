"""Fields that reached the upstream (or were dropped) with a wrong value are 400s
naming the field, and the upstream receives nothing."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest
from bridge_fakes import Fake
from bridge_harness import CLIENT_KEY, USER

pytestmark = [pytest.mark.anyio, pytest.mark.both_paths]
AUTH = {"authorization": f"Bearer {CLIENT_KEY}"}
CHAT = "/v1/chat/completions"
MESSAGES = "/v1/messages"
HUGE = "9" * 5000


def chat(**fields: Any) -> dict[str, Any]:
    return {"model": "gpt", "messages": USER, **fields}


def messages(**fields: Any) -> dict[str, Any]:
    return {"model": "claude", "max_tokens": 100, "messages": USER, **fields}


def user(*parts: Any) -> list[dict[str, Any]]:
    return [{"role": "user", "content": [{"type": "text", "text": "hi"}, *parts]}]


def tool(name: str) -> dict[str, Any]:
    return {"name": name, "input_schema": {"type": "object"}}


CALL_WITHOUT_ID = [
    *USER,
    {"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "f"}}]},
]

BAD_FIELDS: list[tuple[str, Any, str]] = [
    (CHAT, chat(logprobs="x"), "logprobs"),
    (CHAT, chat(top_logprobs=-1), "top_logprobs"),
    (CHAT, chat(logit_bias="x"), "logit_bias"),
    (CHAT, chat(logit_bias={"50256": "x"}), "logit_bias.50256"),
    (CHAT, chat(temperature=-5), "temperature"),
    (CHAT, chat(top_p=-0.5), "top_p"),
    (CHAT, chat(messages=user({"type": "bogus"})), "messages[0].content[1].type"),
    (CHAT, chat(messages=user({"type": "image_url"})), "messages[0].content[1]"),
    (
        CHAT,
        chat(messages=user({"type": "image_url", "image_url": {}})),
        "messages[0].content[1].image_url.url",
    ),
    (CHAT, chat(messages=CALL_WITHOUT_ID), "messages[1].tool_calls[0].id"),
    (MESSAGES, messages(temperature=-5), "temperature"),
    (MESSAGES, messages(top_k=-1), "top_k"),
    (MESSAGES, messages(thinking="x"), "thinking"),
    (MESSAGES, messages(thinking={"type": "bogus"}), "thinking.type"),
    (MESSAGES, messages(messages=user({"type": "bogus"})), "messages[0].content[1].type"),
    (
        MESSAGES,
        messages(messages=[*USER, {"role": "assistant", "content": [{"type": "bogus"}]}]),
        "messages[1].content[0].type",
    ),
    (MESSAGES, messages(tools=[tool("f"), tool("f")]), "tools[1].name"),
]


def _raw(body: Any) -> bytes:
    return json.dumps(body).encode()


async def send(bridge: Any, path: str, raw: bytes) -> httpx2.Response:
    async with httpx2.AsyncClient(timeout=10) as http:
        return await http.post(f"{bridge.url}{path}", headers=AUTH, content=raw)


def assert_refused(response: httpx2.Response, path: str, param: str) -> None:
    assert response.status_code == 400, response.text
    body = response.json()
    if path == MESSAGES:
        assert body["error"]["type"] == "invalid_request_error"
        assert param in body["error"]["message"], body
    else:
        assert body["error"]["param"] == param, body
        assert param in body["error"]["message"], body


@pytest.mark.parametrize(("path", "body", "param"), BAD_FIELDS)
async def test_bad_values_are_400s_naming_the_field(
    bridge: Any, fakes: dict[str, tuple[Fake, str]], path: str, body: Any, param: str
) -> None:
    assert_refused(await send(bridge, path, _raw(body)), path, param)
    assert not fakes["openai"][0].requests and not fakes["anthropic"][0].requests


@pytest.mark.parametrize(
    ("path", "raw"),
    [
        (
            CHAT,
            b'{"model": "gpt", "messages": [{"role": "user", "content": "x"}], '
            b'"max_tokens": ' + HUGE.encode() + b"}",
        ),
        (
            MESSAGES,
            b'{"model": "claude", "messages": [{"role": "user", "content": "x"}], '
            b'"max_tokens": ' + HUGE.encode() + b"}",
        ),
    ],
)
async def test_a_5000_digit_max_tokens_names_max_tokens(
    bridge: Any, fakes: dict[str, tuple[Fake, str]], path: str, raw: bytes
) -> None:
    assert_refused(await send(bridge, path, raw), path, "max_tokens")
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
    response = await send(bridge, MESSAGES, _raw(body))
    assert response.status_code == 200, response.text
    [sent] = fakes["anthropic"][0].requests
    if pass_through:
        assert sent["thinking"] == {"type": "enabled", "budget_tokens": 1024}
        assert sent["metadata"] == {"user_id": "u-1"}
    else:
        assert "thinking" not in sent and "metadata" not in sent, sent
