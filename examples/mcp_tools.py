"""An MCP server's tools in an agent, offline.

Run: ``python examples/mcp_tools.py``. The script starts a copy of itself with
``--serve`` as a tiny MCP server over stdio (built with the ``mcp`` SDK), connects
to it with ``MCPTools``, and drives an agent with a ``ScriptedModel``. Against a real
model, replace the ``ScriptedModel`` with ``"gpt-4o-mini"``.
"""

import sys

import anyio

from good_agent import Agent, ToolMessage
from good_agent.extensions.mcp import MCPTools
from good_agent.testing import ScriptedModel


# --8<-- [start:server]
def serve() -> None:
    from mcp.server import MCPServer

    server = MCPServer("weather", log_level="ERROR")

    @server.tool(structured_output=False)
    def forecast(city: str) -> str:
        """Tomorrow's forecast for a city."""
        return f"{city}: sunny, 21 C"

    server.run("stdio")


# --8<-- [end:server]


# --8<-- [start:client]
async def main() -> None:
    model = ScriptedModel(
        [
            ScriptedModel.tool_call("weather_forecast", {"city": "Lisbon"}),
            "Tomorrow in Lisbon: sunny, 21 C.",
        ]
    )
    weather = MCPTools([sys.executable, __file__, "--serve"], prefix=True, timeout=10)
    async with Agent("You answer weather questions.", model=model, extensions=[weather]) as agent:
        print("tools from the server:", agent.tools.names())
        answer = await agent.call("What's the weather in Lisbon tomorrow?")
    for message in agent.messages:
        if isinstance(message, ToolMessage):
            print(f"{message.tool_name} -> {message.content}")
    print("answer:", answer.content)
    print("server still running after close:", weather.connected)


# --8<-- [end:client]

if __name__ == "__main__":
    if "--serve" in sys.argv:
        serve()
    else:
        anyio.run(main)
