"""The bridge's state: its configuration, client keys, routes, upstream client and logs.

Each client protocol's endpoint (`good_agent.server.chat`, `good_agent.server.messages`,
`good_agent.server.responses`, `good_agent.server.generate_content`,
`good_agent.server.embeddings`) takes the [`Bridge`][good_agent.server.Bridge] it
serves for; `good_agent.server.app` builds one and routes requests to them.
"""

from __future__ import annotations

import logging
import urllib.request
from typing import Any

import httpx2
from starlette.requests import Request

from good_agent.http.http1_wire import Http1Wire, http1_available
from good_agent.http.wire import AiohttpWire, Wire, aiohttp_available
from good_agent.models.prices import price
from good_agent.server.common.auth import ClientKeys
from good_agent.server.common.errors import BridgeError, bad_request
from good_agent.server.common.redaction import Secrets
from good_agent.server.common.request_body import read_json_body
from good_agent.server.config import BridgeConfig, ServerConfig
from good_agent.server.media import MediaLimits
from good_agent.server.media_fetch import MediaFetcher
from good_agent.server.passthrough import PassThrough, plan_of
from good_agent.server.served import ServedModel
from good_agent.types.usage import Usage

access_log = logging.getLogger("good_agent.server.access")
"""The structured access log."""

cost_log = logging.getLogger("good_agent.server.cost")
"""The per-request price records (``[server] log_cost = true``; see `Bridge.log`)."""


def upstream_wire(server: ServerConfig) -> Wire | None:
    """The HTTP client the bridge calls the built-in providers through: an
    `Http1Wire` when ``httptools`` is installed and the environment names no
    proxy, else an `AiohttpWire` (which takes proxies) when ``aiohttp`` is
    installed, else ``None`` (an ``httpx2`` client)."""
    kind: type[Http1Wire] | type[AiohttpWire]
    if http1_available() and not urllib.request.getproxies():
        kind = Http1Wire
    elif aiohttp_available():
        kind = AiohttpWire
    else:
        return None
    return kind(
        max_connections=server.max_upstream_connections,
        connect_timeout=server.connect_timeout,
        read_timeout=server.read_timeout,
    )


class Bridge:
    """The bridge's state: configuration, client keys, routes and the upstream client.

    Args:
        config: The validated configuration.
        client: An ``httpx2.AsyncClient`` for upstream calls. Without one, the
            built-in providers are called through the client ``upstream_wire`` chooses,
            else through an ``httpx2.AsyncClient`` made here.
    """

    def __init__(self, config: BridgeConfig, *, client: httpx2.AsyncClient | None = None) -> None:
        self.config = config
        self.keys = ClientKeys.from_env(config.server.api_keys_env)
        self.secrets = Secrets()
        """This bridge's client and upstream keys, redacted from its errors."""
        self.keys.add_to(self.secrets)
        server = config.server
        size = server.max_upstream_connections
        self.client = client or httpx2.AsyncClient(
            limits=httpx2.Limits(max_connections=size, max_keepalive_connections=size)
        )
        # Without a client given, the built-in providers are called through our own
        # HTTP/1.1 client (httptools, the server extra): about a fifth of the CPU of
        # aiohttp per request. It knows no proxies: when the environment names one,
        # aiohttp (which does) is used instead; without either, httpx2.
        self.wire = upstream_wire(server) if client is None else None
        self.routes = {
            entry.name: ServedModel(entry, server, self.client, self.wire, self.secrets)
            for entry in config.models
        }
        self.pass_through: dict[str, PassThrough | None] = {
            name: plan_of(route, server) for name, route in self.routes.items()
        }
        """Each route's pass-through plan (``None``: it translates), made once here."""
        self.in_flight = 0
        self.media_limits = MediaLimits(server.max_media_part_bytes, server.max_media_request_bytes)
        self.fetcher = MediaFetcher(server, self.media_limits)

    async def aclose(self) -> None:
        """Close the upstream connections."""
        await self.fetcher.aclose()
        if self.wire is not None:
            await self.wire.aclose()
        await self.client.aclose()

    def route(self, name: str) -> ServedModel:
        """The route clients reach as ``name`` (a 400 naming ``model`` otherwise)."""
        found = self.routes.get(name)
        if found is None:
            known = ", ".join(sorted(self.routes))
            raise bad_request(
                f"unknown model '{name}'; this bridge serves: {known}", "model", "model_not_found"
            )
        return found

    def candidates(self, route: ServedModel) -> list[ServedModel]:
        """``route``, then the routes its ``fallback`` entries name, in order."""
        return [route, *(self.routes[name] for name in route.entry.fallback)]

    def authorize(self, request: Request) -> None:
        """Refuse a request without an accepted key (401)."""
        if not self.keys.allows(request.headers):
            raise BridgeError(
                401, "missing or invalid API key", "invalid_request_error", code="invalid_api_key"
            )

    async def read_json(self, request: Request) -> Any:
        """The JSON body, at most ``max_body_bytes`` long (413 beyond)."""
        return await read_json_body(request, self.config.server.max_body_bytes)

    def log(
        self,
        path: str,
        route: ServedModel | None,
        status: int,
        latency_ms: float,
        usage: Usage | None = None,
        *,
        stream: bool = False,
        request_id: str | None = None,
    ) -> None:
        """Write one access-log record (and the price record, with ``log_cost``)."""
        usage = usage or Usage()
        upstream = f"{route.entry.provider}:{route.entry.model}" if route else None
        if self.logs_cost and route is not None and status == 200 and usage.total_tokens:
            self._log_cost(route, usage, request_id)
        if not access_log.isEnabledFor(logging.INFO):
            return
        access_log.info(
            "%s %s %s %s",
            request_id or "-",
            path,
            route.name if route else "-",
            status,
            extra={
                "request_id": request_id,
                "path": path,
                "model": route.name if route else None,
                "upstream": upstream,
                "status": status,
                "latency_ms": latency_ms,
                "stream": stream,
                "input_tokens": usage.input_tokens,
                "output_tokens": usage.output_tokens,
                "cache_read_tokens": usage.cache_read_tokens,
                "cache_write_tokens": usage.cache_write_tokens,
            },
        )

    @property
    def logs_cost(self) -> bool:
        """Whether each answered request's price is logged (``[server] log_cost``)."""
        return self.config.server.log_cost and cost_log.isEnabledFor(logging.INFO)

    def _log_cost(self, route: ServedModel, usage: Usage, request_id: str | None) -> None:
        cost = price(usage, route.entry.model, route.entry.provider)
        upstream = f"{route.entry.provider}:{route.entry.model}"
        cost_log.info(
            "%s %s %s cost %s",
            request_id or "-",
            route.name,
            upstream,
            "unknown" if cost is None else f"${cost}",
            extra={
                "request_id": request_id,
                "model": route.name,
                "upstream": upstream,
                "cost": None if cost is None else str(cost),
                "input_tokens": usage.input_tokens,
                "output_tokens": usage.output_tokens,
                "cache_read_tokens": usage.cache_read_tokens,
                "cache_write_tokens": usage.cache_write_tokens,
            },
        )
