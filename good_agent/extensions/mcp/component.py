"""The `MCPTools` component: an MCP server's tools as good-agent tools."""

from __future__ import annotations

import logging
import re
import shlex
import sys
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TextIO
from urllib.parse import urlsplit

import mcp_types as types
from mcp import StdioServerParameters

from good_agent.core.components import AgentComponent
from good_agent.extensions.mcp.connection import MCPConnection
from good_agent.extensions.mcp.errors import MCPServerError, MCPStartError
from good_agent.extensions.mcp.results import convert_result
from good_agent.tools.tool import Tool
from good_agent.types.errors import ToolDefinitionError

if TYPE_CHECKING:
    from good_agent.core.definition import AgentDefinition

logger = logging.getLogger("good_agent.mcp")

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def _stdio_parameters(
    command: str | Sequence[str], env: dict[str, str] | None, cwd: str | Path | None
) -> StdioServerParameters:
    argv = shlex.split(command) if isinstance(command, str) else list(command)
    if not argv:
        raise ValueError("MCPTools: the server command is empty")
    if argv[0] in ("python", "python3"):
        argv[0] = sys.executable
    return StdioServerParameters(command=argv[0], args=argv[1:], env=env, cwd=cwd)


def _label(command: str | Sequence[str] | None, url: str | None) -> str:
    if url is not None:
        parts = urlsplit(url)
        return parts.hostname or url
    argv = shlex.split(command) if isinstance(command, str) else list(command or [])
    if "-m" in argv[:-1]:
        return argv[argv.index("-m") + 1].rsplit(".", 1)[-1]
    scripts = [a for a in argv[1:] if not a.startswith("-")]
    return Path(scripts[0] if scripts else argv[0]).stem if argv else "mcp"


def _identifier(text: str) -> str:
    return _UNSAFE.sub("_", text).strip("_") or "mcp"


