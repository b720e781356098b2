"""A vendor of one's own is one folder and one registration line: its ``__init__.py``
exports a ``Vendor`` descriptor, ``register_vendor`` adds it, and then an agent
(``"acme:<model>"``) and the bridge (``provider = "acme"``) both run through it."""

from __future__ import annotations

import importlib
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bridge_fakes import UPSTREAM_KEY, Fake, Reply
from bridge_harness import CLIENT_KEY, USER

from good_agent import Agent
from good_agent.providers.registry import register_vendor, vendor_of
from good_agent.server import create_app, parse_config
from good_agent.server.background import BackgroundServer

pytestmark = pytest.mark.anyio

ACME = '''
"""Acme: an OpenAI-compatible service, described once."""

from good_agent.providers.openai.http_transport import OpenAIHttpTransport
from good_agent.providers.profile_rules import NATIVE, ProviderInfo
from good_agent.providers.vendor import Vendor


class AcmeHttpTransport(OpenAIHttpTransport):
    provider = "acme"
    profile_provider = "acme"
    default_base_url = "https://api.acme.example/v1"
    url_env = "ACME_BASE_URL"
    key_env = ("ACME_API_KEY",)
    vendor_hosts = {"acme": "api.acme.example"}


VENDOR = Vendor(
    name="acme",
    providers={"acme": ProviderInfo("acme", "openai_chat", dict(NATIVE))},
    http_transports={"acme": AcmeHttpTransport},
)
'''


@pytest.fixture(scope="module")
def acme(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    root: Path = tmp_path_factory.mktemp("vendor")
    (root / "acme_vendor").mkdir()
    (root / "acme_vendor" / "__init__.py").write_text(textwrap.dedent(ACME))
    sys.path.insert(0, str(root))
    try:
        module = importlib.import_module("acme_vendor")
        register_vendor(module.VENDOR)  # the one registration line
        yield module
    finally:
        sys.path.remove(str(root))


def openai_fake(fakes: dict[str, tuple[Fake, str]]) -> tuple[Fake, str]:
    fake, url = fakes["openai"]
    return fake, f"{url}/v1"


async def test_the_registry_holds_the_new_vendor(acme: Any) -> None:
    assert vendor_of("acme") is acme.VENDOR
    assert acme.VENDOR.host("acme") == "api.acme.example"
    assert acme.VENDOR.key_env("acme") == ("ACME_API_KEY",)


async def test_an_agent_runs_through_the_new_vendor(
    acme: Any, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fake, url = openai_fake(fakes)
    fake.reply = Reply(text="Hello from acme.")
    async with Agent(model="acme:fake-gpt", base_url=url, api_key=UPSTREAM_KEY) as agent:
        answer = await agent.call("Hi")
    assert answer.content == "Hello from acme."
    assert fake.requests[-1]["model"] == "fake-gpt"
    assert not fake.problems
    assert type(agent.model.transport) is acme.AcmeHttpTransport  # type: ignore[attr-defined]


async def test_the_bridge_serves_the_new_vendor(
    acme: Any, fakes: dict[str, tuple[Fake, str]]
) -> None:
    from openai import AsyncOpenAI

    fake, url = openai_fake(fakes)
    fake.reply = Reply(text="Bridged by acme.")
    config = parse_config(
        {
            "server": {"api_keys_env": "GA_TEST_CLIENT_KEYS"},
            "models": [
                {
                    "name": "acme-model",
                    "provider": "acme",
                    "model": "fake-gpt",
                    "base_url": url,
                    "api_key_env": "GA_TEST_UPSTREAM_KEY",
                }
            ],
        }
    )
    bridge = BackgroundServer(create_app(config)).start()
    try:
        async with AsyncOpenAI(
            base_url=f"{bridge.url}/v1", api_key=CLIENT_KEY, max_retries=0
        ) as client:
            whole = await client.chat.completions.create(model="acme-model", messages=USER)
            stream = await client.chat.completions.create(
                model="acme-model", messages=USER, stream=True
            )
            streamed = "".join(
                [c.choices[0].delta.content or "" async for c in stream if c.choices]
            )
    finally:
        bridge.stop()
    assert whole.choices[0].message.content == "Bridged by acme."
    assert streamed == "Bridged by acme."
    assert not fake.problems
