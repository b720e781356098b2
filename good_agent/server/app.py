"""The bridge's application: the routes of every client API, and its errors.

``POST /v1/chat/completions`` (`good_agent.server.chat`), ``POST /v1/messages``
(`good_agent.server.messages`), ``POST /v1/responses`` (`good_agent.server.responses`),
Gemini's
``POST /v1beta/models/{model}:generateContent`` and ``:streamGenerateContent`` (also
under ``/v1/``, where newer SDKs call them), all streamed or not,
``GET /v1/responses/{id}``, ``POST /v1/embeddings``, ``GET /v1/models`` and
``GET /health``: each one line of the endpoint list in `create_app`, the paths
without parameters called directly (`good_agent.server.common.dispatch`). Every error
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
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx2
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Scope

from good_agent.server.bridge import Bridge
from good_agent.server.chat.endpoint import handle_chat_completions
from good_agent.server.common.dispatch import BridgeApp, Endpoint
from good_agent.server.common.errors import BridgeError, internal_error
from good_agent.server.common.ids import new_request_id
from good_agent.server.config import BridgeConfig
from good_agent.server.embeddings import handle_embeddings
from good_agent.server.exchange import error_response
from good_agent.server.generate_content.endpoint import gemini_error, handle_generate
from good_agent.server.messages.endpoint import handle_messages
from good_agent.server.responses.endpoint import ResponsesEndpoint
from good_agent.server.responses.store import open_store

logger = logging.getLogger("good_agent.server")


def _site_refusal(scope: Scope, error: BridgeError) -> Response:
    """A request the site guard refused, in the error shape of the API it was sent to."""
    path: str = scope.get("path", "")
    request_id = new_request_id()
    if path.startswith(("/v1beta/", "/v1/models/")):
        return gemini_error(error, request_id)
    return error_response(error, path.startswith("/v1/messages"), request_id)


def create_app(config: BridgeConfig, *, client: httpx2.AsyncClient | None = None) -> Starlette:
    """The bridge as an ASGI application (``app.state.bridge`` holds its
    [`Bridge`][good_agent.server.Bridge])."""
    bridge = Bridge(config, client=client)
    responses = ResponsesEndpoint(bridge, open_store(config.responses))

    async def chat_completions(request: Request) -> ASGIApp:
        return await handle_chat_completions(bridge, request)

    async def messages(request: Request) -> ASGIApp:
        return await handle_messages(bridge, request)

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
    # good_agent.server.common.dispatch).
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
