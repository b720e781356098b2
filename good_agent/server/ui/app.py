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

import contextlib
import html
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib import resources
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from good_agent.core.agent import Agent
from good_agent.models.base import LanguageModel
from good_agent.server.auth import ClientKeys
from good_agent.server.errors import BridgeError
from good_agent.server.exchange import REQUEST_ID_HEADER, new_request_id
from good_agent.server.redaction import RedactWith, Secrets
from good_agent.server.request_body import read_json_body
from good_agent.server.response_store import owner_of
from good_agent.server.site_guard import DEFAULT_BODY_TIMEOUT, SiteGuard
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

_SSE_HEADERS = {"cache-control": "no-cache", "x-accel-buffering": "no"}


class EventStream(StreamingResponse):
    """A server-sent event stream that notices a client leaving even while nothing is
    written (a tool still running): the stream, and so the run, is cancelled then."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Stream the body while watching for the client's disconnect."""
        async with anyio.create_task_group() as group:

            async def stream() -> None:
                with contextlib.suppress(OSError):  # the client is gone
                    await self.stream_response(send)
                group.cancel_scope.cancel()

            group.start_soon(stream)
            await self.listen_for_disconnect(receive)
            group.cancel_scope.cancel()


class _Default:
    """The default store: a fresh in-memory SQLite database."""


DEFAULT_STORE: Any = _Default()


def _failed(request_id: str) -> BridgeError:
    """The 500 for an unexpected failure (a thread store that went away, say), naming the
    request id the log carries."""
    return BridgeError(
        500,
        f"the agent server failed on this request; the log has the details under {request_id}",
        "server_error",
        code="internal_error",
    )


