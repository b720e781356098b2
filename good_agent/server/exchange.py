"""One request's plumbing, shared by every client protocol the bridge speaks.

The request id and its header, the compact JSON reply, the SSE headers, the
disconnect watch that cancels the upstream call when the client leaves
(`DisconnectWatch`: a small task, started once a call outlasts ``WATCH_AFTER``), the
walk along a route's ``fallback`` entries, and `Exchange`, which a protocol's
handler answers one request with (a streamed reply is an
`EventStream`: the chunks of one upstream read in
one write).
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial
from typing import Any, TypeVar

from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp

from good_agent.models.fallback_chain import DEFAULT_FALLBACK_ON
from good_agent.server.bridge import Bridge, access_log
from good_agent.server.common.disconnect import ClientGone, DisconnectWatch
from good_agent.server.common.errors import BridgeError, from_model_error, internal_error
from good_agent.server.common.ids import REQUEST_ID_HEADER, new_request_id
from good_agent.server.common.sse import SSE_HEADERS, EventStream
from good_agent.server.common.utf8 import utf8
from good_agent.server.served import BridgeRequest, ServedModel, StreamBatch
from good_agent.server.streams import AccessLog, Batches, timer
from good_agent.types.errors import ModelError
from good_agent.types.messages import ModelResponse
from good_agent.types.usage import Usage

logger = logging.getLogger("good_agent.server")

T = TypeVar("T")

_COMPACT = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))
_REQUEST_ID_KEY = REQUEST_ID_HEADER.encode("latin-1")
_JSON_TYPE = JSONResponse.media_type.encode("latin-1")


class ReplyJSON(JSONResponse):
    """A JSON response that survives text with lone surrogates (see `utf8`)."""

    def render(self, content: Any) -> bytes:
        """Compact JSON, UTF-8."""
        return utf8(_COMPACT.encode(content))

    @classmethod
    def with_request_id(cls, content: Any, request_id: str) -> ReplyJSON:
        """A 200 reply of ``content`` with the request id header: the response
        ``ReplyJSON(content, headers={REQUEST_ID_HEADER: request_id})`` is, its
        headers written out directly rather than through Starlette's general path."""
        reply = cls.__new__(cls)
        reply.status_code = 200
        reply.background = None
        body = reply.body = reply.render(content)
        reply.raw_headers = [
            (_REQUEST_ID_KEY, request_id.encode("latin-1")),
            (b"content-length", str(len(body)).encode("latin-1")),
            (b"content-type", _JSON_TYPE),
        ]
        return reply


async def with_fallback(
    routes: list[ServedModel], attempt: Callable[[ServedModel], Awaitable[T]]
) -> tuple[ServedModel, T]:
    """The first route whose ``attempt`` succeeds; a fallback error moves to the next."""
    for candidate in routes[:-1]:
        try:
            return candidate, await attempt(candidate)
        except DEFAULT_FALLBACK_ON:
            continue
    return routes[-1], await attempt(routes[-1])


