"""A small MCP server for the MCP tests and example, run as a stdio subprocess.

``python tests/extensions/mcp_server_fixture.py`` serves over stdio;
``--http PORT`` serves streamable HTTP on 127.0.0.1 instead.

Every call is appended to the file named by ``MCP_FIXTURE_LOG`` (when set), so tests
can check which calls reached the server.
"""

from __future__ import annotations

import base64
import os
import sys

import mcp_types as types
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("fixture", log_level="ERROR")

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\nfake-image-bytes").decode()


def _log(entry: str) -> None:
    path = os.environ.get("MCP_FIXTURE_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(entry + "\n")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    _log(f"add {a} {b}")
    return a + b


@server.tool()
def fetch(url: str) -> str:
    """Fetch a page (returns a canned text)."""
    _log(f"fetch {url}")
    return f"contents of {url}"


@server.tool()
def fail(reason: str) -> str:
    """Always fails with ``reason``."""
    _log(f"fail {reason}")
    raise ToolError(f"refused: {reason}")


@server.tool()
def crash() -> str:
    """Exit the server process in the middle of the call."""
    _log("crash")
    sys.stdout.flush()
    os._exit(3)


@server.tool()
async def slow(seconds: float) -> str:
    """Sleep, then answer."""
    import anyio

    _log(f"slow {seconds}")
    await anyio.sleep(seconds)
    return "done"


@server.tool(structured_output=False)
def picture() -> list[types.ContentBlock]:
    """Return a caption, an image and an embedded text resource."""
    _log("picture")
    return [
        types.TextContent(type="text", text="a tiny picture"),
        types.ImageContent(type="image", data=PNG, mime_type="image/png"),
        types.EmbeddedResource(
            type="resource",
            resource=types.TextResourceContents(
                uri="file:///notes.txt", mime_type="text/plain", text="some notes"
            ),
        ),
    ]


def echo(text: str) -> str:
    """Echo ``text`` back."""
    _log(f"echo {text}")
    return text


@server.tool()
async def grow(ctx: Context) -> str:
    """Add the ``echo`` tool and tell the client the tool list changed."""
    _log("grow")
    if all(tool.name != "echo" for tool in await server.list_tools()):
        server.add_tool(echo)
    await ctx.notify_tools_changed()
    if ctx.protocol_version not in ("2026-07-28",):
        await ctx.session.send_tool_list_changed()
    return "added echo"


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("stdio")
