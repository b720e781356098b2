"""Pooled upstream connections are reused by streamed requests.

Each TCP connection reaches the server from its own client port, so the set of
client addresses the loopback fake sees counts the connections opened.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from bridge_fakes import UPSTREAM_KEY, AnthropicFake, Fake, OllamaFake, OpenAIFake, Reply

from good_agent.http.http1_wire import Http1Wire
from good_agent.http.http_transport import HttpTransport
from good_agent.http.wire import AiohttpWire, Wire
from good_agent.models import (
    AnthropicModel,
    ModelRequest,
    ModelResponse,
    OllamaModel,
    OpenAIChatModel,
)
from good_agent.models.provider_model import ProviderModel
from good_agent.providers.anthropic.http_transport import AnthropicHttpTransport
from good_agent.providers.ollama.http_transport import OllamaHttpTransport
from good_agent.providers.openai.http_transport import OpenAIHttpTransport
from good_agent.server.background import BackgroundServer
from good_agent.types.messages import UserMessage

pytestmark = pytest.mark.anyio


class ConnectionCounter:
    """ASGI middleware recording the client address of every request."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.clients: set[tuple[str, int]] = set()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            self.clients.add(tuple(scope["client"]))  # type: ignore[arg-type]
        await self.app(scope, receive, send)


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, tuple[Fake, ConnectionCounter, str]]]:
    fakes: dict[str, Fake] = {
        "openai": OpenAIFake(),
        "anthropic": AnthropicFake(),
        "ollama": OllamaFake(),
    }
    out: dict[str, tuple[Fake, ConnectionCounter, str]] = {}
    running = []
    for name, fake in fakes.items():
        counter = ConnectionCounter(fake.app())
        server = BackgroundServer(counter).start()
        running.append(server)
        out[name] = (fake, counter, server.url)
    yield out
    for server in running:
        server.stop()


def sdk_model(kind: str, url: str) -> ProviderModel:
    if kind == "openai":
        return OpenAIChatModel("fake-gpt", base_url=f"{url}/v1", api_key=UPSTREAM_KEY)
    if kind == "anthropic":
        return AnthropicModel("claude-test", base_url=url, api_key=UPSTREAM_KEY)
    return OllamaModel("qwen2.5", base_url=url, api_key=UPSTREAM_KEY, mode="native")


def http_model(
    kind: str, url: str, client: httpx2.AsyncClient, wire: Wire | None = None
) -> ProviderModel:
    transports: dict[str, tuple[type[HttpTransport], str, str]] = {
        "openai": (OpenAIHttpTransport, f"{url}/v1", "openai:fake-gpt"),
        "anthropic": (AnthropicHttpTransport, url, "anthropic:claude-test"),
        "ollama": (OllamaHttpTransport, url, "ollama:qwen2.5"),
    }
    factory, base, name = transports[kind]
    transport = factory(
        name.split(":")[1], base_url=base, api_key=UPSTREAM_KEY, client=client, wire=wire
    )
    return ProviderModel(name, transport, mode="native")


async def stream_text(model: ProviderModel) -> str | None:
    request = ModelRequest([UserMessage(content="Hello?")])
    final = None
    async for item in model.stream(request):
        if isinstance(item, ModelResponse):
            final = item
    assert final is not None
    return final.content


@pytest.mark.parametrize("kind", ["openai", "anthropic", "ollama"])
@pytest.mark.parametrize("via", ["sdk", "http", "aiohttp", "http1"])
async def test_streamed_requests_reuse_one_connection(
    kind: str, via: str, servers: dict[str, tuple[Fake, ConnectionCounter, str]]
) -> None:
    fake, counter, url = servers[kind]
    fake.reset()
    fake.reply = Reply(text="A streamed answer in several chunks.")
    counter.clients.clear()
    client = httpx2.AsyncClient()
    wire: Wire | None = None
    if via == "aiohttp":
        wire = AiohttpWire()
    elif via == "http1":
        wire = Http1Wire()
    model = sdk_model(kind, url) if via == "sdk" else http_model(kind, url, client, wire)
    try:
        for _ in range(5):
            assert await stream_text(model) == "A streamed answer in several chunks."
        # A non-streamed request on the same pool takes the same connection too.
        whole = await model.request(ModelRequest([UserMessage(content="Hello?")]))
        assert whole.content == "A streamed answer in several chunks."
    finally:
        await model.aclose()
        await client.aclose()
        if wire is not None:
            await wire.aclose()
    assert fake.completed_streams == 5
    assert len(counter.clients) == 1, f"{len(counter.clients)} connections for 6 requests"
