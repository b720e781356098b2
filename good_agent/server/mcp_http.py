"""``good-agent mcp-serve module:attr --http``: an agent's tools over MCP's Streamable
HTTP transport, closed to other sites.

The tools are listed and run as over stdio
([`build_server`][good_agent.extensions.mcp.build_server]: adapters applied), at
``POST``/``GET``/``DELETE /mcp``, behind the same
[`SiteGuard`][good_agent.server.common.site_guard.SiteGuard] as the bridge and the agent app:
loopback ``Host`` names (and ``--allowed-host``) only, no ``POST`` from a browser page of
another origin than ``--allowed-origin``, JSON bodies only, a deadline on request
bodies. The transport has no client keys, so it listens on loopback only; a remote
client reaches it through a proxy that authenticates.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import Any, TextIO

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import Route

from good_agent.core.agent import Agent
from good_agent.extensions.mcp.serve import build_server, load_target
from good_agent.server.common.auth import is_loopback
from good_agent.server.common.listen import check_port, run_server
from good_agent.server.common.site_guard import DEFAULT_BODY_TIMEOUT, SiteGuard
from good_agent.server.config import ConfigError, check_allowed_host, check_allowed_origin

DEFAULT_MCP_PORT = 7287
"""The port ``mcp-serve --http`` listens on by default."""


def mcp_http_app(
    agent: Agent,
    *,
    name: str = "good-agent",
    path: str = "/mcp",
    allowed_hosts: Iterable[str] = (),
    allowed_origins: Iterable[str] = (),
    body_timeout: float | None = DEFAULT_BODY_TIMEOUT,
) -> Starlette:
    """An ASGI (Starlette) application serving ``agent``'s tools over MCP's Streamable
    HTTP transport at ``path``; the agent is installed for the app's lifespan.

    Args:
        agent: The agent whose tools are served.
        name: The server name reported to clients.
        path: Where the transport is served.
        allowed_hosts: ``Host`` names answered besides the loopback names (421 otherwise).
        allowed_origins: Browser origins whose pages may send requests (403 otherwise).
        body_timeout: Seconds a request body may take to arrive (408 beyond).
    """
    from mcp.server.streamable_http_manager import (
        StreamableHTTPASGIApp,
        StreamableHTTPSessionManager,
    )

    manager = StreamableHTTPSessionManager(app=build_server(agent, name=name))

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with agent, manager.run():
            yield

    app = Starlette(
        routes=[Route(path, StreamableHTTPASGIApp(manager), methods=["GET", "POST", "DELETE"])],
        middleware=[
            Middleware(
                SiteGuard,
                allowed_hosts=tuple(allowed_hosts),
                allowed_origins=tuple(allowed_origins),
                body_timeout=body_timeout,
            )
        ],
        lifespan=lifespan,
    )
    app.router.redirect_slashes = False
    return app


def serve_mcp_http(
    target: str,
    *,
    name: str | None = None,
    host: str = "127.0.0.1",
    port: int = DEFAULT_MCP_PORT,
    allowed_hosts: tuple[str, ...] = (),
    allowed_origins: tuple[str, ...] = (),
    out: TextIO | None = None,
) -> None:
    """Load ``module:attr`` and serve its tools over Streamable HTTP until interrupted."""
    if not is_loopback(host):
        raise ConfigError(
            f"refusing to listen on {host}: MCP over HTTP has no client keys, so it "
            "listens on loopback only (put an authenticating proxy in front for remote "
            "clients)"
        )
    try:
        hosts = tuple(check_allowed_host(entry) for entry in allowed_hosts)
        origins = tuple(check_allowed_origin(entry) for entry in allowed_origins)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    check_port(host, port)
    server_name = name or target.partition(":")[0].rsplit(".", 1)[-1]
    app = mcp_http_app(
        load_target(target), name=server_name, allowed_hosts=hosts, allowed_origins=origins
    )
    print(
        f"good-agent mcp-serve: {target} on http://{host}:{port}/mcp",
        file=out or sys.stderr,
        flush=True,
    )
    run_server(app, host, port)


def run_command(target: str, **options: Any) -> int:
    """``good-agent mcp-serve --http``: serve, or print why not and return 1."""
    try:
        serve_mcp_http(target, **options)
    except (ConfigError, ImportError, AttributeError, ValueError) as exc:
        print(f"good-agent mcp-serve: {exc}", file=sys.stderr)
        return 1
    return 0
