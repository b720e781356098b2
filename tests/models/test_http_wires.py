"""The two HTTP clients under the HTTP transports behave alike: big events, errors."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx2
import pytest
from bridge_fakes import UPSTREAM_KEY, OpenAIFake, Reply

from good_agent.http.http1_wire import Http1Wire
from good_agent.http.wire import AiohttpWire, HttpxWire, Wire
from good_agent.models import ModelRequest, ModelResponse
from good_agent.models.provider_model import ProviderModel
from good_agent.providers.openai.http_transport import OpenAIHttpTransport
from good_agent.server.background import BackgroundServer
from good_agent.types.errors import (
    ModelConnectionError,
    ModelIncompleteStreamError,
    ModelTimeoutError,
)
from good_agent.types.messages import UserMessage

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def upstream() -> Iterator[tuple[OpenAIFake, str]]:
    fake = OpenAIFake()
    server = BackgroundServer(fake.app()).start()
    yield fake, server.url
    server.stop()


def make_wire(kind: str) -> Wire:
    if kind == "aiohttp":
        return AiohttpWire(connect_timeout=2.0, read_timeout=5.0)
    if kind == "http1":
        return Http1Wire(connect_timeout=2.0, read_timeout=5.0)
    return HttpxWire(httpx2.AsyncClient(), httpx2.Timeout(5.0, connect=2.0))


def model_on(wire: Wire, base_url: str) -> ProviderModel:
    transport = OpenAIHttpTransport("fake-gpt", base_url=base_url, api_key=UPSTREAM_KEY, wire=wire)
    return ProviderModel("openai:fake-gpt", transport, mode="native")


async def streamed(model: ProviderModel) -> ModelResponse:
    final = None
    async for item in model.stream(ModelRequest([UserMessage(content="Hi")])):
        if isinstance(item, ModelResponse):
            final = item
    assert final is not None
    return final


@pytest.mark.parametrize("kind", ["httpx", "aiohttp", "http1"])
async def test_an_event_longer_than_the_line_limit_of_aiohttp_arrives_whole(
    kind: str, upstream: tuple[OpenAIFake, str]
) -> None:
    fake, url = upstream
    fake.reset()
    long_text = "x" * 9_000_000
    fake.reply = Reply(text=long_text)
    fake.chunk_size = len(long_text)  # the whole text in one event
    wire = make_wire(kind)
    try:
        reply = await streamed(model_on(wire, f"{url}/v1"))
    finally:
        await wire.aclose()
    assert reply.content == long_text


@pytest.mark.parametrize("kind", ["httpx", "aiohttp", "http1"])
async def test_a_refused_connection_names_the_url(kind: str) -> None:
    wire = make_wire(kind)
    try:
        with pytest.raises(ModelConnectionError, match=r"127\.0\.0\.1:9/v1/chat/completions"):
            await model_on(wire, "http://127.0.0.1:9/v1").request(
                ModelRequest([UserMessage(content="Hi")])
            )
    finally:
        await wire.aclose()


@pytest.mark.parametrize("kind", ["httpx", "aiohttp", "http1"])
async def test_a_stream_cut_mid_reply_is_incomplete(
    kind: str, upstream: tuple[OpenAIFake, str]
) -> None:
    fake, url = upstream
    fake.reset()
    fake.reply = Reply(text="a long answer that will not finish " * 3)
    fake.break_after = 4
    wire = make_wire(kind)
    try:
        with pytest.raises(ModelIncompleteStreamError, match="before its final event"):
            await streamed(model_on(wire, f"{url}/v1"))
    finally:
        await wire.aclose()


@pytest.mark.parametrize("kind", ["aiohttp", "http1"])
async def test_a_wire_ends_a_reply_that_outlasts_its_whole_time_limit(
    kind: str, upstream: tuple[OpenAIFake, str]
) -> None:
    fake, url = upstream
    fake.reset()
    fake.reply = Reply(text="slow words " * 20)
    fake.chunk_delay = 0.2  # about 12 s in all
    wire = make_wire(kind)
    transport = OpenAIHttpTransport(
        "fake-gpt", base_url=f"{url}/v1", api_key=UPSTREAM_KEY, wire=wire, stream_timeout=1.0
    )
    assert transport.limits_streams
    model = ProviderModel("openai:fake-gpt", transport, mode="native")
    started = time.monotonic()
    try:
        with pytest.raises(ModelTimeoutError, match="took longer than 1 s"):
            await streamed(model)
    finally:
        await wire.aclose()
    assert time.monotonic() - started < 4


async def test_httpx_leaves_the_whole_reply_limit_to_its_caller() -> None:
    client = httpx2.AsyncClient()
    transport = OpenAIHttpTransport(
        "m", wire=HttpxWire(client, httpx2.Timeout(5.0)), stream_timeout=1.0
    )
    try:
        assert not transport.limits_streams
        with pytest.raises(ValueError, match="cannot limit"):
            async with transport.wire.stream(
                "http://127.0.0.1:9", b"{}", {}, provider="x", total=1
            ):
                pass
    finally:
        await client.aclose()


def test_aiohttp_wire_without_aiohttp_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from good_agent._extras import MissingExtraError

    monkeypatch.setitem(sys.modules, "aiohttp", None)  # import aiohttp now fails
    with pytest.raises(MissingExtraError, match="server"):
        AiohttpWire()
