"""The HTTP transports' retries, counted at loopback upstreams: which failures are sent
again, how long the transport waits (the server's ``retry-after-ms`` / ``Retry-After``,
else a backoff), how many times, and never once a stream has begun."""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import httpx2
import pytest

from good_agent.http.http_transport import HttpTransport
from good_agent.http.retries import Retries
from good_agent.providers.openai.http_transport import OpenAIHttpTransport
from good_agent.server.config import ModelConfig, ServerConfig
from good_agent.server.served import build_transport
from good_agent.types.errors import (
    ModelConnectionError,
    ModelIncompleteStreamError,
    ModelOverloadedError,
    ModelRateLimitError,
)

pytestmark = pytest.mark.anyio

Start = Callable[[list[Any]], Any]
BODY = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
BUSY = (503, {"error": {"message": "overloaded"}})
OK = (
    200,
    {
        "id": "c",
        "object": "chat.completion",
        "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}}],
    },
)


class Sleeps:
    """Records the waits asked for instead of sleeping."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def transport(url: str, sleeps: Sleeps, retries: int = 2, **policy: Any) -> HttpTransport:
    return OpenAIHttpTransport(
        "m", base_url=url, api_key="k", max_retries=Retries(retries, sleep=sleeps, **policy)
    )


def sse(*events: dict[str, Any]) -> bytes:
    return b"".join(f"data: {json.dumps(e)}\n\n".encode() for e in events) + b"data: [DONE]\n\n"


CHUNK = {"id": "c", "object": "chat.completion.chunk", "choices": []}
STREAM = {"content-type": "text/event-stream"}


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 504, 529])
async def test_a_retryable_status_is_sent_again(status: int, fake_upstream: Start) -> None:
    upstream = fake_upstream([(status, {"error": {"message": "try again"}}), OK])
    sleeps = Sleeps()
    sent = transport(upstream.url, sleeps)
    try:
        reply = await sent.send(BODY)
    finally:
        await sent.aclose()
    assert reply["choices"][0]["message"]["content"] == "hi"
    assert len(upstream.bodies) == 2 and upstream.bodies[0] == upstream.bodies[1]
    assert len(sleeps.waits) == 1


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
async def test_a_request_the_server_refused_is_not_sent_again(
    status: int, fake_upstream: Start
) -> None:
    upstream = fake_upstream([(status, {"error": {"message": "no"}}), OK])
    sleeps = Sleeps()
    sent = transport(upstream.url, sleeps)
    with pytest.raises(Exception, match=f"HTTP {status}"):
        await sent.send(BODY)
    await sent.aclose()
    assert len(upstream.bodies) == 1 and sleeps.waits == []


async def test_max_retries_bounds_the_attempts_and_the_last_error_is_raised(
    fake_upstream: Start,
) -> None:
    upstream = fake_upstream([BUSY] * 5)
    sleeps = Sleeps()
    sent = transport(upstream.url, sleeps, backoff=0.5, max_backoff=8.0)
    with pytest.raises(ModelOverloadedError, match="HTTP 503"):
        await sent.send(BODY)
    assert len(upstream.bodies) == 3  # the default: 2 retries, as the vendors' SDKs
    assert len(sleeps.waits) == 2 and all(0.5 <= w <= 8.0 for w in sleeps.waits)
    assert OpenAIHttpTransport("m").retries.max_retries == 2


@pytest.mark.parametrize(
    ("headers", "wait"),
    [
        ({"retry-after-ms": "250"}, 0.25),
        ({"retry-after": "3"}, 3.0),
        ({"retry-after-ms": "40", "retry-after": "9"}, 0.04),
    ],
)
async def test_the_server_says_how_long_to_wait(
    headers: dict[str, str], wait: float, fake_upstream: Start
) -> None:
    upstream = fake_upstream([(429, {"error": {"message": "slow down"}}, headers), OK])
    sleeps = Sleeps()
    sent = transport(upstream.url, sleeps, backoff=30.0, max_backoff=30.0)
    await sent.send(BODY)
    await sent.aclose()
    assert sleeps.waits == [pytest.approx(wait)]


async def test_an_http_date_retry_after_and_a_too_long_one(fake_upstream: Start) -> None:
    soon = format_datetime(datetime.now(UTC) + timedelta(seconds=20), usegmt=True)
    upstream = fake_upstream(
        [(503, {}, {"retry-after": soon}), (503, {}, {"retry-after": "3600"}), OK]
    )
    sleeps = Sleeps()
    sent = transport(upstream.url, sleeps, backoff=0.5, max_backoff=1.0)
    await sent.send(BODY)
    await sent.aclose()
    assert 15 <= sleeps.waits[0] <= 20
    # An hour is more than max_retry_after: the backoff applies instead.
    assert 0.5 <= sleeps.waits[1] <= 1.0


async def test_the_last_error_keeps_the_wait_the_server_asked_for(fake_upstream: Start) -> None:
    upstream = fake_upstream([(429, {"error": {"message": "slow"}}, {"retry-after-ms": "1500"})])
    sent = transport(upstream.url, Sleeps(), retries=0)
    with pytest.raises(ModelRateLimitError) as caught:
        await sent.send(BODY)
    assert caught.value.retry_after == 1.5


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_a_server_that_cannot_be_reached_is_tried_again() -> None:
    sleeps = Sleeps()
    url = f"http://127.0.0.1:{closed_port()}/v1"
    sent = transport(url, sleeps)
    with pytest.raises(ModelConnectionError, match=f"at {url}/chat/completions"):
        await sent.send(BODY)
    assert len(sleeps.waits) == 2


async def test_a_stream_is_retried_until_it_began(fake_upstream: Start) -> None:
    upstream = fake_upstream([BUSY, (200, sse(CHUNK, CHUNK), STREAM)])
    sleeps = Sleeps()
    sent = transport(upstream.url, sleeps)
    events = [event async for event in sent.stream(BODY)]
    await sent.aclose()
    assert len(events) == 3 and len(upstream.bodies) == 2 and len(sleeps.waits) == 1


async def test_a_stream_cut_after_its_first_event_is_not_sent_again(
    fake_upstream: Start,
) -> None:
    begun = sse(CHUNK)[: -len(b"data: [DONE]\n\n")]
    # The reply promises more than it sends: the connection ends mid-body.
    cut = (200, begun, {**STREAM, "content-length": str(len(begun) + 100)})
    upstream = fake_upstream([cut, (200, sse(CHUNK), STREAM)])
    sleeps = Sleeps()
    sent = transport(upstream.url, sleeps)
    seen: list[Any] = []
    with pytest.raises(ModelIncompleteStreamError):
        async for event in sent.stream(BODY):
            seen.append(event)
    await sent.aclose()
    assert seen == [CHUNK] and len(upstream.bodies) == 1 and sleeps.waits == []


async def test_one_attempt_sends_once_and_keeps_the_original_retrying(
    fake_upstream: Start,
) -> None:
    upstream = fake_upstream([BUSY, BUSY, OK])
    sleeps = Sleeps()
    sent = transport(upstream.url, sleeps)
    with pytest.raises(ModelOverloadedError):
        await sent.one_attempt().send(BODY)
    assert len(upstream.bodies) == 1
    await sent.send(BODY)
    assert len(upstream.bodies) == 3 and len(sleeps.waits) == 1
    await sent.aclose()


async def test_a_bridge_route_sends_once(fake_upstream: Start) -> None:
    """The bridge keeps its behaviour: its routes do not retry (its clients may)."""
    upstream = fake_upstream([BUSY, OK])
    entry = ModelConfig(name="m", provider="openai", model="m", base_url=upstream.url)
    async with httpx2.AsyncClient() as client:
        route, _ = build_transport(entry, ServerConfig(), client)
        assert isinstance(route, HttpTransport)
        with pytest.raises(ModelOverloadedError):
            await route.send(BODY)
    assert len(upstream.bodies) == 1
