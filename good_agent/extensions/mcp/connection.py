"""One connection to an MCP server, owned by a background task.

The MCP SDK's client context managers (the stdio subprocess, the HTTP stream, the
session's task group) must be entered and exited in the same task. A
`MCPConnection` therefore runs them in a task of its own, beside the agent:
`start` launches it and waits (bounded) until the tools are
listed, `close` asks it to exit and waits (bounded) until the
session and the server process are gone. Tool calls go straight through the
session from the caller's task, each under a timeout.

On asyncio the owner is a plain task on the running loop, so the agent may be
installed and closed from any task, inside any cancel scopes. On other anyio
backends it runs in a task group entered by `start`; `close` must then
run in the same task as `start` (as ``async with agent:`` does).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Literal, TextIO

import anyio
import anyio.abc
import anyio.lowlevel
import httpx2
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from good_agent.extensions.mcp.errors import MCPServerError, MCPStartError
from good_agent.types.errors import ToolError

logger = logging.getLogger("good_agent.mcp")

_MAX_PAGES = 100
_CLIENT_INFO = types.Implementation(name="good-agent", version="0.1.0")

ToolsCallback = Callable[[list[types.Tool]], None]
"""Receives the server's complete tool list after each re-list."""


def _transport(
    target: StdioServerParameters | str,
    headers: dict[str, str] | None,
    errlog: TextIO | None,
) -> AbstractAsyncContextManager[Any]:
    if isinstance(target, StdioServerParameters):
        return stdio_client(target, errlog=errlog or sys.stderr)
    return _http_transport(target, headers)


@asynccontextmanager
async def _http_transport(url: str, headers: dict[str, str] | None) -> AsyncIterator[Any]:
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=300.0)) as http,
        streamable_http_client(url, http_client=http) as streams,
    ):
        yield streams


class _Background:
    """Runs the owner coroutine beside the caller (see the module docs)."""

    def __init__(self) -> None:
        self._task: asyncio.Task[None] | None = None
        self._group: anyio.abc.TaskGroup | None = None

    async def spawn(self, function: Callable[[], Coroutine[Any, Any, None]]) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is not None:
            self._task = loop.create_task(function())
            return
        self._group = anyio.create_task_group()
        await self._group.__aenter__()
        self._group.start_soon(function)

    async def join(self) -> None:
        if self._group is not None:
            group, self._group = self._group, None
            await group.__aexit__(None, None, None)
        self._task = None


