"""MCP tools: use an MCP server's tools in an agent, and serve an agent's tools over MCP.

Needs the optional ``mcp`` extra (``pip install 'good-agent[mcp]'``).

* :class:`MCPTools`, a component that connects to a server over stdio or
  streamable HTTP and offers its tools to the agent.
* :func:`serve_stdio` / ``good-agent mcp-serve module:attr``: the other direction,
  an agent's tools (adapters applied) as an MCP server.
"""

from good_agent.extensions.mcp.component import MCPTools
from good_agent.extensions.mcp.connection import MCPConnection
from good_agent.extensions.mcp.errors import MCPServerError, MCPStartError
from good_agent.extensions.mcp.results import (
    AudioPart,
    ImagePart,
    MCPToolResult,
    ResourceLinkPart,
    ResourcePart,
    TextPart,
    convert_result,
)
from good_agent.extensions.mcp.serve import (
    as_agent,
    build_server,
    load_target,
    serve_stdio,
    serve_target,
    to_call_result,
)

__all__ = [
    "AudioPart",
    "ImagePart",
    "MCPConnection",
    "MCPServerError",
    "MCPStartError",
    "MCPToolResult",
    "MCPTools",
    "ResourceLinkPart",
    "ResourcePart",
    "TextPart",
    "as_agent",
    "build_server",
    "convert_result",
    "load_target",
    "serve_stdio",
    "serve_target",
    "to_call_result",
]
