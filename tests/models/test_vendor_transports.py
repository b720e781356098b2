"""One transport per vendor: a model built in code and a bridge route to the same upstream
build the same HTTP transport class; an official SDK client is an option; a given
``httpx2.AsyncClient`` carries the requests; one pooled client per model, closed by
``aclose``; status errors name the URL, never the key."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anthropic
import httpx2
import openai
import pytest
from bridge_fakes import UPSTREAM_KEY
from google import genai
from google.genai import types
from vendor_models import Vendors, vendor_model

from good_agent import resolve_model
from good_agent.http.http_transport import HttpTransport
from good_agent.models import ModelRequest
from good_agent.models.provider_model import ProviderModel
from good_agent.models.vendors import AnthropicModel, GeminiModel, OllamaModel, OpenAIChatModel
from good_agent.providers.anthropic.sdk_transport import AnthropicTransport
from good_agent.providers.builtin_transports import HTTP_TRANSPORTS
from good_agent.providers.gemini.sdk_transport import GeminiTransport
from good_agent.providers.openai.sdk_transport import OpenAIClientTransport
from good_agent.server.config import ModelConfig, ServerConfig
from good_agent.server.served import build_transport
from good_agent.types.errors import ModelConfigError, ModelOverloadedError
from good_agent.types.messages import UserMessage

pytestmark = pytest.mark.anyio

REQUEST = ModelRequest(messages=[UserMessage(content="Say hello.")])
Start = Callable[[list[Any]], Any]


@pytest.mark.parametrize("provider", sorted(HTTP_TRANSPORTS))
async def test_a_model_and_a_bridge_route_build_the_same_transport(provider: str) -> None:
    url = "http://127.0.0.1:9/v1"
    model = resolve_model(f"{provider}:some-model", base_url=url, api_key="k")
    entry = ModelConfig(name="m", provider=provider, model="some-model", base_url=url)
    async with httpx2.AsyncClient() as client:
        route, profile_provider = build_transport(entry, ServerConfig(), client)
    assert isinstance(model, ProviderModel)
    assert type(model.transport) is type(route) is HTTP_TRANSPORTS[provider]
    assert model.profile.provider == profile_provider


@pytest.mark.parametrize("kind", ["openai", "anthropic", "gemini"])
async def test_an_sdk_client_is_an_option_sent_through_the_real_sdk(
    kind: str, vendors: Vendors
) -> None:
    fake, url = vendors[kind]
    client: Any
    if kind == "openai":
        client = openai.AsyncOpenAI(base_url=f"{url}/v1", api_key=UPSTREAM_KEY)
        model: ProviderModel = OpenAIChatModel("gpt-4.1", client=client)
        sdk: type = OpenAIClientTransport
    elif kind == "anthropic":
        client = anthropic.AsyncAnthropic(base_url=url, api_key=UPSTREAM_KEY)
        model = AnthropicModel("claude-test", client=client)
        sdk = AnthropicTransport
    else:
        options = types.HttpOptions(base_url=url, api_version="v1beta")
        client = genai.Client(api_key=UPSTREAM_KEY, http_options=options)
        model = GeminiModel("gemini-2.5-flash", client=client)
        sdk = GeminiTransport
    assert isinstance(model.transport, sdk)
    try:
        whole = await model.request(REQUEST)
        items = [item async for item in model.stream(REQUEST)]
        await model.aclose()
    finally:  # the client is the caller's to close
        if kind == "gemini":
            await client.aio.aclose()
            client.close()
        else:
            await client.close()
    assert whole.content == "Hello from the fake." == getattr(items[-1], "content", None)
    assert len(fake.requests) == 2 and not fake.problems


@pytest.mark.parametrize("kind", ["openai", "anthropic", "gemini", "ollama"])
async def test_a_given_httpx_client_carries_the_requests(kind: str, vendors: Vendors) -> None:
    fake, url = vendors[kind]
    sent: list[str] = []

    async def record(request: httpx2.Request) -> None:
        sent.append(str(request.url))

    async with httpx2.AsyncClient(event_hooks={"request": [record]}) as client:
        given = vendor_model(kind, url, client=client)
        assert isinstance(given.transport, HTTP_TRANSPORTS[kind])
        assert (await given.request(REQUEST)).content == "Hello from the fake."
        await given.aclose()
        assert not client.is_closed  # the caller's client stays open
        assert (await given.request(REQUEST)).content == "Hello from the fake."
    assert len(sent) == 2 and all(s.startswith(url) for s in sent)
    assert not fake.problems


async def test_one_pooled_client_per_model_closed_by_aclose(vendors: Vendors) -> None:
    _, url = vendors["openai"]
    model = vendor_model("openai", url)
    transport = model.transport
    assert isinstance(transport, HttpTransport)
    await model.request(REQUEST)
    client = transport.client
    await model.request(REQUEST)
    assert transport.client is client and not client.is_closed
    await model.aclose()
    assert client.is_closed
    # Used again after aclose, the model opens a new pool.
    assert (await model.request(REQUEST)).content == "Hello from the fake."
    assert transport.client is not client
    await model.aclose()


async def test_a_status_error_names_the_url_and_not_the_key(fake_upstream: Start) -> None:
    upstream = fake_upstream([(503, {"error": {"message": "busy"}})])
    secret = "sk-secret-in-a-test-0123456789"
    model = OpenAIChatModel("m", base_url=f"{upstream.url}/v1", api_key=secret, max_retries=0)
    with pytest.raises(ModelOverloadedError) as caught:
        await model.request(REQUEST)
    await model.aclose()
    message = str(caught.value)
    assert f"for {upstream.url}/v1/chat/completions: busy" in message
    assert secret not in message and secret not in repr(caught.value.body)


async def test_user_info_in_a_base_url_is_not_shown(fake_upstream: Start) -> None:
    upstream = fake_upstream([(500, {"error": {"message": "broken"}})])
    host = upstream.url.removeprefix("http://")
    model = OpenAIChatModel("m", base_url=f"http://user:pa55word@{host}/v1", max_retries=0)
    with pytest.raises(ModelOverloadedError) as caught:
        await model.request(REQUEST)
    await model.aclose()
    assert "pa55word" not in str(caught.value)
    assert f"http://{host}/v1/chat/completions" in str(caught.value)


@pytest.mark.parametrize(
    ("name", "variable"),
    [
        ("gpt-4o-mini", "OPENAI_API_KEY"),
        ("openai-responses:gpt-4.1", "OPENAI_API_KEY"),
        ("claude-sonnet-4-6", "ANTHROPIC_API_KEY"),
        ("gemini-2.5-flash", "GEMINI_API_KEY"),
    ],
)
async def test_a_missing_key_names_its_variable_before_anything_is_sent(
    name: str, variable: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for env in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "GOOGLE_GEMINI_BASE_URL",
    ):
        monkeypatch.delenv(env, raising=False)
    model = resolve_model(name)
    with pytest.raises(ModelConfigError, match=variable):
        await model.request(REQUEST)
    with pytest.raises(ModelConfigError, match=variable):
        async for _ in model.stream(REQUEST):
            pass


async def test_a_client_of_another_kind_is_refused() -> None:
    with pytest.raises(ModelConfigError, match=r"httpx2\.AsyncClient"):
        OllamaModel("qwen2.5", client=object())
