"""Closing a local server to other sites: ``Host``, ``Origin``, content types, CORS and
request-body deadlines, checked before a request reaches the application.

[`SiteGuard`][good_agent.server.common.site_guard.SiteGuard] is a plain ASGI middleware shared by
the bridge (`good-agent serve`), the agent app (`agent_app`, `good-agent serve-agent`)
and MCP over HTTP (`good-agent mcp-serve --http`).
For each HTTP request:

- **Host.** The ``Host`` header must name this server: a loopback name
  (``localhost``, ``127.0.0.1``, ``[::1]``, any port, always), or one of the configured
  allowed hosts (``example.com`` at any port, ``example.com:8443`` at that port only,
  ``*.example.com`` for its subdomains, ``*`` for any). Anything else is a **421**: a page
  on a foreign name that rebinds to ``127.0.0.1`` (DNS rebinding) reaches nothing. A
  request without ``Host`` (HTTP/1.0, an ASGI call made in code) comes from no browser
  and is served.
- **Origin.** A state-changing request (``POST``, ``PUT``, ``PATCH``, ``DELETE``) that
  carries an ``Origin`` must come from the server's own origin (the ``Origin`` names the
  ``Host`` it was sent to) or from a configured allowed origin; otherwise it is a
  **403**. A request without ``Origin`` is not from a browser page and is served.
- **Content type.** The body of a state-changing request must be JSON
  (``application/json`` or a ``+json`` type, any parameters), or have no
  ``Content-Type`` at all (a non-browser client); ``text/plain``, form encodings and
  anything else are a **415** naming the ``Content-Type`` header.
- **CORS.** Only the configured allowed origins get CORS headers; a preflight
  (``OPTIONS`` with ``Access-Control-Request-Method``) from one of them is answered here
  (204), from any other origin it is a 403.
- **Body deadline.** A request body must arrive whole within ``body_timeout`` seconds
  of the request's start; a client that stops half-way gets a **408** and its
  connection is closed (the application sees a client that left).

Refusals are JSON (``{"error": {"message", "type", "param", "code"}}`` unless the
application gives its own shape). The checks cost a dictionary lookup for a ``Host``
already seen and a few string comparisons; nothing is wrapped for a request without a
body.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable, Iterable
from typing import Any

import anyio
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from good_agent.server.common.errors import HTTPError

LOOPBACK_HOSTS: tuple[str, ...] = ("localhost", "127.0.0.1", "[::1]")
"""The names a server bound to loopback answers to by default (any port)."""

DEFAULT_BODY_TIMEOUT = 30.0
"""Seconds a client has to send its whole request body by default."""

STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
"""The methods whose ``Origin`` and content type are checked."""

Refuse = Callable[[Scope, HTTPError], Response]
"""Renders a refusal in the application's own error shape."""

_MAX_REMEMBERED_HOSTS = 256
_CORS_HEADERS = "authorization, content-type, x-api-key"


def _default_refuse(scope: Scope, error: HTTPError) -> Response:
    return JSONResponse(error.openai_body(), status_code=error.status, headers=error.headers)


def split_host(host: str) -> tuple[str, str]:
    """``host`` (a ``Host`` header value) as its lower-case name, without a trailing dot,
    and its port (``""`` when none); an IPv6 literal keeps its brackets."""
    host = host.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        if end < 0:
            return host, ""
        name, rest = host[: end + 1], host[end + 1 :]
        return name, rest[1:] if rest.startswith(":") else ""
    name, colon, port = host.rpartition(":")
    if not colon:
        name, port = host, ""
    return name.rstrip("."), port


def normalize_origin(origin: str) -> str:
    """``origin`` as browsers send it: lower-case, without a trailing slash."""
    return origin.strip().lower().rstrip("/")


class HostRule:
    """Which ``Host`` values a server answers to.

    Args:
        allowed: Host names (any port), ``name:port`` pairs, ``*.domain`` patterns or
            ``*``, answered besides the loopback names of
            [`LOOPBACK_HOSTS`][good_agent.server.common.site_guard.LOOPBACK_HOSTS] (always).
    """

    def __init__(self, allowed: Iterable[str] = ()) -> None:
        entries = [*LOOPBACK_HOSTS, *(entry.strip().lower() for entry in allowed if entry.strip())]
        self.any = "*" in entries
        self.names: set[str] = set()
        self.pairs: set[str] = set()
        self.suffixes: list[str] = []
        for entry in entries:
            if entry == "*":
                continue
            if entry.startswith("*."):
                self.suffixes.append(entry[1:])
                continue
            name, port = split_host(entry)
            if entry == "::1":
                name, port = "[::1]", ""
            (self.pairs.add(f"{name}:{port}") if port else self.names.add(name))

    def allows(self, host: str) -> bool:
        """Whether a request whose ``Host`` is ``host`` is for this server."""
        if self.any:
            return True
        name, port = split_host(host)
        if not name:
            return False
        if name in self.names or (port and f"{name}:{port}" in self.pairs):
            return True
        return any(name.endswith(suffix) for suffix in self.suffixes)


