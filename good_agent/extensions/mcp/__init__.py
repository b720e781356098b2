"""MCP tools: use an MCP server's tools in an agent, and serve an agent's tools over MCP.

Needs the optional ``mcp`` extra (``pip install '.[mcp]'`` from a checkout).

* `MCPTools`, a component that connects to a server over stdio or
  streamable HTTP and offers its tools to the agent.
* `serve_stdio` / ``good-agent mcp-serve module:attr``: the other direction,
  an agent's tools (adapters applied) as an MCP server.
"""

from good_agent._extras import require_extra

require_extra("mcp", "MCP support (MCPTools, mcp_servers=, good-agent mcp-serve)")

from good_agent.extensions.mcp.component import MCPTools  # noqa: E402
from good_agent.extensions.mcp.connection import MCPConnection  # noqa: E402
from good_agent.extensions.mcp.errors import MCPServerError, MCPStartError  # noqa: E402
from good_agent.extensions.mcp.results import (  # noqa: E402
    AudioPart,
    ImagePart,
    MCPToolResult,
    ResourceLinkPart,
    ResourcePart,
    TextPart,
    convert_result,
)
from good_agent.extensions.mcp.serve import (  # noqa: E402
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
