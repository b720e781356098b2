"""``mcp-serve --http``: the tools over MCP's Streamable HTTP, used by the ``mcp`` SDK's
client, and closed to other sites like the bridge and the agent app (a foreign ``Host``
is a 421, a browser page of another origin a 403, a non-JSON body a 415); it listens on
loopback only."""

from __future__ import annotations

from collections.abc import Iterator

import anyio
import httpx
import pytest
from mcp import Client

from good_agent.extensions.mcp import load_target
from good_agent.server.background import BackgroundServer
from good_agent.server.mcp_http import mcp_http_app, run_command

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "page", "version": "1"},
    },
}
ACCEPT = {"accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def mcp_server() -> Iterator[BackgroundServer]:
    agent = load_target("tests.extensions.mcp_serve_target:agent")
    with BackgroundServer(mcp_http_app(agent, name="target")) as server:
        yield server


@pytest.mark.anyio
async def test_the_sdks_client_lists_and_calls_the_tools_over_http(
    mcp_server: BackgroundServer,
) -> None:
    with anyio.fail_after(30):
        async with Client(f"{mcp_server.url}/mcp") as client:
            listed = sorted(t.name for t in (await client.list_tools()).tools)
            assert listed == ["shout", "weather"]
            result = await client.call_tool("weather", {"city": "Oslo"})
            assert not result.is_error
            assert result.structured_content == {"city": "Oslo", "sky": "clear"}


def test_a_foreign_host_an_origin_or_a_text_body_is_refused(mcp_server: BackgroundServer) -> None:
    url = f"{mcp_server.url}/mcp"
    rebound = httpx.post(url, json=INITIALIZE, headers={**ACCEPT, "host": "evil.example"})
    assert rebound.status_code == 421 and rebound.json()["error"]["param"] == "Host"
    page = httpx.post(url, json=INITIALIZE, headers={**ACCEPT, "origin": "http://localhost:1"})
    assert page.status_code == 403 and page.json()["error"]["param"] == "Origin"
    text = httpx.post(
        url,
        content=b'{"jsonrpc": "2.0"}',
        headers={**ACCEPT, "content-type": "text/plain"},
    )
    assert text.status_code == 415
    served = httpx.post(url, json=INITIALIZE, headers=ACCEPT)
    assert served.status_code == 200, served.text


def test_mcp_over_http_listens_on_loopback_only(capsys: pytest.CaptureFixture[str]) -> None:
    target = "tests.extensions.mcp_serve_target:agent"
    assert run_command(target, host="0.0.0.0", port=1) == 1
    assert "loopback only" in capsys.readouterr().err


def test_the_command_line_serves_http_on_loopback_only(capsys: pytest.CaptureFixture[str]) -> None:
    from good_agent.cli import main

    target = "tests.extensions.mcp_serve_target:agent"
    assert main(["mcp-serve", target, "--http", "--host", "0.0.0.0"]) == 1
    assert "loopback only" in capsys.readouterr().err
    assert main(["mcp-serve", target, "--http", "--allowed-origin", "nope"]) == 1
    assert "not an origin" in capsys.readouterr().err