def _error(error: BridgeError, request_id: str) -> JSONResponse:
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
    [`SiteGuard`][good_agent.server.site_guard.SiteGuard]: besides ``Host`` and
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
    served = ServedAgent(
        agent,
        store=SQLiteThreadStore() if store is DEFAULT_STORE else store,
        models=models,
        approval_key=approval_key,
        max_history_bytes=max_history_bytes,
    )
    browser_tools = [_client_tool(item) for item in client_tools]
    if isinstance(agent, Agent):
        clash = set(agent.tools.names()) & {t.name for t in browser_tools}
        if clash:
            raise ValueError(
                f"client_tools: {', '.join(sorted(clash))} is the name of one of the agent's tools"
            )
    browser_names = frozenset(t.name for t in browser_tools)
    keys = (
        client_keys if isinstance(client_keys, ClientKeys) else ClientKeys(list(client_keys or []))
    )
    secrets = Secrets()
    keys.add_to(secrets)
    page = resources.files("good_agent.server.ui").joinpath("chat.html").read_text("utf-8")
    page = page.replace("{{title}}", html.escape(title))

    def authorize(request: Request) -> None:
        if not keys.allows(request.headers):
            raise BridgeError(401, "missing or invalid API key", code="invalid_api_key")

    async def owner_of_request(request: Request) -> str:
        if owner is None:
            return owner_of(request.headers) if keys.required else ""
        try:
            identity = await call_deps(owner, request)
        except HTTPException as exc:
            raise BridgeError(exc.status_code, str(exc.detail), code="refused") from None
        if not isinstance(identity, str) or not identity:
            raise BridgeError(401, "the request names no user", code="no_owner")
        return identity

    async def prepare(
        request: Request, parse: Callable[[Any], Any], thread_field: str
    ) -> tuple[Any, PreparedRun]:
        authorize(request)
        body = await read_json_body(request, max_body_bytes)
        data, turn = parse(body)
        run_owner = await owner_of_request(request)
        try:
            run_deps = await call_deps(deps, request)
        except HTTPException as exc:
            raise BridgeError(exc.status_code, str(exc.detail), code="refused") from None
        return data, await served.prepare(turn, run_deps, run_owner, thread_field)

    async def endpoint(
        request: Request,
        parse: Callable[[Any], Any],
        respond: Callable[[Any, PreparedRun, str], Response],
        thread_field: str,
    ) -> Response:
        request_id = new_request_id()
        try:
            data, prepared = await prepare(request, parse, thread_field)
        except ClientDisconnect:
            return Response(status_code=499)
        except BridgeError as exc:
            return _error(exc, request_id)
        except Exception as exc:
            logger.error("request %s failed", request_id, exc_info=exc)
            return _error(_failed(request_id), request_id)
        return respond(data, prepared, request_id)

    def ag_ui_parse(body: Any) -> tuple[Any, Any]:
        data = ag_ui_wire.parse_input(body)
        return data, ag_ui_wire.to_turn(data)

    def ag_ui_respond(data: Any, prepared: PreparedRun, request_id: str) -> Response:
        frontend = {tool.name for tool in prepared.turn.frontend_tools}
        translator = ag_ui_wire.EventTranslator(
            data.thread_id, data.run_id, frontend, prepared.approval_id
        )
        chunks = ag_ui_wire.encode_run(
            served.stream(prepared), translator, lambda: prepared.messages, request_id
        )
        headers = {**_SSE_HEADERS, REQUEST_ID_HEADER: request_id}
        return EventStream(chunks, media_type="text/event-stream", headers=headers)

    def vercel_parse(body: Any) -> tuple[Any, Any]:
        data, turn = vercel_wire.parse_request(body)
        turn.frontend_tools = list(browser_tools)
        return data, turn

    def vercel_respond(data: Any, prepared: PreparedRun, request_id: str) -> Response:
        chunks = vercel_wire.encode_run(
            served.stream(prepared),
            request_id,
            prepared,
            frontend=browser_names,
            approvals=vercel_approvals,
        )
        headers = {**_SSE_HEADERS, **vercel_wire.HEADERS, REQUEST_ID_HEADER: request_id}
        return EventStream(chunks, media_type="text/event-stream", headers=headers)

    async def ag_ui(request: Request) -> Response:
        return await endpoint(request, ag_ui_parse, ag_ui_respond, "threadId")

    async def vercel(request: Request) -> Response:
        return await endpoint(request, vercel_parse, vercel_respond, "id")

    async def read_thread(request: Request) -> Response:
        request_id = new_request_id()
        try:
            authorize(request)
            thread_owner = await owner_of_request(request)
            thread_id = request.path_params["thread_id"]
            history = await served.thread(thread_id, thread_owner)
            own = await served.agent_tool_names()
        except BridgeError as exc:
            return _error(exc, request_id)
        except Exception as exc:
            logger.error("request %s failed", request_id, exc_info=exc)
            return _error(_failed(request_id), request_id)

        def approval_id(digest: str) -> str:
            return served.approval_id(thread_owner, thread_id, digest)

        body = ag_ui_wire.thread_view(thread_id, history, own, approval_id)
        return JSONResponse(body, headers={"cache-control": "no-store"})

    async def list_models(request: Request) -> Response:
        try:
            authorize(request)
        except BridgeError as exc:
            return _error(exc, new_request_id())
        names = list(served.models)
        return JSONResponse({"models": names, "default": names[0]})

    async def chat_page(request: Request) -> Response:
        return HTMLResponse(page, headers=_PAGE_HEADERS)

    async def favicon(request: Request) -> Response:
        # the page carries its icon inline; a browser asking for this one gets no 404
        return Response(status_code=204, headers={"cache-control": "max-age=86400"})

    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def http_error(request: Request, exc: Exception) -> Response:
        request_id = new_request_id()
        if isinstance(exc, HTTPException):
            message = f"{request.method} {request.url.path}: {exc.detail}"
            return _error(BridgeError(exc.status_code, message), request_id)
        logger.error("request %s (%s) failed", request_id, request.url.path, exc_info=exc)
        return _error(_failed(request_id), request_id)

    app = Starlette(
        routes=[
            Route("/", chat_page, methods=["GET"]),
            Route("/favicon.ico", favicon, methods=["GET"]),
            Route("/ag-ui", ag_ui, methods=["POST"]),
            Route("/vercel", vercel, methods=["POST"]),
            Route("/threads/{thread_id}", read_thread, methods=["GET"]),
            Route("/models", list_models, methods=["GET"]),
            Route("/health", health, methods=["GET"]),
        ],
        exception_handlers={HTTPException: http_error, Exception: http_error},
        middleware=[
            Middleware(
                SiteGuard,
                allowed_hosts=tuple(allowed_hosts),
                allowed_origins=tuple(allowed_origins),
                body_timeout=body_timeout,
            ),
            Middleware(RedactWith, secrets=secrets),
        ],
    )
    app.router.redirect_slashes = False
    app.state.served = served
    return app


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