class SiteGuard:
    """ASGI middleware closing ``app`` to other sites (see the module docstring).

    Args:
        app: The application guarded.
        allowed_hosts: The ``Host`` names served besides the loopback names.
        allowed_origins: Origins (``https://app.example.com``) allowed to send
            state-changing requests and given CORS headers; ``*`` allows any origin
            (for a server whose every route needs a client key).
        body_timeout: Seconds a request body may take to arrive (``None``: no limit).
        refuse: Renders a refusal in the application's error shape.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        allowed_hosts: Iterable[str] = (),
        allowed_origins: Iterable[str] = (),
        body_timeout: float | None = DEFAULT_BODY_TIMEOUT,
        refuse: Refuse | None = None,
    ) -> None:
        if body_timeout is not None and not body_timeout > 0:
            raise ValueError(f"body_timeout must be a positive number of seconds: {body_timeout}")
        self.app = app
        self.hosts = HostRule(allowed_hosts)
        self.origins = frozenset(normalize_origin(o) for o in allowed_origins if o.strip())
        self.any_origin = "*" in self.origins
        self.body_timeout = body_timeout
        self.refuse = refuse or _default_refuse
        self._seen_hosts: dict[bytes, bool] = {}
        self.deadlines = BodyDeadlines(min(1.0, (body_timeout or 4.0) / 4))

    def _host_allowed(self, raw: bytes) -> bool:
        known = self._seen_hosts.get(raw)
        if known is None:
            known = self.hosts.allows(raw.decode("latin-1"))
            if len(self._seen_hosts) < _MAX_REMEMBERED_HOSTS:
                self._seen_hosts[raw] = known
        return known

    def origin_allowed(self, origin: str, host: str) -> bool:
        """Whether a page of ``origin`` may change state on this server, reached as ``host``."""
        origin = normalize_origin(origin)
        if self.any_origin or origin in self.origins:
            return True
        _, sep, netloc = origin.partition("://")
        return bool(sep) and netloc == host.strip().lower()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check one request, then pass it on (or answer the refusal)."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = origin = content_type = preflight = None
        for name, value in scope["headers"]:
            if name == b"host":
                host = value
            elif name == b"origin":
                origin = value
            elif name == b"content-type":
                content_type = value
            elif name == b"access-control-request-method":
                preflight = value
        if host is not None and not self._host_allowed(host):
            await self._refuse(
                scope,
                receive,
                send,
                HTTPError(
                    421,
                    f"this server does not answer to the host {host.decode('latin-1')!r}; add "
                    "it to the allowed hosts (--allowed-host) if it names this server",
                    param="Host",
                    code="host_not_allowed",
                ),
            )
            return
        method = scope["method"]
        cors: bytes | None = None
        if origin is not None:
            host_text = host.decode("latin-1") if host is not None else ""
            origin_text = origin.decode("latin-1")
            listed = self.any_origin or normalize_origin(origin_text) in self.origins
            if method == "OPTIONS" and preflight is not None:
                if not listed:
                    await self._refuse(scope, receive, send, _origin_error(origin_text))
                    return
                await self._preflight(scope, origin, send)
                return
            if method in STATE_CHANGING and not self.origin_allowed(origin_text, host_text):
                await self._refuse(scope, receive, send, _origin_error(origin_text))
                return
            if listed:
                cors = origin
        if method in STATE_CHANGING and content_type is not None and not _is_json(content_type):
            await self._refuse(
                scope,
                receive,
                send,
                HTTPError(
                    415,
                    "the Content-Type header must be application/json (or a +json type), "
                    f"not {content_type.decode('latin-1')!r}",
                    param="Content-Type",
                    code="unsupported_media_type",
                ),
            )
            return
        if cors is not None:
            send = _with_cors(send, cors)
        if self.body_timeout is None or method not in STATE_CHANGING:
            await self.app(scope, receive, send)
            return
        await self._with_deadline(scope, receive, send)

    async def _with_deadline(self, scope: Scope, receive: Receive, send: Send) -> None:
        deadline = time.monotonic() + (self.body_timeout or math.inf)
        state = {"body_done": False, "answered": False, "started": False}

        async def timed_receive() -> Message:
            if state["body_done"]:
                return await receive()
            message = await self.deadlines.receive(receive, deadline)
            if message is None:
                state["body_done"] = True
                if not state["started"]:
                    state["answered"] = True
                    error = HTTPError(
                        408,
                        f"the request body did not arrive within {self.body_timeout:g} seconds",
                        code="request_timeout",
                        headers={"connection": "close"},
                    )
                    await self.refuse(scope, error)(scope, receive, send)
                return {"type": "http.disconnect"}
            if message["type"] != "http.request" or not message.get("more_body", False):
                state["body_done"] = True
            return message

        async def guarded_send(message: Message) -> None:
            if state["answered"]:
                return
            if message["type"] == "http.response.start":
                state["started"] = True
            await send(message)

        await self.app(scope, timed_receive, guarded_send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, error: HTTPError) -> None:
        await self.refuse(scope, error)(scope, receive, send)

    async def _preflight(self, scope: Scope, origin: bytes, send: Send) -> None:
        requested = b""
        for name, value in scope["headers"]:
            if name == b"access-control-request-headers":
                requested = value
        await send(
            {
                "type": "http.response.start",
                "status": 204,
                "headers": [
                    (b"access-control-allow-origin", origin),
                    (b"access-control-allow-methods", b"GET, POST, PUT, PATCH, DELETE, OPTIONS"),
                    (b"access-control-allow-headers", requested or _CORS_HEADERS.encode()),
                    (b"access-control-max-age", b"600"),
                    (b"vary", b"Origin"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": b""})


class BodyDeadlines:
    """The tasks waiting for a request body, with their deadlines; one sweeper task per
    event loop cancels those past theirs, every ``tick`` seconds (and stops after two
    ticks with none waiting: an idle server keeps no task of its own). A request pays
    two dictionary operations, not a timer of its own (a cancel scope or a timer handle
    each cost several times the guard's other checks).
    """

    def __init__(self, tick: float) -> None:
        self.tick = tick
        self.waiting: dict[asyncio.Task[Any], float] = {}
        self.expired: set[asyncio.Task[Any]] = set()
        self._sweeper: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def receive(self, receive: Receive, deadline: float) -> Message | None:
        """The next message of ``receive``, or ``None`` once ``deadline`` (a
        ``time.monotonic`` value) has passed."""
        if deadline <= time.monotonic():
            return None
        try:
            loop = asyncio.get_running_loop()
            task = asyncio.current_task()
        except RuntimeError:  # not asyncio (trio): a cancel scope does it
            task = None
        if task is None:
            with anyio.move_on_after(deadline - time.monotonic()):
                return await receive()
            return None
        if self._loop is not loop or self._sweeper is None or self._sweeper.done():
            self._loop = loop
            self._sweeper = loop.create_task(self._sweep())
        self.waiting[task] = deadline
        try:
            return await receive()
        except asyncio.CancelledError:
            if task not in self.expired or task.uncancel() > 0:
                raise  # cancelled from elsewhere as well: not ours to swallow
            return None
        finally:
            del self.waiting[task]
            self.expired.discard(task)

    async def _sweep(self) -> None:
        idle = 0.0
        while idle < 2 * self.tick:
            await asyncio.sleep(self.tick)
            idle = idle + self.tick if not self.waiting else 0.0
            now = time.monotonic()
            for task, deadline in list(self.waiting.items()):
                if deadline <= now and task not in self.expired:
                    self.expired.add(task)
                    task.cancel()


def _origin_error(origin: str) -> HTTPError:
    return HTTPError(
        403,
        f"requests from the origin {origin!r} are not accepted; add it to the allowed "
        "origins (--allowed-origin) if pages there may use this server",
        "permission_error",
        param="Origin",
        code="origin_not_allowed",
    )


def _is_json(content_type: bytes) -> bool:
    media = content_type.split(b";", 1)[0].strip().lower()
    return media == b"application/json" or media.endswith(b"+json")


def _with_cors(send: Send, origin: bytes) -> Send:
    async def cors_send(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = list(message.get("headers", ()))
            headers.append((b"access-control-allow-origin", origin))
            headers.append((b"access-control-expose-headers", b"x-request-id"))
            headers.append((b"vary", b"Origin"))
            message = {**message, "headers": headers}
        await send(message)

    return cors_send
