"""Each bridge redacts its own secrets (its client and upstream keys), not the process's."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from good_agent.server import create_app, parse_config
from good_agent.server.background import BackgroundServer

pytestmark = [pytest.mark.anyio, pytest.mark.both_paths]

ALPHA = "sk-alpha-secret-1111"
BRAVO = "sk-bravo-secret-2222"
os.environ["GA_TEST_SECRET_ALPHA"] = ALPHA
os.environ["GA_TEST_SECRET_BRAVO"] = BRAVO


async def refuse_naming_the_key(request: Request) -> JSONResponse:
    """An upstream that, as some do, repeats the key it was given in its error."""
    key = request.headers.get("authorization", "").removeprefix("Bearer ")
    return JSONResponse({"error": {"message": f"Incorrect API key provided: {key}"}}, 400)


@pytest.fixture(scope="module")
def upstream() -> Iterator[str]:
    app = Starlette(routes=[Route("/v1/chat/completions", refuse_naming_the_key, methods=["POST"])])
    server = BackgroundServer(app).start()
    yield f"{server.url}/v1"
    server.stop()


def bridge(
    name: str, key_env: str, base_url: str, pass_through: bool
) -> tuple[BackgroundServer, Any]:
    entry = {
        "name": name,
        "provider": "openai",
        "model": "m",
        "mode": "native",
        "base_url": base_url,
        "api_key_env": key_env,
    }
    app = create_app(parse_config({"models": [entry], "server": {"pass_through": pass_through}}))
    return BackgroundServer(app).start(), app.state.bridge


async def ask(server: BackgroundServer, model: str, stream: bool = False) -> str:
    body = {"model": model, "messages": [{"role": "user", "content": "hi"}], "stream": stream}
    async with httpx2.AsyncClient(timeout=10) as http:
        response = await http.post(
            f"{server.url}/v1/chat/completions", content=json.dumps(body).encode()
        )
    assert response.status_code == 400, response.text
    return str(response.json()["error"]["message"])


async def test_each_bridge_redacts_its_own_secrets(upstream: str, pass_through: bool) -> None:
    alpha, alpha_bridge = bridge("a", "GA_TEST_SECRET_ALPHA", upstream, pass_through)
    bravo, bravo_bridge = bridge("b", "GA_TEST_SECRET_BRAVO", upstream, pass_through)
    try:
        for stream in (False, True):
            said = await ask(alpha, "a", stream)
            assert "Incorrect API key provided: ***" in said and ALPHA not in said
            said = await ask(bravo, "b", stream)
            assert "Incorrect API key provided: ***" in said and BRAVO not in said
        # Another bridge's key is nothing to this one: a client's own words come back whole.
        said = await ask(bravo, ALPHA)
        assert f"unknown model '{ALPHA}'" in said
        said = await ask(alpha, ALPHA)
        assert ALPHA not in said and "unknown model '***'" in said
        assert ALPHA in alpha_bridge.secrets and BRAVO not in alpha_bridge.secrets
        assert BRAVO in bravo_bridge.secrets and ALPHA not in bravo_bridge.secrets
    finally:
        alpha.stop()
        bravo.stop()
