"""One request's plumbing, shared by every client protocol the bridge speaks.

The request id and its header, the compact JSON reply, the SSE headers, the
disconnect watch that cancels the upstream call when the client leaves, and the
walk along a route's ``fallback`` entries.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse

from good_agent.models.fallback_model import DEFAULT_FALLBACK_ON
from good_agent.server.openai_api import utf8
from good_agent.server.served import ServedModel

T = TypeVar("T")

REQUEST_ID_HEADER = "x-request-id"
"""The response header carrying the request's id (also in the access log and error logs)."""

SSE_HEADERS = {"cache-control": "no-cache", "x-accel-buffering": "no"}
"""The headers of a streamed (server-sent events) reply."""


class ReplyJSON(JSONResponse):
    """A JSON response that survives text with lone surrogates (see :func:`utf8`)."""

    def render(self, content: Any) -> bytes:
        """Compact JSON, UTF-8."""
        return utf8(json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":")))


class ClientGone(Exception):
    """The client disconnected before the reply was ready."""


def new_request_id() -> str:
    """A fresh request id (``req_`` and 24 hex digits)."""
    return f"req_{uuid.uuid4().hex[:24]}"


async def until_disconnect(request: Request, work: Callable[[], Awaitable[T]]) -> T:
    """Run ``work``; cancel it and raise :class:`ClientGone` if the client leaves first."""
    outcome: list[T] = []
    failure: list[Exception] = []
    async with anyio.create_task_group() as group:

        async def watch() -> None:
            while True:
                message = await request.receive()
                if message["type"] == "http.disconnect":
                    group.cancel_scope.cancel()
                    return

        group.start_soon(watch)
        try:
            outcome.append(await work())
        except Exception as exc:
            failure.append(exc)
        group.cancel_scope.cancel()
    if failure:
        raise failure[0]
    if not outcome:
        raise ClientGone
    return outcome[0]


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
