"""The bridge's application: routes, authentication, body limit, access log.

``POST /v1/chat/completions``, ``POST /v1/messages``, ``POST /v1/responses`` (in
`good_agent.server.responses_endpoint`), Gemini's
``POST /v1beta/models/{model}:generateContent`` and ``:streamGenerateContent`` (also
under ``/v1/``, where newer SDKs call them), all streamed or not,
``GET /v1/responses/{id}``, ``POST /v1/embeddings``, ``GET /v1/models`` and
``GET /health``: each one line of the endpoint list in `create_app`, the paths
without parameters called directly (`good_agent.server.dispatch`). Every error
is JSON: OpenAI-shaped, Anthropic-shaped on ``/v1/messages``, Gemini-shaped on the
Gemini methods. Each request gets an id, sent back in the ``x-request-id`` header,
and is logged once on the ``good_agent.server.access`` logger with ``extra`` fields
``request_id``, ``model``, ``upstream``, ``status``, ``latency_ms``,
``input_tokens``, ``output_tokens`` and ``stream``. An unexpected failure is a 500
that carries the request id, logged once (with its traceback and the same id) on
``good_agent.server``. A client that disconnects (even in the middle of its request
body) is no failure: it is logged with status 499 and no traceback.
"""

from __future__ import annotations

import logging
import urllib.request
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Scope

from good_agent.http.http1_wire import Http1Wire, http1_available
from good_agent.http.wire import AiohttpWire, Wire, aiohttp_available
from good_agent.models.prices import price
from good_agent.server.anthropic_api import (
    MessageStreamWriter,
    message_body,
    parse_messages_request,
)
from good_agent.server.auth import ClientKeys
from good_agent.server.config import BridgeConfig, ServerConfig
from good_agent.server.dispatch import BridgeApp, Endpoint
from good_agent.server.embeddings import handle_embeddings
from good_agent.server.errors import BridgeError, bad_request, internal_error
from good_agent.server.exchange import (
    Exchange,
    cost_log,
    error_response,
    new_request_id,
)
from good_agent.server.generate_content import gemini_error, handle_generate
from good_agent.server.media import MediaLimits, check_media
from good_agent.server.media_fetch import MediaFetcher
from good_agent.server.openai_api import ChunkWriter, completion_body, parse_chat_request
from good_agent.server.passthrough import forward, plan_of
from good_agent.server.redaction import Secrets
from good_agent.server.request_body import read_json_body
from good_agent.server.response_store import open_store
from good_agent.server.responses_endpoint import ResponsesEndpoint
from good_agent.server.served import BridgeRequest, ServedModel
from good_agent.server.streams import ClientEvents, relay
from good_agent.types.usage import Usage

access_log = logging.getLogger("good_agent.server.access")
"""The structured access log."""

logger = logging.getLogger("good_agent.server")


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
        self.pass_through = {name: plan_of(route, server) for name, route in self.routes.items()}
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


def _site_refusal(scope: Scope, error: BridgeError) -> Response:
    """A request the site guard refused, in the error shape of the API it was sent to."""
    path: str = scope.get("path", "")
    request_id = new_request_id()
    if path.startswith(("/v1beta/", "/v1/models/")):
        return gemini_error(error, request_id)
    return error_response(error, path.startswith("/v1/messages"), request_id)


async def _handle(bridge: Bridge, request: Request, anthropic: bool) -> ASGIApp:
    exchange = Exchange(bridge, request)

    async def serve() -> ASGIApp:
        bridge.authorize(request)
        body = await bridge.read_json(request)
        call = parse_messages_request(body) if anthropic else parse_chat_request(body)
        check_media(call.request.messages, bridge.media_limits, bridge.fetcher.hosts)
        exchange.stream = call.stream
        exchange.route = bridge.route(call.model)
        neutral: BridgeRequest = call.request
        plan = bridge.pass_through[call.model]
        if plan is not None and plan.takes("messages" if anthropic else "chat", neutral):
            usage = getattr(call, "include_usage", False)
            return await forward(exchange, plan, body, stream=call.stream, include_usage=usage)
        if call.stream:
            chosen, events, first, done = await exchange.open_stream(neutral)
            writer: ClientEvents = (
                MessageStreamWriter(call.model)
                if anthropic
                else ChunkWriter(call.model, include_usage=getattr(call, "include_usage", False))
            )
            return exchange.events(
                relay(chosen, events, first, writer, done=done, request_id=exchange.request_id)
            )
        chosen, reply = await exchange.complete(neutral)
        payload = (
            message_body(reply, call.model) if anthropic else completion_body(reply, call.model)
        )
        exchange.log(200, reply.usage, chosen)
        return exchange.json(payload)

    return await exchange.answer(
        serve, lambda error, request_id: error_response(error, anthropic, request_id)
    )


def create_app(config: BridgeConfig, *, client: httpx2.AsyncClient | None = None) -> Starlette:
    """The bridge as an ASGI application (``app.state.bridge`` holds its
    [`Bridge`][good_agent.server.Bridge])."""
    bridge = Bridge(config, client=client)
    responses = ResponsesEndpoint(bridge, open_store(config.responses))

    async def chat_completions(request: Request) -> ASGIApp:
        return await _handle(bridge, request, anthropic=False)

    async def messages(request: Request) -> ASGIApp:
        return await _handle(bridge, request, anthropic=True)

    async def generate(request: Request) -> ASGIApp:
        return await handle_generate(bridge, request)

    async def embeddings(request: Request) -> ASGIApp:
        return await handle_embeddings(bridge, request)

    async def models(request: Request) -> Response:
        try:
            bridge.authorize(request)
        except BridgeError as exc:
            return error_response(exc, anthropic=False, request_id=new_request_id())
        data = [
            {"id": name, "object": "model", "created": 0, "owned_by": route.entry.provider}
            for name, route in bridge.routes.items()
        ]
        return JSONResponse({"object": "list", "data": data})

    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok", "models": len(bridge.routes)})

    async def http_error(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        message = exc.detail if isinstance(exc, HTTPException) else "internal error"
        error = BridgeError(
            status,
            f"{request.method} {request.url.path}: {message}",
            code="not_found" if status == 404 else None,
        )
        anthropic = request.url.path.startswith("/v1/messages")
        request_id = new_request_id()
        if status >= 500:
            logger.error("request %s (%s) failed", request_id, request.url.path, exc_info=exc)
            error = internal_error(request_id)
        if request.url.path.startswith("/v1beta/"):
            return gemini_error(error, request_id)
        return error_response(error, anthropic, request_id)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await responses.aclose()
            await bridge.aclose()

    # One line a route: each is served at its path and with a trailing slash (unless
    # slash=False), and a path without parameters is called directly (see
    # good_agent.server.dispatch).
    endpoints = [
        Endpoint("POST", "/v1/chat/completions", chat_completions),
        Endpoint("POST", "/v1/messages", messages),
        Endpoint("POST", "/v1/responses", responses.create),
        Endpoint("GET", "/v1/responses/{response_id}", responses.retrieve),
        Endpoint("POST", "/v1/embeddings", embeddings),
        Endpoint("POST", "/v1beta/models/{target:path}", generate, slash=False),
        Endpoint("POST", "/v1/models/{target:path}", generate, slash=False),
        Endpoint("GET", "/v1/models", models),
        Endpoint("GET", "/health", health),
    ]
    app = BridgeApp(
        endpoints,
        error=http_error,
        lifespan=lifespan,
        secrets=bridge.secrets,
        site={**config.server.site_options(), "refuse": _site_refusal},
    )
    app.state.bridge = bridge
    return app
