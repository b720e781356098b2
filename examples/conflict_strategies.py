"""The four conflict strategies side by side.

Two adapters both touch the ``query`` parameter of a ``search`` tool. What the model
sees, and what reaches the tool, depends on their strategies.
Run offline: ``python examples/conflict_strategies.py``.
"""

from __future__ import annotations

import copy
from typing import Any

import anyio

from good_agent import (
    AdapterConflictError,
    Agent,
    AgentComponent,
    ConflictStrategy,
    ToolAdapter,
    tool,
)


# --8<-- [start:adapters]
class Describe(ToolAdapter):
    """Rewrites the description of ``query``; tags the value on the way back."""

    def __init__(self, tag: str, priority: int, strategy: ConflictStrategy) -> None:
        super().__init__(None, priority=priority, conflict_strategy=strategy)
        self.tag = tag

    def adapt_signature(self, tool: Any, signature: dict[str, Any], agent: Any) -> dict[str, Any]:
        out = copy.deepcopy(signature)
        out["function"]["parameters"]["properties"]["query"]["description"] = f"by {self.tag}"
        return out

    def adapt_parameters(self, tool_name: str, parameters: dict[str, Any], agent: Any) -> Any:
        return {**parameters, "query": f"{parameters['query']}<{self.tag}"}


class AddParam(ToolAdapter):
    """Adds a required parameter and folds its value into ``query``."""

    def __init__(self, name: str, priority: int, strategy: ConflictStrategy) -> None:
        super().__init__(None, priority=priority, conflict_strategy=strategy)
        self.param = name

    def adapt_signature(self, tool: Any, signature: dict[str, Any], agent: Any) -> dict[str, Any]:
        out = copy.deepcopy(signature)
        params = out["function"]["parameters"]
        params["properties"][self.param] = {"type": "string"}
        params["properties"]["query"] = {**params["properties"]["query"], "maxLength": 80}
        params["required"] = [*params.get("required", []), self.param]
        return out

    def adapt_parameters(self, tool_name: str, parameters: dict[str, Any], agent: Any) -> Any:
        params = dict(parameters)
        value = params.pop(self.param)
        return {**params, "query": f"{params['query']}+{value}"}


# --8<-- [end:adapters]


@tool
def search(query: str) -> str:
    """Search."""
    return f"searched {query!r}"


async def show(title: str, *adapters: ToolAdapter, **arguments: Any) -> None:
    owner = AgentComponent()
    for adapter in adapters:
        owner.register_tool_adapter(adapter)
    async with Agent(tools=[search], extensions=[owner]) as agent:
        try:
            signature = (await agent.tool_signatures())[0]["function"]["parameters"]
            response = await agent.invoke("search", **arguments)
        except AdapterConflictError as error:
            print(f"{title:<10} AdapterConflictError: {error}")
            return
    props = {k: v.get("description", "") for k, v in signature["properties"].items()}
    print(f"{title:<10} model sees {props}; tool got {response.response}")


async def main() -> None:
    # --8<-- [start:strategies]
    await show(
        "CHAIN",
        Describe("a", 200, ConflictStrategy.CHAIN),
        Describe("b", 100, ConflictStrategy.CHAIN),
        query="q",
    )
    await show(
        "EXCLUSIVE",
        Describe("a", 200, ConflictStrategy.EXCLUSIVE),
        Describe("b", 100, ConflictStrategy.CHAIN),
        query="q",
    )
    await show(
        "PRIORITY",
        Describe("a", 200, ConflictStrategy.PRIORITY),
        Describe("b", 100, ConflictStrategy.CHAIN),
        query="q",
    )
    await show(
        "MERGE",
        AddParam("region", 200, ConflictStrategy.MERGE),
        AddParam("lang", 100, ConflictStrategy.MERGE),
        query="q",
        region="eu",
        lang="fr",
    )
    # --8<-- [end:strategies]


if __name__ == "__main__":
    anyio.run(main)
