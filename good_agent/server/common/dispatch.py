"""The bridge's ASGI application: its routes dispatched straight to their endpoints.

`BridgeApp` is a Starlette application whose own routes (an
`Endpoint` list: method, path, endpoint) are looked up in one dictionary,
each at its path and with a trailing slash, and called directly: no router walk,
no middleware but the [`SiteGuard`][good_agent.server.common.site_guard.SiteGuard] every
request passes first (``Host``, ``Origin``, content type, body deadline: a few
microseconds), no exception wrappers per request. An endpoint takes a Starlette
``Request`` and returns an ASGI response (a Starlette ``Response``, or the bridge's
own `EventStream`); an exception it lets out is
answered by the error handler. Anything else (another method, an unknown path, the
lifespan) goes through Starlette, which has the same routes registered, so a wrong
method is still a 405 and an unknown path a 404, from the same handler. A path with
parameters (``/v1/responses/{response_id}``) is matched by Starlette's router too,
which puts them in ``request.path_params``.

Measured in ``benchmarks/bridge.py`` (see docs/performance.md): Starlette's router,
middleware and exception wrappers were about an eighth of the bridge's CPU per
request.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, NamedTuple

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from good_agent.server.common.redaction import Secrets, enter, leave
from good_agent.server.common.site_guard import SiteGuard

EndpointFunction = Callable[[Request], Awaitable[ASGIApp]]
"""An endpoint: a request in, an ASGI response out."""
ErrorHandler = Callable[[Request, Exception], Awaitable[Response]]
"""Answers an exception an endpoint let out (and Starlette's 404 and 405)."""


class Endpoint(NamedTuple):
    """One route: ``method`` and ``path`` (also served with a trailing slash unless
    ``slash`` is false)."""

    method: str
    path: str
    endpoint: EndpointFunction
    slash: bool = True


class BridgeApp(Starlette):
    """Starlette with the bridge's routes dispatched directly (see the module docstring).

    Args:
        endpoints: The routes.
        error: The error handler.
        lifespan: The application's lifespan.
        secrets: The bridge's secrets, redacted from the errors of each request it
            serves (see `good_agent.server.common.redaction`).
        site: Keyword arguments of the
            [`SiteGuard`][good_agent.server.common.site_guard.SiteGuard] every request passes
            first (``Host``, ``Origin``, content type, CORS, body deadline); default:
            its defaults.
    """

    def __init__(
        self,
        endpoints: Sequence[Endpoint],
        *,
        error: ErrorHandler,
        lifespan: Callable[[Starlette], AbstractAsyncContextManager[None]] | None = None,
        secrets: Secrets | None = None,
        site: dict[str, Any] | None = None,
    ) -> None:
        self.guard = SiteGuard(self._dispatch, **(site or {}))
        self.secrets = secrets if secrets is not None else Secrets()
        self.fast: dict[tuple[str, str], EndpointFunction] = {}
        routes: list[Route] = []
        for method, path, endpoint, slash in endpoints:
            for variant in (path, f"{path}/") if slash else (path,):
                if "{" not in path:  # a path with parameters is matched by Starlette
                    self.fast[(method, variant)] = endpoint
                routes.append(Route(variant, endpoint, methods=[method]))
        self.error = error
        super().__init__(
            routes=routes,
            exception_handlers={HTTPException: error, Exception: error},
            lifespan=lifespan,
        )
        # Never answer with a redirect: Starlette builds its Location from the client's
        # Host header. Each path is served with and without a trailing slash instead.
        self.router.redirect_slashes = False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one connection scope, with the bridge's secrets as the request's."""
        token = enter(self.secrets)
        try:
            await self.guard(scope, receive, send)
        finally:
            leave(token)

    async def _dispatch(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not scope.get("root_path"):
            endpoint = self.fast.get((scope["method"], scope["path"]))
            if endpoint is not None:
                scope["app"] = self
                request = Request(scope, receive, send)
                try:
                    response = await endpoint(request)
                except Exception as exc:
                    response = await self.error(request, exc)
                await response(scope, receive, send)
                return
        await super().__call__(scope, receive, send)
