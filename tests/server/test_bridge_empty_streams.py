"""A streamed upstream reply that holds no reply ends in an error, never in a finish.

The same rule as for a whole reply (502 ``upstream_invalid_reply``): a stream of
``{"choices": []}`` chunks, of ``data:`` lines that are JSON but not objects, or
with a tool-call ``index`` that is not an integer, is not an (empty) answer. Both
bridge endpoints are checked, over OpenAI-compatible and Anthropic upstreams, and
an agent streaming from such an upstream gets a clear error.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest
from bridge_fakes import RawFake, sse
from bridge_harness import CLIENT_KEY, USER

from good_agent import Agent, ModelError, ModelResponseError
from good_agent.models import OpenAIChatModel
from good_agent.models.provider_model import ProviderModel
from good_agent.providers.openai.http_transport import OpenAIHttpTransport
from good_agent.server.background import BackgroundServer

pytestmark = [pytest.mark.anyio, pytest.mark.both_paths]
AUTH = {"authorization": f"Bearer {CLIENT_KEY}"}


def chunk(choices: list[Any], **extra: Any) -> bytes:
    return sse({"id": "c", "object": "chat.completion.chunk", "choices": choices, **extra})


def bad_index(index: Any) -> bytes:
    call = {"index": index, "id": "call_1", "type": "function"}
    call["function"] = {"name": "f", "arguments": "{}"}
    start = chunk([{"index": 0, "delta": {"role": "assistant", "tool_calls": [call]}}])
    end = chunk([{"index": 0, "delta": {}, "finish_reason": "tool_calls"}])
    return start + end + sse("[DONE]")


OPENAI_STREAMS = {
    "no-choices": chunk([]) * 3 + sse("[DONE]"),
    "no-choices-with-usage": chunk([])
    + chunk([], usage={"prompt_tokens": 3, "completion_tokens": 0})
    + sse("[DONE]"),
    "number-lines": sse("42") + sse('"x"') + sse("[DONE]"),
    "number-line-among-chunks": chunk([{"index": 0, "delta": {"content": "Hi"}}])
    + sse("42")
    + chunk([{"index": 0, "delta": {}, "finish_reason": "stop"}])
    + sse("[DONE]"),
    "string-index": bad_index("x"),
    "list-index": bad_index([0]),
    "float-index": bad_index(0.5),
}


def anthropic_event(kind: str, **payload: Any) -> bytes:
    return sse({"type": kind, **payload}, kind)


START = anthropic_event(
    "message_start",
    message={
        "id": "m",
        "type": "message",
        "role": "assistant",
        "content": [],
        "model": "c",
        "usage": {"input_tokens": 3, "output_tokens": 0},
    },
)
ANTHROPIC_STREAMS = {
    "number-lines": sse("42") + sse('"x"') + anthropic_event("message_stop"),
    "number-line-after-start": START + sse("42") + anthropic_event("message_stop"),
}

CASES = [("gpt", name, body) for name, body in OPENAI_STREAMS.items()] + [
    ("claude", name, body) for name, body in ANTHROPIC_STREAMS.items()
]


@pytest.fixture
def upstream(raw: tuple[RawFake, BackgroundServer]) -> RawFake:
    raw[0].reset()
    raw[0].content_type = "text/event-stream"
    return raw[0]


def events_of(text: str) -> list[Any]:
    return [
        json.loads(line[6:]) if line[6:] != "[DONE]" else "[DONE]"
        for line in text.splitlines()
        if line.startswith("data: ")
    ]


def assert_failed(response: httpx2.Response, path: str) -> None:
    """A 502 before the stream, or a stream ending in an error event: no finish."""
    if response.status_code != 200:
        assert response.status_code == 502, response.text
        body = response.json()
        if path == "/v1/messages":
            assert "invalid reply" in body["error"]["message"]
        else:
            assert body["error"]["code"] == "upstream_invalid_reply"
        return
    events = events_of(response.text)
    assert "[DONE]" not in events
    for event in events:
        assert event.get("type") not in ("message_stop", "message_delta"), event
        for choice in event.get("choices") or []:
            assert not choice.get("finish_reason"), event
    last = events[-1]
    assert "error" in last, last
    if path == "/v1/messages":
        assert last["type"] == "error" and "invalid reply" in last["error"]["message"]
    else:
        assert last["error"]["code"] == "upstream_invalid_reply"


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/messages"])
@pytest.mark.parametrize(("model", "case", "body"), CASES, ids=[f"{m}-{c}" for m, c, _ in CASES])
async def test_a_stream_without_a_reply_ends_in_an_error(
    raw: tuple[RawFake, BackgroundServer],
    upstream: RawFake,
    path: str,
    model: str,
    case: str,
    body: bytes,
) -> None:
    upstream.body = body
    request = {"model": model, "messages": USER, "max_tokens": 50, "stream": True}
    async with httpx2.AsyncClient(timeout=30) as http:
        response = await http.post(f"{raw[1].url}{path}", json=request, headers=AUTH)
    assert upstream.requests == 1
    assert_failed(response, path)


async def test_the_unstreamed_twin_is_a_502(
    raw: tuple[RawFake, BackgroundServer], upstream: RawFake
) -> None:
    upstream.body, upstream.content_type = b'{"choices": []}', "application/json"
    request = {"model": "gpt", "messages": USER}
    async with httpx2.AsyncClient(timeout=30) as http:
        response = await http.post(f"{raw[1].url}/v1/chat/completions", json=request, headers=AUTH)
    assert response.status_code == 502
    assert response.json()["error"]["code"] == "upstream_invalid_reply"


def upstream_url(bridge: BackgroundServer) -> str:
    """Where the raw upstream behind the bridge's ``gpt`` route listens."""
    return str(bridge.server.config.app.state.bridge.routes["gpt"].entry.base_url)


