"""The ASGI application that serves an agent to user interfaces.

``POST /ag-ui`` (AG-UI), ``POST /vercel`` (the Vercel AI SDK's UI message stream),
``GET /threads/{id}`` (a thread's messages in AG-UI form, for its owner),
``GET /models`` (the models a client may pick), ``GET /`` (the chat page) and
``GET /health``. Client keys work as in the bridge (``Authorization: Bearer`` or
``x-api-key``); the chat page itself needs none, its requests do. Each thread belongs
to whoever started it (the SHA-256 of the client key, or the identity the ``owner``
hook returns); anyone else naming its id gets a 404 ``thread not found``. An input that is not
valid is a 400 whose JSON body names the field (``{"error": {"message", "param"...}}``);
nothing is streamed before the input was checked against the thread. A client that
disconnects cancels the run: calls that had finished keep their results in the saved
history, and the others get an error result.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp

from good_agent.core.agent import Agent
from good_agent.models.base import LanguageModel
from good_agent.server.common.auth import ClientKeys, owner_of
from good_agent.server.common.disconnect import DisconnectWatch
from good_agent.server.common.errors import HTTPError
from good_agent.server.common.ids import REQUEST_ID_HEADER, new_request_id
from good_agent.server.common.redaction import RedactWith, Secrets
from good_agent.server.common.request_body import read_json_body
from good_agent.server.common.site_guard import DEFAULT_BODY_TIMEOUT, SiteGuard
from good_agent.server.common.sse import SSE_HEADERS, EventStream
from good_agent.server.ui import ag_ui_wire, vercel_wire
from good_agent.server.ui.session import (
    DEFAULT_MAX_HISTORY_BYTES,
    AgentSource,
    PreparedRun,
    ServedAgent,
    call_deps,
    frontend_tool,
)
from good_agent.server.ui.threads import SQLiteThreadStore, ThreadStore
from good_agent.tools.tool import Tool

logger = logging.getLogger("good_agent.server.ui")

DEFAULT_MAX_BODY_BYTES = 4_000_000
"""The largest request body accepted by default (a whole history may be sent)."""

class _Default:
    """The default store: a fresh in-memory SQLite database."""


DEFAULT_STORE: Any = _Default()


def _failed(request_id: str) -> HTTPError:
    """The 500 for an unexpected failure (a thread store that went away, say), naming the
    request id the log carries."""
    return HTTPError(
        500,
        f"the agent server failed on this request; the log has the details under {request_id}",
        "server_error",
        code="internal_error",
    )


def _error(error: HTTPError, request_id: str) -> JSONResponse:
    headers = {**error.headers, REQUEST_ID_HEADER: request_id}
    return JSONResponse(error.openai_body(), status_code=error.status, headers=headers)


def agent_app(
    agent: AgentSource,
    *,
    deps: Callable[[Request], Any] | None = None,
    store: ThreadStore | None = DEFAULT_STORE,
    models: Mapping[str, LanguageModel | str] | None = None,
    client_keys: ClientKeys | Iterable[str] | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    title: str = "good-agent",
    allowed_hosts: Iterable[str] = (),
    allowed_origins: Iterable[str] = (),
    body_timeout: float | None = DEFAULT_BODY_TIMEOUT,
    owner: Callable[[Request], Any] | None = None,
    approval_key: str | bytes | None = None,
    max_history_bytes: int = DEFAULT_MAX_HISTORY_BYTES,
    client_tools: Sequence[Tool | Callable[..., Any]] = (),
    vercel_approvals: bool = True,
) -> Starlette:
    """An ASGI (Starlette) application serving ``agent`` over AG-UI, the Vercel AI UI
    message stream and a chat page.

    Args:
        agent: An [`Agent`][good_agent.Agent] (each run a conversation of its own: threads
            run concurrently) or a function returning a new agent per run.
        deps: Turns the HTTP request into the run's deps (sync or async); raising
            ``starlette.exceptions.HTTPException`` refuses the request with its status.
        store: Where thread histories are kept (default: an in-memory
            [`SQLiteThreadStore`][good_agent.server.ui.SQLiteThreadStore], at most
            1,000 threads and 256 MB, each kept an hour after its last run), the only
            source of a thread's past; ``None`` keeps none, so clients send the whole
            history (and are trusted with it: they could write tool calls into it).
        models: The models a client may pick, by name (default: the agent's own).
        client_keys: The keys clients must present (none: no key is asked for).
        max_body_bytes: The largest request body accepted (413 beyond).
        title: The chat page's title.
        allowed_hosts: ``Host`` names answered besides the loopback names
            (``example.com``, ``example.com:8443``, ``*.example.com``, or ``*``); any other
            is a 421.
        allowed_origins: Browser origins (``https://app.example.com``, or ``*``) that may
            send requests from their pages and get CORS headers; a state-changing request
            from any other origin but the app's own is a 403.
        body_timeout: Seconds a client has to send its whole request body (408 beyond;
            ``None``: no limit).

    Every request first passes a
    [`SiteGuard`][good_agent.server.common.site_guard.SiteGuard]: besides ``Host`` and
    ``Origin``, the body of a ``POST`` must be JSON (415 otherwise).
        owner: Turns the HTTP request into the identity that owns its threads (a
            non-empty string; sync or async), for an app with its own login; raising
            ``starlette.exceptions.HTTPException`` refuses the request with its status.
            Without it a thread's owner is the SHA-256 of the client key, or one local
            owner on a server without keys.
        approval_key: The secret approval ids are keyed with (default: the variable
            ``GOOD_AGENT_APPROVAL_KEY``, else random per process; workers sharing a
            store must share it).
        max_history_bytes: The largest history a thread may reach and still be
            continued (a 400 naming the thread field beyond).
        client_tools: Tools the browser runs, for ``/vercel`` clients (the Vercel AI
            SDK's ``onToolCall`` + ``addToolResult``): each a
            [`Tool`][good_agent.Tool] or a function whose signature and docstring
            describe it (its body never runs on the server). The model may call them; the
            stream carries the call with no result and ends, and the next request carries
            the output. Their names may not be those of the agent's tools. (AG-UI clients
            declare theirs in each request's ``tools``.)
        vercel_approvals: Whether ``/vercel`` asks for approvals the way ai 6 and later do
            (``tool-approval-request``, ``tool-output-denied``). ``False`` serves clients of
            ai 5, which reject those chunks: a waiting call is told as a
            ``data-tool-approval`` part and a denial as ``tool-output-error``.
    """
    server = AgentServer(
        agent,
        deps=deps,
        store=SQLiteThreadStore() if store is DEFAULT_STORE else store,
        models=models,
        client_keys=client_keys,
        max_body_bytes=max_body_bytes,
        title=title,
        owner=owner,
        approval_key=approval_key,
        max_history_bytes=max_history_bytes,
        client_tools=client_tools,
        vercel_approvals=vercel_approvals,
    )
    app = Starlette(
        routes=server.routes(),
        exception_handlers={HTTPException: server.http_error, Exception: server.http_error},
        middleware=[
            Middleware(
                SiteGuard,
                allowed_hosts=tuple(allowed_hosts),
                allowed_origins=tuple(allowed_origins),
                body_timeout=body_timeout,
            ),
            Middleware(RedactWith, secrets=server.secrets),
        ],
    )
    app.router.redirect_slashes = False
    app.state.served = server.served
    return app


class AgentServer:
    """The state of one served agent and its endpoints (see `agent_app`, which builds
    one and routes requests to its methods).

    Args:
        agent: As for `agent_app`.
        deps: As for `agent_app`.
        store: The thread store (``None``: none).
        models: As for `agent_app`.
        client_keys: As for `agent_app`.
        max_body_bytes: As for `agent_app`.
        title: As for `agent_app`.
        owner: As for `agent_app`.
        approval_key: As for `agent_app`.
        max_history_bytes: As for `agent_app`.
        client_tools: As for `agent_app`.
        vercel_approvals: As for `agent_app`.
    """

    def __init__(
        self,
        agent: AgentSource,
        *,
        deps: Callable[[Request], Any] | None,
        store: ThreadStore | None,
        models: Mapping[str, LanguageModel | str] | None,
        client_keys: ClientKeys | Iterable[str] | None,
        max_body_bytes: int,
        title: str,
        owner: Callable[[Request], Any] | None,
        approval_key: str | bytes | None,
        max_history_bytes: int,
        client_tools: Sequence[Tool | Callable[..., Any]],
        vercel_approvals: bool,
    ) -> None:
        self.served = ServedAgent(
            agent,
            store=store,
            models=models,
            approval_key=approval_key,
            max_history_bytes=max_history_bytes,
        )
        self.browser_tools = [_client_tool(item) for item in client_tools]
        if isinstance(agent, Agent):
            clash = set(agent.tools.names()) & {t.name for t in self.browser_tools}
            if clash:
                raise ValueError(
                    f"client_tools: {', '.join(sorted(clash))} is the name of one of the "
                    "agent's tools"
                )
        self.browser_names = frozenset(t.name for t in self.browser_tools)
        self.keys = (
            client_keys
            if isinstance(client_keys, ClientKeys)
            else ClientKeys(list(client_keys or []))
        )
        self.secrets = Secrets()
        """The client keys, redacted from errors and logs."""
        self.keys.add_to(self.secrets)
        self.deps = deps
        self.owner = owner
        self.max_body_bytes = max_body_bytes
        self.vercel_approvals = vercel_approvals
        page = resources.files("good_agent.server.ui").joinpath("chat.html").read_text("utf-8")
        self.page = page.replace("{{title}}", html.escape(title))

    def routes(self) -> list[Route]:
        """The application's routes."""
        return [
            Route("/", self.chat_page, methods=["GET"]),
            Route("/favicon.ico", self.favicon, methods=["GET"]),
            Route("/ag-ui", self.ag_ui, methods=["POST"]),
            Route("/vercel", self.vercel, methods=["POST"]),
            Route("/threads/{thread_id}", self.read_thread, methods=["GET"]),
            Route("/models", self.list_models, methods=["GET"]),
            Route("/health", self.health, methods=["GET"]),
        ]

    def authorize(self, request: Request) -> None:
        """Refuse a request without an accepted key (401)."""
        if not self.keys.allows(request.headers):
            raise HTTPError(401, "missing or invalid API key", code="invalid_api_key")

    async def owner_of_request(self, request: Request) -> str:
        """The identity owning the request's threads (see ``owner`` of `agent_app`)."""
        if self.owner is None:
            return owner_of(request.headers) if self.keys.required else ""
        try:
            identity = await call_deps(self.owner, request)
        except HTTPException as exc:
            raise HTTPError(exc.status_code, str(exc.detail), code="refused") from None
        if not isinstance(identity, str) or not identity:
            raise HTTPError(401, "the request names no user", code="no_owner")
        return identity

    async def prepare(
        self, request: Request, parse: Callable[[Any], Any], thread_field: str
    ) -> tuple[Any, PreparedRun]:
        """The parsed input and the run prepared from it (authorized, body read, owner
        and deps known, the thread loaded)."""
        self.authorize(request)
        body = await read_json_body(request, self.max_body_bytes)
        data, turn = parse(body)
        run_owner = await self.owner_of_request(request)
        try:
            run_deps = await call_deps(self.deps, request)
        except HTTPException as exc:
            raise HTTPError(exc.status_code, str(exc.detail), code="refused") from None
        return data, await self.served.prepare(turn, run_deps, run_owner, thread_field)

    async def run_endpoint(
        self,
        request: Request,
        parse: Callable[[Any], Any],
        respond: Callable[[Request, Any, PreparedRun, str], ASGIApp],
        thread_field: str,
    ) -> ASGIApp:
        """A run's reply: ``parse`` reads the body, ``respond`` streams the run; a
        failure before the stream begins is a JSON error."""
        request_id = new_request_id()
        try:
            data, prepared = await self.prepare(request, parse, thread_field)
        except ClientDisconnect:
            return Response(status_code=499)
        except HTTPError as exc:
            return _error(exc, request_id)
        except Exception as exc:
            logger.error("request %s failed", request_id, exc_info=exc)
            return _error(_failed(request_id), request_id)
        return respond(request, data, prepared, request_id)

    def ag_ui_parse(self, body: Any) -> tuple[Any, Any]:
        """An AG-UI ``RunAgentInput`` and its turn."""
        data = ag_ui_wire.parse_input(body)
        return data, ag_ui_wire.to_turn(data)

    def ag_ui_respond(
        self, request: Request, data: Any, prepared: PreparedRun, request_id: str
    ) -> ASGIApp:
        """The run as AG-UI events."""
        frontend = {tool.name for tool in prepared.turn.frontend_tools}
        translator = ag_ui_wire.EventTranslator(
            data.thread_id, data.run_id, frontend, prepared.approval_id
        )
        chunks = ag_ui_wire.encode_run(
            self.served.stream(prepared), translator, lambda: prepared.messages, request_id
        )
        headers = {**SSE_HEADERS, REQUEST_ID_HEADER: request_id}
        return EventStream(chunks, DisconnectWatch(request.receive), headers)

    def vercel_parse(self, body: Any) -> tuple[Any, Any]:
        """A Vercel AI SDK request and its turn."""
        data, turn = vercel_wire.parse_request(body)
        turn.frontend_tools = list(self.browser_tools)
        return data, turn

    def vercel_respond(
        self, request: Request, data: Any, prepared: PreparedRun, request_id: str
    ) -> ASGIApp:
        """The run as a Vercel AI UI message stream."""
        chunks = vercel_wire.encode_run(
            self.served.stream(prepared),
            request_id,
            prepared,
            frontend=self.browser_names,
            approvals=self.vercel_approvals,
        )
        headers = {**SSE_HEADERS, **vercel_wire.HEADERS, REQUEST_ID_HEADER: request_id}
        return EventStream(chunks, DisconnectWatch(request.receive), headers)

    async def ag_ui(self, request: Request) -> ASGIApp:
        """``POST /ag-ui``."""
        return await self.run_endpoint(request, self.ag_ui_parse, self.ag_ui_respond, "threadId")

    async def vercel(self, request: Request) -> ASGIApp:
        """``POST /vercel``."""
        return await self.run_endpoint(request, self.vercel_parse, self.vercel_respond, "id")

    async def read_thread(self, request: Request) -> Response:
        """``GET /threads/{id}``: a thread's messages in AG-UI form, for its owner."""
        request_id = new_request_id()
        served = self.served
        try:
            self.authorize(request)
            thread_owner = await self.owner_of_request(request)
            thread_id = request.path_params["thread_id"]
            history = await served.thread(thread_id, thread_owner)
            own = await served.agent_tool_names()
        except HTTPError as exc:
            return _error(exc, request_id)
        except Exception as exc:
            logger.error("request %s failed", request_id, exc_info=exc)
            return _error(_failed(request_id), request_id)

        def approval_id(digest: str) -> str:
            return served.approval_id(thread_owner, thread_id, digest)

        body = ag_ui_wire.thread_view(thread_id, history, own, approval_id)
        return JSONResponse(body, headers={"cache-control": "no-store"})

    async def list_models(self, request: Request) -> Response:
        """``GET /models``: the models a client may pick, the default first."""
        try:
            self.authorize(request)
        except HTTPError as exc:
            return _error(exc, new_request_id())
        names = list(self.served.models)
        return JSONResponse({"models": names, "default": names[0]})

    async def chat_page(self, request: Request) -> Response:
        """``GET /``: the chat page."""
        return HTMLResponse(self.page, headers=_PAGE_HEADERS)

    async def favicon(self, request: Request) -> Response:
        """``GET /favicon.ico``: none (the page carries its icon inline), without a 404."""
        return Response(status_code=204, headers={"cache-control": "max-age=86400"})

    async def health(self, request: Request) -> Response:
        """``GET /health``."""
        return JSONResponse({"status": "ok"})

    async def http_error(self, request: Request, exc: Exception) -> Response:
        """Starlette's errors (404, 405...) and unexpected failures, as JSON errors."""
        request_id = new_request_id()
        if isinstance(exc, HTTPException):
            message = f"{request.method} {request.url.path}: {exc.detail}"
            return _error(HTTPError(exc.status_code, message), request_id)
        logger.error("request %s (%s) failed", request_id, request.url.path, exc_info=exc)
        return _error(_failed(request_id), request_id)


def _client_tool(item: Tool | Callable[..., Any]) -> Tool:
    """A tool the browser runs, from a tool or a function describing it."""
    described = item if isinstance(item, Tool) else Tool.from_function(item)
    return frontend_tool(described.name, described.description, described.parameters)


_PAGE_POLICY = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)
"""The chat page loads nothing from elsewhere: its script and style are inline; no
other page may frame it."""

_PAGE_HEADERS = {
    "content-security-policy": _PAGE_POLICY,
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}
