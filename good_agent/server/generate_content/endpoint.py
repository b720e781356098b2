"""``POST /v1beta/models/{model}:generateContent`` and ``:streamGenerateContent``.

Gemini clients (the google-genai SDK, REST callers) reach every configured route
here: the request is translated by `good_agent.server.generate_content.wire` and served
by the same model core as the chat endpoints, with the same fallback, limits and
access log. The client key is read from ``x-goog-api-key`` or ``?key=`` (or the
headers the other endpoints read) and checked like every client key; the query
string is never logged. Errors are Gemini-shaped (``{"error": {"code", "message",
"status"}}``); a stream that fails after it began ends with such an error as its
last event, never with a ``finishReason``.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp

from good_agent.server.bridge import Bridge
from good_agent.server.common.auth import presented_key
from good_agent.server.common.errors import BridgeError
from good_agent.server.common.ids import REQUEST_ID_HEADER
from good_agent.server.exchange import Exchange
from good_agent.server.generate_content.wire import (
    GeminiStreamWriter,
    generate_body,
    model_of,
    parse_generate_request,
)
from good_agent.server.media import check_media
from good_agent.server.streams import relay

METHODS = ("generateContent", "streamGenerateContent")
"""The Gemini methods the bridge serves."""


def gemini_error(error: BridgeError, request_id: str) -> JSONResponse:
    """``error`` as Gemini's error reply."""
    headers = {**error.headers, REQUEST_ID_HEADER: request_id}
    return JSONResponse(error.gemini_body(), status_code=error.status, headers=headers)


def _authorize(bridge: Bridge, request: Request) -> None:
    presented = (
        request.headers.get("x-goog-api-key")
        or request.query_params.get("key")
        or presented_key(request.headers)
    )
    if not bridge.keys.accepts(presented.strip() if presented else None):
        raise BridgeError(
            401,
            "missing or invalid API key (send it in x-goog-api-key or ?key=)",
            "invalid_request_error",
            code="invalid_api_key",
        )


async def handle_generate(bridge: Bridge, request: Request) -> ASGIApp:
    """Serve one ``generateContent`` or ``streamGenerateContent`` request."""
    exchange = Exchange(bridge, request)

    async def serve() -> ASGIApp:
        model, method = model_of(str(request.path_params.get("target", "")))
        if method not in METHODS or not model:
            raise BridgeError(
                404,
                f"POST {exchange.path}: not found; the bridge serves "
                "models/{model}:generateContent and :streamGenerateContent",
                code="not_found",
            )
        exchange.stream = method == "streamGenerateContent"
        _authorize(bridge, request)
        if exchange.stream and request.query_params.get("alt", "sse") != "sse":
            raise BridgeError(400, "streamGenerateContent is served with alt=sse", param="alt")
        neutral = parse_generate_request(await bridge.read_json(request))
        check_media(neutral.messages, bridge.media_limits, bridge.fetcher.hosts)
        exchange.route = bridge.route(model)
        if exchange.stream:
            chosen, events, first, done = await exchange.open_stream(neutral)
            writer = GeminiStreamWriter(model)
            return exchange.events(
                relay(chosen, events, first, writer, done=done, request_id=exchange.request_id)
            )
        chosen, reply = await exchange.complete(neutral)
        exchange.log(200, reply.usage, chosen)
        return exchange.json(generate_body(reply, model))

    return await exchange.answer(serve, gemini_error)
