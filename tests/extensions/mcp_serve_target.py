"""Tools and an agent for the ``mcp-serve`` tests.

``agent`` has a ``weather`` tool whose ``api_key`` parameter is hidden by an adapter
that injects the key: MCP clients see ``weather(city)`` only.
"""

from __future__ import annotations

from typing import Any

from good_agent import Agent, Tool, ToolAdapter, tool

KEY = "secret-key"


@tool
def weather(city: str, api_key: str) -> dict[str, str]:
    """Current weather for a city."""
    if api_key != KEY:
        raise ValueError("bad key")
    return {"city": city, "sky": "clear"}


@tool
def shout(text: str) -> str:
    """Upper-case ``text``."""
    return text.upper()


class InjectKey(ToolAdapter):
    """Removes ``api_key`` from the signature and fills it in on every call."""

    def should_adapt(self, tool: Tool, agent: Any) -> bool:
        return "api_key" in tool.parameters.get("properties", {})

    def adapt_signature(self, tool: Tool, signature: dict[str, Any], agent: Any) -> dict[str, Any]:
        function = dict(signature["function"])
        parameters = dict(function["parameters"])
        parameters["properties"] = {
            k: v for k, v in parameters["properties"].items() if k != "api_key"
        }
        parameters["required"] = [r for r in parameters.get("required", []) if r != "api_key"]
        function["parameters"] = parameters
        return {**signature, "function": function}

    def adapt_parameters(
        self, tool_name: str, parameters: dict[str, Any], agent: Any
    ) -> dict[str, Any]:
        return {**parameters, "api_key": KEY}


agent = Agent(tools=[weather, shout])
agent.adapter_chain.add(InjectKey())

tools = [shout]
