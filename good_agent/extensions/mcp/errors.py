"""Errors raised by the MCP extension. Each one names the server it concerns."""

from __future__ import annotations

from good_agent.types.errors import GoodAgentError


class MCPServerError(GoodAgentError):
    """Something went wrong with an MCP server; ``server`` is its name.

    Failures during a tool call do not raise this: they reach the model as a tool
    error (a `ToolError` naming the server).
    """

    def __init__(self, server: str, message: str) -> None:
        self.server = server
        super().__init__(f"MCP server '{server}': {message}")


class MCPStartError(MCPServerError):
    """An MCP server could not be started, connected to, or listed in time."""
