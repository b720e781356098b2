"""Serving good-agent tools to MCP clients (``good-agent mcp-serve module:attr``).

The server lists each tool with the signature the model would see, adapters
applied (`current_plans`), and runs each call through
the agent's pipeline with `Agent.invoke`, so the
adapters translate the client's arguments back exactly as they do for a model.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

from good_agent._util.loading import load_object
from good_agent.core._execution import current_plans
from good_agent.core.agent import Agent
from good_agent.tools.tool import Tool
from good_agent.types.messages import ToolResponse


def load_target(spec: str) -> Agent:
    """Import ``module:attr`` and return it as an `Agent`.

    ``attr`` may be an `Agent`, a tool or function, or an iterable of tools
    and functions. Dotted attributes (``module:obj.agent``) are followed. The current directory
    is importable, as it is for ``python -m``.

    Raises:
        ValueError: ``spec`` is malformed or does not name an agent or tools.
    """
    return as_agent(load_object(spec), spec)


def as_agent(value: Any, origin: str = "target") -> Agent:
    """Wrap ``value`` (an agent, a tool or function, or an iterable of them) as an agent."""
    if isinstance(value, Agent):
        return value
    if isinstance(value, Tool) or callable(value):
        return Agent(tools=[value])
    if isinstance(value, Iterable) and not isinstance(value, str | bytes):
        items = list(value)
        if all(isinstance(item, Tool) or callable(item) for item in items):
            return Agent(tools=items)
    raise ValueError(f"{origin} is {type(value).__name__}, not an Agent or a list of tools")


def to_call_result(response: ToolResponse) -> types.CallToolResult:
    """Map a `ToolResponse` to an MCP ``CallToolResult``.

    The text is what the model would read; a ``dict`` response is also sent as
    ``structuredContent``; a failed call sets ``isError``.
    """
    text = types.TextContent(type="text", text=response.content_text())
    if not response.success:
        return types.CallToolResult(content=[text], is_error=True)
    structured = response.response if isinstance(response.response, dict) else None
    return types.CallToolResult(content=[text], structured_content=structured)


def build_server(agent: Agent, *, name: str = "good-agent") -> Server[Any]:
    """Build a low-level MCP `Server` exposing ``agent``'s tools.

    The agent must be installed (``async with agent:``) while the server runs.
    """

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        plans = await current_plans(agent)
        tools = []
        for plan in plans.values():
            function = plan.signature["function"]
            schema = dict(function.get("parameters") or {})
            schema.setdefault("type", "object")
            tools.append(
                types.Tool(
                    name=function["name"],
                    description=function.get("description") or None,
                    input_schema=schema,
                )
            )
        return types.ListToolsResult(tools=tools)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        try:
            response = await agent.invoke(params.name, **(params.arguments or {}))
        except Exception as exc:
            message = f"{type(exc).__name__}: {exc}"
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=message)], is_error=True
            )
        return to_call_result(response)

    return Server(name, on_list_tools=list_tools, on_call_tool=call_tool)


async def serve_stdio(agent: Agent, *, name: str = "good-agent") -> None:
    """Serve ``agent``'s tools over stdio until the client disconnects."""
    server = build_server(agent, name=name)
    async with agent, stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def serve_target(spec: str, *, name: str | None = None) -> None:
    """Load ``module:attr`` (see `load_target`) and serve it over stdio (blocking)."""
    agent = load_target(spec)
    server_name = name or spec.partition(":")[0].rsplit(".", 1)[-1]
    anyio.run(functools.partial(serve_stdio, agent, name=server_name))
