"""Client errors, upstream error mapping, mid-stream failures, disconnects and auth."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

import anyio
import anyio.to_thread
import httpx2
import openai
import pytest
from bad_input import CHAT_CLIENT_ERRORS, Case, refused, send
from bridge_fakes import UPSTREAM_KEY, Fake, Reply
from bridge_harness import (
    CLIENT_KEY,
    USER,
    leave_early_cancels_upstream,
    start_bridge,
)

from good_agent.server import ConfigError, check_exposure, parse_config

pytestmark = [pytest.mark.anyio, pytest.mark.both_paths]
AUTH = {"authorization": f"Bearer {CLIENT_KEY}"}


async def post(
    bridge: Any,
    body: Any,
    *,
    path: str = "/v1/chat/completions",
    headers: dict[str, str] | None = None,
    raw: bytes | None = None,
) -> httpx2.Response:
    async with httpx2.AsyncClient(timeout=10) as http:
        return await http.post(
            f"{bridge.url}{path}",
            headers=AUTH if headers is None else headers,
            content=raw if raw is not None else json.dumps(body).encode(),
        )


def assert_openai_error(response: httpx2.Response, status: int, param: str | None = None) -> str:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    if param is not None:
        assert error["param"] == param
    assert UPSTREAM_KEY not in response.text and CLIENT_KEY not in response.text
    return str(error["message"])


@pytest.mark.parametrize("case", CHAT_CLIENT_ERRORS)
async def test_client_errors_name_the_field(bridge: Any, case: Case) -> None:
    refused(await send(bridge, case), case)


async def test_invalid_json_and_body_limit(bridge: Any) -> None:
    message = assert_openai_error(await post(bridge, None, raw=b"{not json"), 400)
    assert "JSON" in message
    big = {"model": "gpt", "messages": [{"role": "user", "content": "x" * 300_000}]}
    assert_openai_error(await post(bridge, big), 413)


async def test_client_keys(bridge: Any) -> None:
    body = {"model": "gpt", "messages": USER}
    assert_openai_error(await post(bridge, body, headers={}), 401)
    assert_openai_error(await post(bridge, body, headers={"authorization": "Bearer nope"}), 401)
    ok = await post(bridge, body, headers={"authorization": "Bearer second-client-key"})
    assert ok.status_code == 200
    async with openai.AsyncOpenAI(
        base_url=f"{bridge.url}/v1", api_key="wrong", max_retries=0
    ) as client:
        with pytest.raises(openai.AuthenticationError):
            await client.chat.completions.create(model="gpt", messages=USER)
    anthropic_style = await post(bridge, {"model": "gpt"}, path="/v1/messages", headers={})
    assert anthropic_style.status_code == 401
    assert anthropic_style.json()["type"] == "error"
    assert anthropic_style.json()["error"]["type"] == "authentication_error"


@pytest.mark.parametrize("stream", [False, True])
async def test_upstream_error_mapping(
    client: Any, fakes: dict[str, tuple[Fake, str]], stream: bool
) -> None:
    fake = fakes["openai"][0]
    with pytest.raises(openai.APIStatusError) as refused:
        await client.chat.completions.create(model="wrong-key", messages=USER, stream=stream)
    assert refused.value.status_code == 403
    assert "wrong-key" in refused.value.message and "sk-wrong" not in refused.value.message
    for status in (403,):
        fake.fail_status = status
        with pytest.raises(openai.APIStatusError) as forbidden:
            await client.chat.completions.create(model="gpt", messages=USER, stream=stream)
        assert forbidden.value.status_code == 403 and "refused" in forbidden.value.message
    fake.fail_status, fake.fail_headers = 429, {"retry-after": "7"}
    with pytest.raises(openai.RateLimitError) as limited:
        await client.chat.completions.create(model="gpt", messages=USER, stream=stream)
    assert limited.value.response.headers["retry-after"] == "7"
    for status in (500, 503):
        fake.fail_status, fake.fail_headers = status, {}
        with pytest.raises(openai.APIStatusError) as failing:
            await client.chat.completions.create(model="gpt", messages=USER, stream=stream)
        assert failing.value.status_code == 502
    with pytest.raises(openai.APIStatusError) as dead:
        await client.chat.completions.create(model="dead", messages=USER, stream=stream)
    assert dead.value.status_code == 502 and "cannot be reached" in dead.value.message


async def test_timeout_is_504(fakes: dict[str, tuple[Fake, str]], pass_through: bool) -> None:
    server = start_bridge(fakes, read_timeout=0.3, request_timeout=0.6, pass_through=pass_through)
    try:
        fakes["openai"][0].hang = 2.0
        for stream in (False, True):
            body = {"model": "gpt", "messages": USER, "stream": stream}
            assert_openai_error(await post(server, body), 504)
    finally:
        server.stop()


async def test_a_whole_request_is_cut_at_request_timeout_and_the_next_one_is_served(
    fakes: dict[str, tuple[Fake, str]], pass_through: bool
) -> None:
    # The upstream is slower than request_timeout, not than read_timeout: the whole
    # request's limit is what ends it, in the same scope as the disconnect watch.
    server = start_bridge(fakes, read_timeout=5.0, request_timeout=0.4, pass_through=pass_through)
    fake = fakes["openai"][0]
    try:
        fake.hang = 1.5
        started = time.monotonic()
        message = assert_openai_error(
            await post(server, {"model": "gpt", "messages": USER}), 504
        )
        assert time.monotonic() - started < 1.4
        assert "timed out" in message
        fake.hang = 0
        ok = await post(server, {"model": "gpt", "messages": USER})
        assert ok.status_code == 200, ok.text
    finally:
        fake.hang = 0
        server.stop()


async def test_mid_stream_failure_ends_with_error_event(
    client: Any, bridge: Any, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fake = fakes["openai"][0]
    fake.reply = Reply(text="a long answer that will not finish " * 3)
    fake.break_after = 4
    with pytest.raises(openai.APIError) as failed:
        async for _ in await client.chat.completions.create(
            model="gpt", messages=USER, stream=True
        ):
            pass
    assert "upstream 'gpt'" in str(failed.value.message)
    response = await post(bridge, {"model": "gpt", "messages": USER, "stream": True})
    lines = [line for line in response.text.splitlines() if line.startswith("data: ")]
    assert response.status_code == 200
    error = json.loads(lines[-1][6:])["error"]
    # A stream cut mid-reply is an incomplete reply from a reachable upstream.
    assert error["code"] == "upstream_stream_cut"
    assert "before its final event" in error["message"]
    assert "[DONE]" not in response.text


@pytest.mark.parametrize("stream", [True, False])
async def test_client_disconnect_cancels_upstream(
    bridge: Any, fakes: dict[str, tuple[Fake, str]], stream: bool
) -> None:
    body = {"model": "gpt", "messages": USER, "stream": stream}
    url = f"{bridge.url}/v1/chat/completions"
    await leave_early_cancels_upstream(fakes["openai"][0], url, body)


async def test_access_log_and_no_secrets(
    client: Any, fakes: dict[str, tuple[Fake, str]], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="good_agent.server")
    await client.chat.completions.create(model="gpt", messages=USER)
    with pytest.raises(openai.APIStatusError):
        await client.chat.completions.create(model="wrong-key", messages=USER)
    await anyio.sleep(0.05)
    records = [r for r in caplog.records if r.name == "good_agent.server.access"]
    ok = next(r for r in records if getattr(r, "model", None) == "gpt")
    assert ok.__dict__["status"] == 200 and ok.__dict__["upstream"] == "openai:fake-gpt"
    assert ok.__dict__["input_tokens"] == 11 and ok.__dict__["latency_ms"] >= 0
    assert any(r.__dict__.get("status") == 403 for r in records)
    text = caplog.text + " ".join(str(r.__dict__) for r in caplog.records)
    for secret in (UPSTREAM_KEY, "sk-wrong-key-987654", CLIENT_KEY):
        assert secret not in text


def test_refuses_public_host_without_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    config = parse_config(
        {
            "server": {"api_keys_env": "GA_TEST_NO_SUCH_VAR"},
            "models": [{"name": "m", "provider": "openai", "model": "x"}],
        }
    )
    check_exposure(config, "127.0.0.1")
    check_exposure(config, "localhost")
    with pytest.raises(ConfigError, match=r"refusing to listen on 0\.0\.0\.0"):
        check_exposure(config, "0.0.0.0")
    monkeypatch.setenv("GA_TEST_NO_SUCH_VAR", "k1,k2")
    check_exposure(config, "0.0.0.0")
