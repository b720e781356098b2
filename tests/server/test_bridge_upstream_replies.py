"""Upstream problems are a 502 with the right cause; a remaining 500 carries its request id.

An upstream that answers 200 with HTML, an empty body or a reply of the wrong
shape ``sent an invalid reply`` (it was reached); an upstream error page is
summarized as its status and a short reason, never relayed. Client keys that are
blank refuse to start; an unexpected failure is logged once under the request id
the client sees.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import openai
import pytest
from bridge_fakes import UPSTREAM_KEY, RawFake
from bridge_harness import CLIENT_KEY, USER

from good_agent.server import ConfigError, create_app, parse_config
from good_agent.server.background import BackgroundServer
from good_agent.server.serve import check_exposure, run_command

pytestmark = pytest.mark.anyio
TRACEBACK = 'Traceback (most recent call last):\n  File "/srv/app.py", line 3, in run\nKeyError'
HTML_PAGE = (
    "<html><head><title>500 Internal Server Error</title></head><body><pre>"
    + TRACEBACK
    + " secret-internal-path /srv/app.py</pre></body></html>"
)


@pytest.fixture
def fake(raw: tuple[RawFake, BackgroundServer]) -> RawFake:
    raw[0].reset()
    return raw[0]


@pytest.fixture
async def client(raw: tuple[RawFake, BackgroundServer]) -> Any:
    async with openai.AsyncOpenAI(
        base_url=f"{raw[1].url}/v1", api_key=CLIENT_KEY, max_retries=0
    ) as client:
        yield client


async def ask(client: Any, *, stream: bool) -> openai.APIStatusError:
    with pytest.raises(openai.APIStatusError) as failed:
        reply = await client.chat.completions.create(model="gpt", messages=USER, stream=stream)
        if stream:
            async for _ in reply:
                pass
    return failed.value


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (HTML_PAGE.encode(), "text/html"),
        (b"", "application/json"),
        (b"[1, 2]", "application/json"),
        (b'{"choices": ["x"]}', "application/json"),
        (b'{"choices": [{"message": "x"}]}', "application/json"),
    ],
)
async def test_a_200_that_is_not_a_reply_is_an_invalid_reply(
    client: Any, fake: RawFake, body: bytes, content_type: str, stream: bool
) -> None:
    fake.body, fake.content_type = body, content_type
    if stream and content_type == "application/json" and body:
        fake.body = b"data: " + body + b"\n\n"
        fake.content_type = "text/event-stream"
    error = await ask(client, stream=stream)
    assert error.status_code == 502, error.message
    # A stream of events with no reply in them is also an incomplete reply.
    incomplete = stream and "ended before its final event" in error.message
    assert "invalid reply" in error.message or incomplete, error.message
    assert "cannot be reached" not in error.message
    assert "Traceback" not in error.message and "<html>" not in error.message
    assert fake.requests >= 1


@pytest.mark.parametrize("stream", [False, True])
async def test_a_tool_call_index_that_is_not_a_number(
    client: Any, fake: RawFake, stream: bool
) -> None:
    call = {"index": "zero", "id": "c1", "type": "function", "function": {"name": "f"}}
    chunk = {"id": "x", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    if stream:
        chunk["choices"] = [{"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": None}]
        end = {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}
        fake.content_type = "text/event-stream"
        fake.body = f"data: {json.dumps(chunk)}\n\ndata: {json.dumps(end)}\n\n".encode()
        # An index that is not an integer has no meaning: an invalid reply, as unstreamed.
        failed_stream = await ask(client, stream=True)
        assert failed_stream.status_code == 502
        assert "invalid reply" in failed_stream.message and "index" in failed_stream.message
        return
    broken = [{**call, "function": "f"}]
    message = {"role": "assistant", "content": None, "tool_calls": broken}
    fake.body = json.dumps(
        {**chunk, "object": "chat.completion", "choices": [{"message": message}]}
    ).encode()
    with pytest.raises(openai.APIStatusError) as failed:
        await client.chat.completions.create(model="gpt", messages=USER, tools=tools)
    assert failed.value.status_code == 502
    assert "invalid reply" in failed.value.message


async def test_a_stream_event_of_the_wrong_shape_is_an_invalid_reply(
    client: Any, fake: RawFake
) -> None:
    chunk = {"id": "x", "object": "chat.completion.chunk", "created": 1, "choices": ["x"]}
    fake.content_type = "text/event-stream"
    fake.body = f"data: {json.dumps(chunk)}\n\n".encode()
    error = await ask(client, stream=True)
    assert error.status_code == 502 and "invalid reply" in error.message


@pytest.mark.parametrize("stream", [False, True])
async def test_a_lone_surrogate_in_a_reply_is_replaced(
    client: Any, fake: RawFake, stream: bool
) -> None:
    choice: dict[str, Any] = {"index": 0, "finish_reason": "stop"}
    reply = {"id": "x", "object": "chat.completion", "created": 1, "model": "m"}
    if stream:
        choice["delta"] = {"role": "assistant", "content": "a\ud800b"}
        fake.content_type = "text/event-stream"
        fake.body = f"data: {json.dumps({**reply, 'choices': [choice]})}\n\n".encode()
        stream_reply = await client.chat.completions.create(model="gpt", messages=USER, stream=True)
        parts = [chunk.choices[0].delta.content async for chunk in stream_reply if chunk.choices]
        text = "".join(part or "" for part in parts)
    else:
        choice["message"] = {"role": "assistant", "content": "a\ud800b"}
        fake.body = json.dumps({**reply, "choices": [choice]}).encode()
        answer = await client.chat.completions.create(model="gpt", messages=USER)
        text = answer.choices[0].message.content
    assert text == "a\ufffdb"


@pytest.mark.parametrize("stream", [False, True])
async def test_an_upstream_error_page_is_summarized(
    client: Any, fake: RawFake, stream: bool
) -> None:
    fake.status, fake.body, fake.content_type = 500, HTML_PAGE.encode(), "text/html"
    error = await ask(client, stream=stream)
    assert error.status_code == 502
    assert "HTTP 500 Internal Server Error" in error.message
    for leaked in ("Traceback", "/srv/app.py", "<html", "secret-internal-path"):
        assert leaked not in error.message
    long = "overloaded: " + "x" * 2000
    fake.status, fake.content_type = 503, "application/json"
    fake.body = json.dumps({"error": {"message": long + "\n" + TRACEBACK}}).encode()
    error = await ask(client, stream=stream)
    assert error.status_code == 502
    assert "HTTP 503 Service Unavailable: overloaded: xxx" in error.message
    assert len(error.message) < 300 and "Traceback" not in error.message


async def test_messages_endpoint_reports_invalid_replies_in_its_own_shape(
    raw: tuple[RawFake, BackgroundServer], fake: RawFake
) -> None:
    fake.body, fake.content_type = b"<html>oops</html>", "text/html"
    async with anthropic.AsyncAnthropic(
        base_url=raw[1].url, api_key=CLIENT_KEY, max_retries=0
    ) as client:
        with pytest.raises(anthropic.APIStatusError) as failed:
            await client.messages.create(model="claude", max_tokens=10, messages=USER)
    assert failed.value.status_code == 502
    body = failed.value.body
    assert isinstance(body, dict) and body["type"] == "error"
    assert "invalid reply" in body["error"]["message"]
    assert body["request_id"] == failed.value.response.headers["x-request-id"]


@pytest.mark.parametrize("value", ["", "   ", "key-one, ,key-two", "key-one,", " , "])
def test_blank_client_keys_refuse_to_start(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("GA_TEST_BLANK_KEYS", value)
    config = parse_config(
        {
            "server": {"api_keys_env": "GA_TEST_BLANK_KEYS"},
            "models": [{"name": "m", "provider": "openai", "model": "x"}],
        }
    )
    with pytest.raises(ConfigError, match="GA_TEST_BLANK_KEYS"):
        create_app(config)
    with pytest.raises(ConfigError, match="blank"):
        check_exposure(config, "0.0.0.0")


def test_serve_with_a_blank_client_key_exits(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GA_TEST_BLANK_KEYS", "  ")
    config = tmp_path / "bridge.toml"
    config.write_text(
        '[server]\napi_keys_env = "GA_TEST_BLANK_KEYS"\n'
        '[[models]]\nname = "m"\nprovider = "openai"\nmodel = "x"\n'
    )
    assert run_command(str(config), port=0) == 1
    assert "GA_TEST_BLANK_KEYS is blank" in capsys.readouterr().err


@pytest.mark.parametrize("pass_through", [False], indirect=True)  # its writer is broken
async def test_an_unexpected_failure_is_a_500_with_its_request_id(
    raw: tuple[RawFake, BackgroundServer],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    from good_agent.server.chat import endpoint as app_module

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug in the bridge")

    caplog.set_level(logging.INFO, logger="good_agent.server")
    monkeypatch.setattr(app_module, "completion_body", broken)
    raw[0].body = json.dumps(
        {
            "id": "x",
            "object": "chat.completion",
            "created": 1,
            "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}}],
        }
    ).encode()
    async with httpx2.AsyncClient(timeout=10) as http:
        response = await http.post(
            f"{raw[1].url}/v1/chat/completions",
            headers={"authorization": f"Bearer {CLIENT_KEY}"},
            json={"model": "gpt", "messages": USER},
        )
    assert response.status_code == 500
    request_id = response.headers["x-request-id"]
    error = response.json()["error"]
    assert error["type"] == "server_error" and request_id in error["message"]
    assert "a bug in the bridge" not in error["message"]
    failures = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(failures) == 1 and request_id in failures[0].getMessage()
    assert failures[0].exc_info is not None
    access = [r for r in caplog.records if r.name == "good_agent.server.access"]
    assert [r.__dict__["request_id"] for r in access] == [request_id]
    assert access[0].__dict__["status"] == 500
    assert UPSTREAM_KEY not in caplog.text


@pytest.mark.parametrize("pass_through", [False], indirect=True)  # its writer is broken
async def test_an_unexpected_failure_mid_stream_names_its_request_id(
    raw: tuple[RawFake, BackgroundServer],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    from good_agent.server.chat.wire import ChunkWriter

    def broken(self: Any, text: str) -> bytes:
        raise RuntimeError("a bug in the bridge")

    caplog.set_level(logging.INFO, logger="good_agent.server")
    monkeypatch.setattr(ChunkWriter, "text", broken)
    chunk = {"id": "x", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    chunk["choices"] = [{"index": 0, "delta": {"content": "hi"}, "finish_reason": "stop"}]
    raw[0].content_type = "text/event-stream"
    raw[0].body = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()
    async with httpx2.AsyncClient(timeout=10) as http:
        response = await http.post(
            f"{raw[1].url}/v1/chat/completions",
            headers={"authorization": f"Bearer {CLIENT_KEY}"},
            json={"model": "gpt", "messages": USER, "stream": True},
        )
    request_id = response.headers["x-request-id"]
    last = [line for line in response.text.splitlines() if line.startswith("data: ")][-1]
    error = json.loads(last[6:])["error"]
    assert error["type"] == "server_error" and request_id in error["message"]
    failures = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(failures) == 1 and request_id in failures[0].getMessage()
    access = [r for r in caplog.records if r.name == "good_agent.server.access"]
    assert [(r.__dict__["request_id"], r.__dict__["status"]) for r in access] == [(request_id, 500)]