@pytest.mark.parametrize("wire", ["http", "sdk"])
@pytest.mark.parametrize("case", ["no-choices", "number-lines", "string-index"])
async def test_an_agent_streaming_no_reply_gets_an_error(
    raw: tuple[RawFake, BackgroundServer], upstream: RawFake, case: str, wire: str
) -> None:
    upstream.body = OPENAI_STREAMS[case]
    url = upstream_url(raw[1])
    if wire == "http":
        transport = OpenAIHttpTransport("fake-gpt", base_url=url, api_key="unused")
        model: Any = ProviderModel("fake-gpt", transport, mode="native")
    else:
        model = OpenAIChatModel("fake-gpt", base_url=url, api_key="unused")
    agent = Agent("You answer.", model=model)
    with pytest.raises(ModelError) as failed:
        async with agent.stream("Hello") as run:
            async for _ in run:
                pass
    assert "openai" in str(failed.value)
    if wire == "http":
        assert isinstance(failed.value, ModelResponseError)
    await model.aclose() if hasattr(model, "aclose") else None


@pytest.mark.parametrize(
    ("model", "case", "started"),
    [
        ("gpt", "no-choices", False),
        ("gpt", "number-line-among-chunks", True),
        ("claude", "number-line-after-start", True),
    ],
)
async def test_sdk_clients_see_an_invalid_reply_in_their_own_error_shape(
    raw: tuple[RawFake, BackgroundServer], upstream: RawFake, model: str, case: str, started: bool
) -> None:
    """Nothing relayed yet: the 502 itself (the unstreamed twin's status and body).
    Once relayed: an error event, in Anthropic's shape on ``/v1/messages``
    (``event: error``, ``{"type": "error", "error": {"type": "api_error", ...}}``)."""
    import anthropic
    import openai

    upstream.body = (OPENAI_STREAMS | ANTHROPIC_STREAMS)[case]
    url = raw[1].url
    async with anthropic.AsyncAnthropic(base_url=url, api_key=CLIENT_KEY, max_retries=0) as claude:
        with pytest.raises(anthropic.APIStatusError) as failed:
            stream = await claude.messages.create(
                model=model, max_tokens=50, messages=USER, stream=True
            )
            async for event in stream:
                assert event.type not in ("message_delta", "message_stop"), event
    body: Any = failed.value.body
    assert body["type"] == "error" and body["error"]["type"] == "api_error", body
    assert "invalid reply" in body["error"]["message"]
    assert failed.value.status_code == (200 if started else 502)

    upstream.reset()
    upstream.content_type = "text/event-stream"
    upstream.body = (OPENAI_STREAMS | ANTHROPIC_STREAMS)[case]
    async with openai.AsyncOpenAI(base_url=f"{url}/v1", api_key=CLIENT_KEY, max_retries=0) as gpt:
        with pytest.raises(openai.APIError) as chat_failed:
            chunks = await gpt.chat.completions.create(model=model, messages=USER, stream=True)
            async for chunk in chunks:
                assert not any(c.finish_reason for c in chunk.choices), chunk
    assert "invalid reply" in chat_failed.value.message
    if not started:
        assert isinstance(chat_failed.value, openai.APIStatusError)
        assert chat_failed.value.status_code == 502
        assert chat_failed.value.code == "upstream_invalid_reply"
