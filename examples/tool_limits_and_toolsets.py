"""Tool limits and toolsets, offline.

- ``@tool(timeout=...)``: a hanging call is cancelled and the model told; it counts
  as a failed call against the tool's retry limit.
- ``@tool(sequential=True)``: a call that runs alone; ``Agent(max_concurrency=N)``
  caps the calls running together.
- Toolsets: two collections that both have a ``search`` tool, combined under a
  prefix and a new name; a tool added for one run only.

Against a real model: replace ``TestModel(...)`` with ``"gpt-4.1-mini"``.
"""

from __future__ import annotations

import anyio

from good_agent import Agent, Tool, ToolMessage, Toolset, tool
from good_agent.testing import TestModel

running = 0
most_at_once = 0


def searcher(source: str) -> Tool:
    async def search(query: str) -> str:
        global running, most_at_once
        running += 1
        most_at_once = max(most_at_once, running)
        await anyio.sleep(0.01)
        running -= 1
        return f"{source}: 3 results for {query!r}"

    return Tool.from_function(search, description=f"Search {source}.")


@tool(timeout=0.2)
async def slow_lookup(key: str) -> str:
    """A lookup in a service that hangs."""
    await anyio.sleep(60)
    return "never"


@tool(sequential=True)
def save_note(text: str) -> str:
    """Save a note (one writer at a time)."""
    return f"saved {text!r}"


async def main() -> None:
    code = Toolset([searcher("code")]).prefixed("code_")
    docs = Toolset([searcher("docs")]).renamed({"search": "docs_search"})
    web = Toolset([searcher("web")]).prefixed("web_")
    model = TestModel(custom_output_text="Done.")
    agent = Agent(model=model, tools=[code, docs, slow_lookup, save_note], max_concurrency=2)

    await agent.run("Research this", tools=[web])  # web_search: this run only
    print("offered:", model.requests[0].tool_names)
    for message in agent.messages:
        if isinstance(message, ToolMessage):
            print(f"  {message.tool_name}: {message.content}")
    print("most calls at once:", most_at_once)

    await agent.run("And again")
    print("next run offers:", model.requests[-1].tool_names)


if __name__ == "__main__":
    anyio.run(main)