class MCPConnection:
    """A live session with one MCP server and the server's current tool list.

    Args:
        name: The server's name, used in every error message.
        target: ``StdioServerParameters`` for a subprocess, or a streamable HTTP URL.
        on_tools: Called with the new tool list after a ``tools/list_changed``
            notification has been followed by a re-list.
        call_timeout: Seconds allowed for one tool call or one re-list.
        start_timeout: Seconds allowed to connect and list the tools.
        close_timeout: Seconds allowed to close the session and stop the server.
        headers: Extra HTTP headers (HTTP servers only).
        errlog: Where a stdio server's stderr goes (default: ``sys.stderr``).
        mode: The SDK's connect mode: ``"auto"`` (probe for the 2026-07-28
            protocol, fall back to the ``initialize`` handshake) or ``"legacy"``
            (handshake only).
    """

    def __init__(
        self,
        name: str,
        target: StdioServerParameters | str,
        *,
        on_tools: ToolsCallback | None = None,
        call_timeout: float = 30.0,
        start_timeout: float = 15.0,
        close_timeout: float = 10.0,
        headers: dict[str, str] | None = None,
        errlog: TextIO | None = None,
        mode: Literal["auto", "legacy"] = "auto",
    ) -> None:
        self.name = name
        self.mode = mode
        self.target = target
        self.on_tools = on_tools
        self.call_timeout = call_timeout
        self.start_timeout = start_timeout
        self.close_timeout = close_timeout
        self.headers = headers
        self.errlog = errlog
        self.tools: list[types.Tool] = []
        self.server_info: types.Implementation | None = None
        self.protocol_version: str | None = None
        self._client: Client | None = None
        self._lost: str | None = None
        self._error: BaseException | None = None
        self._background = _Background()
        self._scope: anyio.CancelScope | None = None
        self._ready: anyio.Event | None = None
        self._stop: anyio.Event | None = None
        self._done: anyio.Event | None = None
        self._wake_send: Any = None
        self._idle: anyio.Event | None = None
        self._requested = 0

    @property
    def connected(self) -> bool:
        """Whether the session is up and the server has not gone away."""
        return self._client is not None and self._lost is None

    async def start(self) -> list[types.Tool]:
        """Connect, list the tools and return them.

        Raises:
            MCPStartError: The server could not be started or did not answer
                within ``start_timeout`` seconds.
        """
        if self._done is not None:
            raise MCPServerError(self.name, "this connection was already started")
        self._ready, self._stop, self._done = anyio.Event(), anyio.Event(), anyio.Event()
        self._scope = anyio.CancelScope()
        self._idle = anyio.Event()
        self._idle.set()
        await self._background.spawn(self._own)
        with anyio.move_on_after(self.start_timeout):
            await self._ready.wait()
        if self._client is None:
            error = self._error
            await self.close(cancel=True)
            if error is None:
                raise MCPStartError(self.name, f"did not start within {self.start_timeout:g}s")
            raise MCPStartError(self.name, f"failed to start: {_describe(error)}") from error
        return list(self.tools)

    async def close(self, *, cancel: bool = False) -> None:
        """Close the session and stop the server (bounded by ``close_timeout``).

        With ``cancel=True`` the owner task is cancelled at once instead of being
        asked to finish (used when the server never started).
        """
        if self._done is None or self._stop is None or self._scope is None:
            return
        self._stop.set()
        if cancel:
            self._scope.cancel()
        with anyio.move_on_after(self.close_timeout) as waited:
            await self._done.wait()
        if waited.cancelled_caught:
            logger.warning("MCP server '%s' did not close in time; cancelling it", self.name)
            self._scope.cancel()
            with anyio.move_on_after(self.close_timeout):
                await self._done.wait()
        await self._background.join()

    async def _own(self) -> None:
        assert self._ready is not None and self._stop is not None and self._done is not None
        assert self._scope is not None
        wake_send, wake_receive = anyio.create_memory_object_stream[None](1)
        self._wake_send = wake_send
        try:
            with self._scope:
                async with (
                    wake_send,
                    wake_receive,
                    Client(
                        _transport(self.target, self.headers, self.errlog),
                        message_handler=self._on_message,
                        mode=self.mode,
                        client_info=_CLIENT_INFO,
                        cache=None,
                    ) as client,
                ):
                    self.server_info = client.server_info
                    self.protocol_version = client.protocol_version
                    self.tools = await self._list(client)
                    async with anyio.create_task_group() as group:
                        if self._wants_listen(client):
                            await group.start(self._listen, client)
                        group.start_soon(self._relister, client, wake_receive)
                        self._client = client
                        self._ready.set()
                        await self._stop.wait()
                        group.cancel_scope.cancel()
        except Exception as exc:
            self._error = exc
            if self._client is not None:
                logger.warning("MCP server '%s' session ended: %s", self.name, _describe(exc))
        finally:
            self._client = None
            self._wake_send = None
            if self._idle is not None:
                self._idle.set()
            self._ready.set()
            self._done.set()

    def _wants_listen(self, client: Client) -> bool:
        tools = client.server_capabilities.tools
        listed = bool(tools and tools.list_changed)
        return listed and client.protocol_version in MODERN_PROTOCOL_VERSIONS

    async def _listen(
        self, client: Client, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """Keep a ``subscriptions/listen`` stream open (2026-07-28 servers).

        The notifications it carries reach `_on_message` like unsolicited
        ones on older protocol versions, so this only has to hold the stream.
        """
        started = False
        try:
            async with client.listen(tools_list_changed=True) as subscription:
                task_status.started()
                started = True
                async for _event in subscription:
                    pass
        except Exception as exc:
            stopping = self._lost is not None or (self._stop is not None and self._stop.is_set())
            logger.log(
                logging.DEBUG if stopping else logging.WARNING,
                "MCP server '%s': tool change subscription ended: %s",
                self.name,
                exc,
            )
        finally:
            if not started:
                task_status.started()

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self.request_relist()
        elif isinstance(message, Exception):
            logger.warning("MCP server '%s' sent an unreadable message: %s", self.name, message)
        await anyio.lowlevel.checkpoint()

    def request_relist(self) -> None:
        """Schedule a re-list of the server's tools (coalesced with pending ones)."""
        if self._wake_send is None or self._idle is None:
            return
        self._requested += 1
        if self._idle.is_set():
            self._idle = anyio.Event()
        with contextlib.suppress(anyio.WouldBlock, anyio.ClosedResourceError):
            self._wake_send.send_nowait(None)

    async def wait_relisted(self) -> None:
        """Wait (at most ``call_timeout``) until requested re-lists have been applied."""
        await anyio.lowlevel.checkpoint()
        idle = self._idle
        if idle is None or idle.is_set():
            return
        with anyio.move_on_after(self.call_timeout):
            await idle.wait()

    async def _relister(self, client: Client, wake: Any) -> None:
        async for _ in wake:
            target = self._requested
            try:
                with anyio.fail_after(self.call_timeout):
                    tools = await self._list(client)
            except Exception as exc:
                logger.warning("MCP server '%s': re-listing tools failed: %s", self.name, exc)
            else:
                self.tools = tools
                if self.on_tools is not None:
                    try:
                        self.on_tools(list(tools))
                    except Exception:
                        logger.exception("MCP server '%s': updating the tools failed", self.name)
            if self._requested == target and self._idle is not None:
                self._idle.set()

    async def _list(self, client: Client) -> list[types.Tool]:
        tools: list[types.Tool] = []
        cursor: str | None = None
        for _ in range(_MAX_PAGES):
            page = await client.list_tools(cursor=cursor)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        return tools

    async def list_tools(self) -> list[types.Tool]:
        """List the server's tools now (also updates `tools`, not the agent)."""
        client = self._require("tools/list")
        try:
            with anyio.fail_after(self.call_timeout):
                self.tools = await self._list(client)
        except TimeoutError:
            raise MCPServerError(
                self.name, f"tools/list timed out after {self.call_timeout:g}s"
            ) from None
        except MCPError as exc:
            raise MCPServerError(self.name, f"tools/list failed: {exc.message}") from exc
        return list(self.tools)

    def _require(self, what: str) -> Client:
        client = self._client
        if client is None or self._lost is not None:
            reason = self._lost or (
                f"failed: {_describe(self._error)}" if self._error else "is not running"
            )
            raise ToolError(f"MCP server '{self.name}' is not connected ({what}): {reason}")
        return client

    async def call_tool(self, tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
        """Call ``tool`` on the server.

        Raises:
            ToolError: The server is gone, closed the connection during the call,
                answered with a protocol error, or did not answer within
                ``call_timeout`` seconds. The message names the server and tool.
        """
        client = self._require(f"tool '{tool}'")
        try:
            with anyio.fail_after(self.call_timeout):
                result = await client.call_tool(tool, arguments)
        except TimeoutError:
            raise ToolError(
                f"MCP server '{self.name}': tool '{tool}' timed out after {self.call_timeout:g}s"
            ) from None
        except MCPError as exc:
            if exc.code == types.CONNECTION_CLOSED:
                self._lost = f"the connection closed during a call to '{tool}'"
                raise ToolError(
                    f"MCP server '{self.name}' closed the connection during tool '{tool}' "
                    "(the server process may have exited)"
                ) from None
            raise ToolError(f"MCP server '{self.name}': tool '{tool}': {exc.message}") from None
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError) as exc:
            self._lost = f"the connection broke during a call to '{tool}'"
            raise ToolError(
                f"MCP server '{self.name}': connection lost during tool '{tool}': {_describe(exc)}"
            ) from None
        await self.wait_relisted()
        return result


def _describe(error: BaseException) -> str:
    if isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        return _describe(error.exceptions[0])
    if isinstance(error, MCPError):
        return error.message
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
