"""A tool adapter: the model picks a source by number, the tool still gets a URL.

The model can only name sources the agent knows, so it cannot invent a URL.
Run offline: ``python examples/url_index_adapter.py``.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import anyio

from good_agent import Agent, AgentComponent, ToolAdapter, ToolError, tool
from good_agent.testing import ScriptedModel

SOURCES = ["https://example.com/pricing", "https://example.com/changelog"]


# --8<-- [start:adapter]
class UrlToIndex(ToolAdapter):
    """Replaces a ``url: str`` parameter with ``source: int`` (1-based)."""

    def __init__(self, component: AgentComponent, urls: list[str]) -> None:
        super().__init__(component, priority=100)
        self.urls = urls

    def should_adapt(self, tool: Any, agent: Any) -> bool:
        # Asked at every signature generation, so it may depend on agent.context.
        return "url" in tool.parameters.get("properties", {})

    def adapt_signature(self, tool: Any, signature: dict[str, Any], agent: Any) -> dict[str, Any]:
        out = copy.deepcopy(signature)  # never mutate the input
        params = out["function"]["parameters"]
        del params["properties"]["url"]
        params["properties"]["source"] = {
            "type": "integer",
            "minimum": 1,
            "maximum": len(self.urls),
            "description": "Number of the source to read.",
        }
        params["required"] = [r for r in params.get("required", []) if r != "url"] + ["source"]
        return out

    def adapt_parameters(self, tool_name: str, parameters: dict[str, Any], agent: Any) -> Any:
        params = dict(parameters)
        index = params.pop("source")
        if not 1 <= index <= len(self.urls):
            raise ToolError(f"source must be between 1 and {len(self.urls)}")
        params["url"] = self.urls[index - 1]
        return params


# --8<-- [end:adapter]


class Sources(AgentComponent):
    """A component that owns the adapter; uninstalling it removes the adapter."""

    def __init__(self, urls: list[str]) -> None:
        super().__init__()
        self.register_tool_adapter(UrlToIndex(self, urls))


@tool
def fetch(url: str) -> str:
    """Fetch a page.

    Args:
        url: The address to fetch.
    """
    return f"<contents of {url}>"


async def main() -> None:
    model = ScriptedModel([ScriptedModel.tool_call("fetch", {"source": 2}), "Read source 2."])
    async with Agent(
        "Cite sources by number.", model=model, tools=[fetch], extensions=[Sources(SOURCES)]
    ) as agent:
        await agent.call("What changed recently?")
    print("The model saw:", json.dumps(model.requests[0].tools[0]["function"]["parameters"]))
    print("The tool said:", agent.messages[-2].content)


if __name__ == "__main__":
    anyio.run(main)
