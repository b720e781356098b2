"""Fixtures of the bridge tests: fake upstreams and a bridge, all on loopback."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
from bridge_fakes import (
    Fake,
    RawFake,
    vendor_fakes,
)
from bridge_harness import CLIENT_KEY, bridge_over, start_bridge
from responses_harness import sqlite_bridge

from good_agent.server import create_app, parse_config
from good_agent.server.background import BackgroundServer


@pytest.fixture(scope="session")
def fakes() -> Iterator[dict[str, tuple[Fake, str]]]:
    with vendor_fakes() as served:
        yield served


BOTH_PATHS = "both_paths"
"""The marker of the test modules that run with the pass-through path on and off
(``pytestmark = pytest.mark.both_paths``): their ``pass_through`` fixture, and the
bridges built with it, take both values."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{BOTH_PATHS}: run the test with [server] pass_through on and off"
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if metafunc.definition.get_closest_marker(BOTH_PATHS) and (
        "pass_through" in metafunc.fixturenames
    ):
        metafunc.parametrize(
            "pass_through",
            [True, False],
            indirect=True,
            ids=["pass-through", "translated"],
            scope="session",
        )


@pytest.fixture(scope="session")
def pass_through(request: pytest.FixtureRequest) -> bool:
    """The bridge's ``[server] pass_through`` (on, the default, unless parametrized)."""
    return bool(getattr(request, "param", True))


@pytest.fixture(scope="session")
def bridge(fakes: dict[str, tuple[Fake, str]], pass_through: bool) -> Iterator[BackgroundServer]:
    server = start_bridge(fakes, max_body_bytes=200_000, pass_through=pass_through)
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def _reset_fakes(request: pytest.FixtureRequest) -> None:
    if "fakes" in request.fixturenames or "bridge" in request.fixturenames:
        for fake, _ in request.getfixturevalue("fakes").values():
            fake.reset()


@pytest.fixture
def bridges() -> Iterator[Callable[..., BackgroundServer]]:
    """Start bridges over fake upstreams (``bridges(models, **server)``, as
    ``bridge_harness.bridge_over``: entries from ``upstream_entry``); all are stopped
    after the test."""
    started: list[BackgroundServer] = []

    def start(models: list[dict[str, Any]], **server: Any) -> BackgroundServer:
        started.append(bridge_over(models, **server))
        return started[-1]

    yield start
    for server in started:
        server.stop()


@pytest.fixture
async def client(bridge: BackgroundServer, anyio_backend: str) -> AsyncIterator[Any]:
    from openai import AsyncOpenAI

    async with AsyncOpenAI(
        base_url=f"{bridge.url}/v1", api_key=CLIENT_KEY, max_retries=0
    ) as client:
        yield client


@pytest.fixture(scope="module")
def raw(pass_through: bool) -> Iterator[tuple[RawFake, BackgroundServer]]:
    """A bridge whose ``gpt`` and ``claude`` models are served by a :class:`RawFake`."""
    fake = RawFake()
    upstream = BackgroundServer(fake.app()).start()
    config = parse_config(
        {
            "server": {"api_keys_env": "GA_TEST_CLIENT_KEYS", "pass_through": pass_through},
            "models": [
                {
                    "name": name,
                    "provider": provider,
                    "model": model,
                    "mode": "native",
                    "base_url": upstream.url + suffix,
                    "api_key_env": "GA_TEST_UPSTREAM_KEY",
                }
                for name, provider, model, suffix in (
                    ("gpt", "openai", "fake-gpt", "/v1"),
                    ("claude", "anthropic", "claude-sonnet-4-6", ""),
                )
            ],
        }
    )
    bridge = BackgroundServer(create_app(config)).start()
    yield fake, bridge
    bridge.stop()
    upstream.stop()


@pytest.fixture(scope="module")
def rbridge(
    fakes: dict[str, tuple[Fake, str]],
    tmp_path_factory: pytest.TempPathFactory,
    pass_through: bool,
) -> Iterator[BackgroundServer]:
    """A bridge whose ``/v1/responses`` store is a SQLite file of its own."""
    directory = tmp_path_factory.mktemp("responses")
    server = sqlite_bridge(fakes, directory, pass_through=pass_through)
    yield server
    server.stop()


@pytest.fixture
async def rclient(rbridge: BackgroundServer, anyio_backend: str) -> AsyncIterator[Any]:
    """An ``AsyncOpenAI`` client of :func:`rbridge`."""
    from openai import AsyncOpenAI

    async with AsyncOpenAI(
        base_url=f"{rbridge.url}/v1", api_key=CLIENT_KEY, max_retries=0
    ) as client:
        yield client


@pytest.fixture
def listener() -> Iterator[tuple[socket.socket, int]]:
    """A loopback socket that listens and never accepts: ``(socket, port)``; a test
    proves nothing connected with ``sock.accept()`` raising ``BlockingIOError``."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    sock.setblocking(False)
    yield sock, sock.getsockname()[1]
    sock.close()
