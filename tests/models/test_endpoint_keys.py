"""A vendor's key goes only to that vendor; a base_url must name its scheme.

Each request goes to a loopback upstream that records its headers, with the vendor's
environment key set to a canary: a model given another ``base_url`` must never send it,
on the agent's path (the official SDK clients) nor on the bridge's (the HTTP transports).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any
from unittest import mock

import httpx2
import pytest
from hypothesis import given
from hypothesis import strategies as st

from good_agent import Agent, ModelConfigError
from good_agent.http.endpoint import Endpoint, resolve_endpoint
from good_agent.models import AnthropicModel, GeminiModel, OllamaModel, resolve_model
from good_agent.models.base import ModelRequest
from good_agent.providers.openai.http_transport import OpenAIHttpTransport
from good_agent.providers.registry import vendor_hosts
from good_agent.server.config import ModelConfig, ServerConfig
from good_agent.server.served import ServedModel
from good_agent.types.messages import UserMessage

VENDOR_HOSTS = vendor_hosts()
"""The host of each registered provider's own API (a view of the vendor registry)."""

CANARY = "sk-canary-env-key-0123456789"

OPENAI_REPLY = {
    "id": "c",
    "object": "chat.completion",
    "created": 0,
    "model": "m",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}
    ],
}
ANTHROPIC_REPLY = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-x",
    "content": [{"type": "text", "text": "hi"}],
    "stop_reason": "end_turn",
    "usage": {"input_tokens": 1, "output_tokens": 1},
}
GEMINI_REPLY = {
    "candidates": [
        {"content": {"role": "model", "parts": [{"text": "hi"}]}, "finishReason": "STOP"}
    ],
    "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1},
}
OLLAMA_REPLY = {
    "model": "qwen",
    "message": {"role": "assistant", "content": "hi"},
    "done": True,
    "done_reason": "stop",
}

# vendor: (model name for resolve_model, key variables, base-url variable, reply)
VENDORS: dict[str, tuple[str, tuple[str, ...], str, dict[str, Any]]] = {
    "openai": ("openai:gpt-4o-mini", ("OPENAI_API_KEY",), "OPENAI_BASE_URL", OPENAI_REPLY),
    "anthropic": (
        "anthropic:claude-sonnet-4-6",
        ("ANTHROPIC_API_KEY",),
        "ANTHROPIC_BASE_URL",
        ANTHROPIC_REPLY,
    ),
    "gemini": (
        "gemini:gemini-2.5-flash",
        ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
        "GOOGLE_GEMINI_BASE_URL",
        GEMINI_REPLY,
    ),
}

Start = Callable[[list[Any]], Any]
REQUEST = ModelRequest(messages=[UserMessage(content="hi")])


def canary_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every vendor key variable holds the canary; no base-url variable is set."""
    for names in (v[1] for v in VENDORS.values()):
        for name in names:
            monkeypatch.setenv(name, CANARY)
    for url_env in (v[2] for v in VENDORS.values()):
        monkeypatch.delenv(url_env, raising=False)
    monkeypatch.setenv("OLLAMA_API_KEY", CANARY)
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)


def sent_values(upstream: Any) -> list[str]:
    """Every header value the upstream received."""
    assert upstream.headers, "the upstream received no request"
    return [value for headers in upstream.headers for value in headers.values()]


def assert_no_canary(upstream: Any) -> None:
    assert not [v for v in sent_values(upstream) if CANARY in v]


@pytest.mark.anyio
@pytest.mark.parametrize("vendor", list(VENDORS))
async def test_an_agent_with_a_custom_base_url_never_sends_the_env_key(
    vendor: str, monkeypatch: pytest.MonkeyPatch, fake_upstream: Start
) -> None:
    canary_env(monkeypatch)
    name, _, _, reply = VENDORS[vendor]
    upstream = fake_upstream([(200, reply)])
    agent = Agent(model=name, base_url=upstream.url)
    assert (await agent.call("hi")).content == "hi"
    assert_no_canary(upstream)


@pytest.mark.anyio
@pytest.mark.parametrize("vendor", list(VENDORS))
async def test_a_given_key_goes_to_the_given_base_url(
    vendor: str, monkeypatch: pytest.MonkeyPatch, fake_upstream: Start
) -> None:
    canary_env(monkeypatch)
    name, _, _, reply = VENDORS[vendor]
    upstream = fake_upstream([(200, reply)])
    model = resolve_model(name, base_url=upstream.url, api_key="given-key-42")
    assert (await model.request(REQUEST)).content == "hi"
    assert any("given-key-42" in v for v in sent_values(upstream))
    assert_no_canary(upstream)


@pytest.mark.anyio
@pytest.mark.parametrize("vendor", list(VENDORS))
async def test_the_env_key_goes_with_the_env_base_url(
    vendor: str, monkeypatch: pytest.MonkeyPatch, fake_upstream: Start
) -> None:
    """The vendor's own variables, set together, pair the endpoint and its key."""
    canary_env(monkeypatch)
    name, _, url_env, reply = VENDORS[vendor]
    upstream = fake_upstream([(200, reply)])
    monkeypatch.setenv(url_env, upstream.url)
    assert (await resolve_model(name).request(REQUEST)).content == "hi"
    assert any(CANARY in v for v in sent_values(upstream))