class Exchange:
    """One request being answered by a client protocol's handler: its id, clock and
    access-log fields, the served calls (with fallback and the disconnect watch), and
    `answer`, which turns any failure into that protocol's error reply.

    Args:
        bridge: The bridge serving the request.
        request: The HTTP request.
    """

    def __init__(self, bridge: Bridge, request: Request) -> None:
        self.bridge = bridge
        self.request = request
        self.request_id = new_request_id()
        self.elapsed = timer()
        self.path: str = request.scope["path"]
        self.route: ServedModel | None = None
        """The route asked for, once known (named in errors and the access log)."""
        self.stream = False
        """Whether the reply is streamed, once known."""
        self._watch: DisconnectWatch | None = None

    @property
    def watch(self) -> DisconnectWatch:
        """The request's disconnect watch, made on first use: after the body has been
        read (once it watches, it reads what ``receive`` gives next)."""
        if self._watch is None:
            self._watch = DisconnectWatch(self.request.receive)
        return self._watch

    def log(
        self, status: int, usage: Usage | None = None, route: ServedModel | None = None
    ) -> None:
        """Write the request's access-log record."""
        if not access_log.isEnabledFor(logging.INFO) and not self.bridge.logs_cost:
            return  # the clock is not read for nothing
        self.bridge.log(
            self.path,
            route or self.route,
            status,
            self.elapsed(),
            usage,
            stream=self.stream,
            request_id=self.request_id,
        )

    async def complete(self, request: BridgeRequest) -> tuple[ServedModel, ModelResponse]:
        """The whole reply of the route (or a fallback), cancelled if the client leaves
        or the route's ``request_timeout`` passes (one scope for both); media URLs a
        route's upstream cannot take are fetched first where allowed
        (`good_agent.server.media_fetch`), within that time."""
        assert self.route is not None, "the route is chosen first"
        media = self.bridge.fetcher.media_of(request)
        route = self.route
        watch = self.watch
        if not route.entry.fallback:  # one route: no walk, no closures
            return route, await watch.run(
                partial(media.complete, route),
                within=route.request_timeout,
                expired=route.timed_out,
            )
        return await with_fallback(
            self.bridge.candidates(route),
            lambda r: watch.run(
                lambda: media.complete(r), within=r.request_timeout, expired=r.timed_out
            ),
        )

    async def open_stream(
        self, request: BridgeRequest
    ) -> tuple[ServedModel, Batches, list[StreamBatch], AccessLog]:
        """The primed stream of the route (or a fallback), and the access-log callback
        its writer calls when it ends (media URLs fetched as for `complete`)."""
        assert self.route is not None, "the route is chosen first"
        media = self.bridge.fetcher.media_of(request)
        chosen, (items, first) = await with_fallback(
            self.bridge.candidates(self.route),
            lambda r: self.watch.run(lambda: media.prime(r)),
        )

        def done(status: int, usage: Usage) -> None:
            self.log(status, usage, chosen)

        return chosen, items, first, done

    def json(self, payload: Any) -> ReplyJSON:
        """A JSON reply carrying the request id."""
        return ReplyJSON.with_request_id(payload, self.request_id)

    def events(self, chunks: AsyncIterator[bytes]) -> EventStream:
        """A server-sent events reply carrying the request id (cancelled if the client
        leaves; the chunks ready together are written together)."""
        headers = {**SSE_HEADERS, REQUEST_ID_HEADER: self.request_id}
        return EventStream(chunks, self.watch, headers)

    async def answer(
        self,
        serve: Callable[[], Awaitable[ASGIApp]],
        refuse: Callable[[BridgeError, str], Response],
    ) -> ASGIApp:
        """``serve()``'s reply; a failure is logged once and answered by ``refuse``
        (the error and the request id), a client gone is a 499 with no reply."""
        try:
            return await serve()
        except (ClientGone, ClientDisconnect):
            # The client left (while sending its body, or before the reply was ready):
            # nothing failed on this side, and there is no one to answer.
            logger.info("request %s (%s): the client disconnected", self.request_id, self.path)
            self.log(499)
            return Response(status_code=499)
        except ModelError as exc:
            error = from_model_error(exc, self.route.name if self.route else "?")
        except BridgeError as exc:
            error = exc
        except Exception as exc:
            logger.error(
                "request %s (%s) failed: %s",
                self.request_id,
                self.path,
                type(exc).__name__,
                exc_info=exc,
            )
            error = internal_error(self.request_id)
        self.log(error.status)
        return refuse(error, self.request_id)


def error_response(error: BridgeError, anthropic: bool, request_id: str) -> JSONResponse:
    """``error`` as the JSON answer of the API it was sent to (OpenAI's or Anthropic's
    error shape), with the request id."""
    body = error.anthropic_body() if anthropic else error.openai_body()
    if anthropic:
        body["request_id"] = request_id
    headers = {**error.headers, REQUEST_ID_HEADER: request_id}
    return JSONResponse(body, status_code=error.status, headers=headers)