class MCPTools(AgentComponent):
    """Offers the tools of an MCP server to the agent, as plain [`Tool`][good_agent.Tool] objects.

    Give either a command (stdio) or ``url=`` (streamable HTTP)::

        Agent(..., extensions=[
            MCPTools("python -m weather_server", prefix=True),
            MCPTools(url="http://127.0.0.1:8000/mcp", name="search"),
        ])

    The server starts when the agent installs its components and stops when the
    agent closes. Its tools go through the agent's adapter chain like any other.
    The tool list follows the server's ``tools/list_changed`` notifications.

    Args:
        command: The server command line (a string, split like a shell would, or
            an argv list). ``python`` / ``python3`` as the program mean the running
            interpreter.
        url: A streamable HTTP endpoint instead of a command.
        name: The server's name in error messages and for ``prefix=True``;
            default: the name the server reports, else one derived from the command.
        prefix: ``True`` names tools ``<server>_<tool>``; a string is used as the
            prefix instead of the server's name; ``False`` keeps the server's names.
        include: Only these server tool names (before prefixing) are offered.
        env: Extra environment variables for a stdio server.
        cwd: Working directory of a stdio server.
        headers: Extra HTTP headers for an HTTP server.
        timeout: Seconds allowed for one tool call (or re-list).
        start_timeout: Seconds allowed to start the server and list its tools.
        required: ``True`` (default): a server that fails to start makes the agent's
            install fail with `MCPStartError`. ``False``: the failure is
            logged and kept on [`error`][good_agent.MCPTools], and the agent runs without
            these tools.
        errlog: Where a stdio server's stderr goes (default: ``sys.stderr``).
        protocol: ``"auto"`` (default) negotiates the newest protocol the server
            speaks; ``"legacy"`` uses the ``initialize`` handshake (2025 protocol
            versions) without probing.
    """

    def __init__(
        self,
        command: str | Sequence[str] | None = None,
        *,
        url: str | None = None,
        name: str | None = None,
        prefix: bool | str = False,
        include: Collection[str] | None = None,
        env: dict[str, str] | None = None,
        cwd: str | Path | None = None,
        headers: dict[str, str] | None = None,
        timeout: float = 30.0,
        start_timeout: float = 15.0,
        required: bool = True,
        errlog: TextIO | None = None,
        protocol: Literal["auto", "legacy"] = "auto",
    ) -> None:
        super().__init__()
        if (command is None) == (url is None):
            raise ValueError("MCPTools needs either a command or url=..., not both")
        self._target: StdioServerParameters | str = (
            url if url is not None else _stdio_parameters(command or "", env, cwd)
        )
        self._given_name = name
        self._label = name or _label(command, url)
        self.prefix = prefix
        self.include = None if include is None else frozenset(include)
        self.headers = dict(headers) if headers else None
        self.timeout = timeout
        self.start_timeout = start_timeout
        self.required = required
        self.errlog = errlog
        self.protocol: Literal["auto", "legacy"] = protocol
        self.error: MCPStartError | None = None
        self._connection: MCPConnection | None = None
        self._mcp_tools: dict[str, Tool] = {}
        self._remote_names: dict[str, str] = {}

    @classmethod
    def from_spec(cls, spec: str | MCPTools, **options: Any) -> MCPTools:
        """Build from a string: an ``http(s)://`` URL, else a command line.

        An [`MCPTools`][good_agent.MCPTools] is returned unchanged (``options`` must then be empty).
        """
        if isinstance(spec, MCPTools):
            if options:
                raise ValueError("options cannot be applied to an existing MCPTools")
            return spec
        if spec.startswith(("http://", "https://")):
            return cls(url=spec, **options)
        return cls(spec, **options)

    @property
    def server_name(self) -> str:
        """The server's name: the one given, else the one it reports once connected."""
        if self._given_name:
            return self._given_name
        info = self._connection.server_info if self._connection else None
        return info.name if info is not None and info.name else self._label

    @property
    def protocol_version(self) -> str | None:
        """The MCP protocol version negotiated with the server (once connected)."""
        return self._connection.protocol_version if self._connection else None

    @property
    def connected(self) -> bool:
        """Whether the server is running and answering."""
        return self._connection is not None and self._connection.connected

    @property
    def tools(self) -> list[Tool]:
        """The server's tools as currently offered to the agent."""
        return list(self._mcp_tools.values())

    def __repr__(self) -> str:
        return f"MCPTools({self.server_name!r}, tools={list(self._mcp_tools)})"

    def _tool_name(self, remote: str) -> str:
        if self.prefix is False:
            return remote
        head = self.server_name if self.prefix is True else self.prefix
        return f"{_identifier(head)}_{remote}"

    async def install(self, agent: AgentDefinition) -> None:
        """Start the server, list its tools and add them to ``agent``.

        Raises:
            MCPStartError: The server failed to start (only when ``required``).
        """
        await super().install(agent)
        self.error = None
        connection = MCPConnection(
            self._label,
            self._target,
            on_tools=self._apply,
            call_timeout=self.timeout,
            start_timeout=self.start_timeout,
            headers=self.headers,
            errlog=self.errlog,
            mode=self.protocol,
        )
        self._connection = connection
        try:
            listed = await connection.start()
            connection.name = self.server_name
            self._sync(listed, strict=True)
        except MCPStartError as exc:
            await self._teardown(agent)
            if self.required:
                raise
            self.error = exc
            logger.warning("%s; the agent continues without its tools", exc)
            await super().install(agent)
        except BaseException:
            await self._teardown(agent)
            raise

    async def uninstall(self, agent: AgentDefinition) -> None:
        """Remove the server's tools from ``agent`` and stop the server."""
        await self._teardown(agent)

    async def _teardown(self, agent: AgentDefinition) -> None:
        for name in self._mcp_tools:
            agent.tools.remove(name)
        self._mcp_tools.clear()
        self._remote_names.clear()
        connection, self._connection = self._connection, None
        try:
            if connection is not None:
                await connection.close()
        finally:
            await super().uninstall(agent)

    async def refresh(self) -> list[Tool]:
        """List the server's tools now and update the agent; returns the new tools.

        Raises:
            MCPServerError: The server is not running or did not answer in time.
        """
        if self._connection is None:
            raise MCPServerError(self.server_name, "is not running")
        try:
            listed = await self._connection.list_tools()
        except MCPServerError:
            raise
        except Exception as exc:
            raise MCPServerError(self.server_name, f"tools/list failed: {exc}") from exc
        self._apply(listed)
        return self.tools

    def _apply(self, listed: list[types.Tool]) -> None:
        self._sync(listed, strict=False)

    def _sync(self, listed: list[types.Tool], *, strict: bool) -> None:
        agent = self.agent
        if agent is None:
            return
        wanted: dict[str, types.Tool] = {}
        for remote in listed:
            if self.include is None or remote.name in self.include:
                wanted[self._tool_name(remote.name)] = remote
        for name in [n for n in self._mcp_tools if n not in wanted]:
            agent.tools.remove(name)
            del self._mcp_tools[name]
            self._remote_names.pop(name, None)
        for name, remote in wanted.items():
            current = self._mcp_tools.get(name)
            if current is not None and _same(current, remote):
                continue
            try:
                built = self._build(name, remote)
            except ToolDefinitionError as exc:
                logger.warning(
                    "MCP server '%s': skipping tool '%s': %s", self.server_name, name, exc
                )
                continue
            if current is not None:
                agent.tools.remove(name)
                del self._mcp_tools[name]
            elif name in agent.tools:
                message = (
                    f"tool '{name}' clashes with a tool the agent already has; "
                    "use MCPTools(..., prefix=True) or include=[...]"
                )
                if strict:
                    raise ToolDefinitionError(f"MCP server '{self.server_name}': {message}")
                logger.warning("MCP server '%s': skipping %s", self.server_name, message)
                continue
            agent.tools.add(built)
            self._mcp_tools[name] = built
            self._remote_names[name] = remote.name

    def _build(self, name: str, remote: types.Tool) -> Tool:
        connection = self._connection
        assert connection is not None
        remote_name = remote.name

        async def call_remote(**arguments: Any) -> Any:
            result = await connection.call_tool(remote_name, arguments)
            return convert_result(connection.name, remote_name, result)

        call_remote.__name__ = name
        description = remote.description or remote.title or ""
        return Tool.from_schema(name, dict(remote.input_schema), description, call_remote)


def _same(current: Tool, remote: types.Tool) -> bool:
    description = remote.description or remote.title or ""
    params = {"type": "object", "properties": {}, **remote.input_schema}
    return current.description == description and current.parameters == params