@pytest.mark.anyio
async def test_a_given_sdk_client_keeps_its_own_key(
    monkeypatch: pytest.MonkeyPatch, fake_upstream: Start
) -> None:
    from openai import AsyncOpenAI

    from good_agent.models import OpenAIChatModel

    canary_env(monkeypatch)
    upstream = fake_upstream([(200, OPENAI_REPLY)])
    client = AsyncOpenAI(base_url=upstream.url, api_key="client-key-7")
    assert (await OpenAIChatModel("gpt-4o-mini", client=client).request(REQUEST)).content == "hi"
    assert upstream.headers[0]["authorization"] == "Bearer client-key-7"


@pytest.mark.anyio
async def test_ollama_sends_its_env_key_only_to_ollama_com(
    monkeypatch: pytest.MonkeyPatch, fake_upstream: Start
) -> None:
    canary_env(monkeypatch)
    upstream = fake_upstream([(200, OLLAMA_REPLY)])
    async with httpx2.AsyncClient() as client:
        model = OllamaModel("qwen", base_url=upstream.url, client=client)
        assert (await model.request(REQUEST)).content == "hi"
    assert_no_canary(upstream)
    assert OllamaModel("qwen", base_url="https://ollama.com").transport.api_key == CANARY  # type: ignore[attr-defined]
    assert OllamaModel("qwen").transport.api_key == CANARY  # type: ignore[attr-defined]


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("provider", "model", "reply"),
    [
        ("openai", "gpt-4o-mini", OPENAI_REPLY),
        ("anthropic", "claude-sonnet-4-6", ANTHROPIC_REPLY),
        ("gemini", "gemini-2.5-flash", GEMINI_REPLY),
        ("ollama", "qwen2.5", OLLAMA_REPLY),
    ],
)
async def test_a_bridge_entry_never_sends_an_env_key_it_does_not_name(
    provider: str,
    model: str,
    reply: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
    fake_upstream: Start,
) -> None:
    canary_env(monkeypatch)
    upstream = fake_upstream([(200, reply)])
    entry = ModelConfig(name="m", provider=provider, model=model, base_url=upstream.url)
    async with httpx2.AsyncClient() as client:
        served = ServedModel(entry, ServerConfig(), client)
        assert (await served.model.request(REQUEST)).content == "hi"
    assert_no_canary(upstream)


hosts = st.from_regex(r"[a-z0-9][a-z0-9.-]{0,30}(:[0-9]{1,5})?", fullmatch=True)


def env_endpoint(vendor: str, url: str | None) -> Endpoint:
    """The endpoint ``vendor`` resolves for ``url`` with the canary as its env key."""
    with mock.patch.dict(os.environ, {"VENDOR_KEY": CANARY}):
        return resolve_endpoint(
            VENDOR_HOSTS[vendor],
            base_url=url,
            api_key=None,
            url_env="NO_URL_VARIABLE",
            key_env=("VENDOR_KEY",),
        )


@given(
    vendor=st.sampled_from(list(VENDOR_HOSTS)),
    host=hosts,
    scheme=st.sampled_from(["http", "https"]),
)
def test_the_env_key_goes_to_no_other_host(vendor: str, host: str, scheme: str) -> None:
    own = scheme == "https" and host == VENDOR_HOSTS[vendor]
    assert (env_endpoint(vendor, f"{scheme}://{host}/v1").api_key == CANARY) is own


@pytest.mark.parametrize("vendor", list(VENDOR_HOSTS))
def test_the_env_key_goes_to_the_vendor_host(vendor: str) -> None:
    for url in (None, f"https://{VENDOR_HOSTS[vendor]}/v1"):
        endpoint = env_endpoint(vendor, url)
        assert endpoint.api_key == CANARY and endpoint.env_key
    assert env_endpoint(vendor, f"https://{VENDOR_HOSTS[vendor]}.example.net/v1").api_key is None
    assert env_endpoint(vendor, f"http://{VENDOR_HOSTS[vendor]}/v1").api_key is None


@pytest.mark.parametrize(
    "build",
    [
        lambda url: resolve_model("gpt-4o-mini", base_url=url, api_key="k"),
        lambda url: resolve_model("openai-responses:gpt-4.1", base_url=url),
        lambda url: AnthropicModel("claude-sonnet-4-6", base_url=url),
        lambda url: GeminiModel("gemini-2.5-flash", base_url=url),
        lambda url: OpenAIHttpTransport("m", base_url=url),
        lambda url: Agent(model="gpt-4o-mini", base_url=url).model,
    ],
)
def test_a_base_url_without_a_scheme_is_refused_when_the_model_is_built(
    build: Callable[[str], Any],
) -> None:
    with pytest.raises(
        ModelConfigError, match=re.escape("has no scheme; use http://... or https://...")
    ) as info:
        build("127.0.0.1:9/v1")
    assert str(info.value).count("127.0.0.1:9/v1") == 1


@pytest.mark.anyio
async def test_an_env_base_url_without_a_scheme_is_named_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "localhost:8000/v1")
    with pytest.raises(ModelConfigError, match="has no scheme") as info:
        await resolve_model("gpt-4o-mini", api_key="k").request(REQUEST)
    assert str(info.value).count("localhost:8000/v1") == 1


def test_a_base_url_of_another_scheme_is_refused() -> None:
    with pytest.raises(ModelConfigError, match="not an HTTP URL"):
        resolve_model("gpt-4o-mini", base_url="ftp://example.com/v1")
