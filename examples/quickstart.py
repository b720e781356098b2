"""The README's example: one tool, a scripted model, one answer.

Run offline: ``python examples/quickstart.py``. Against a real model, replace the
``ScriptedModel`` with ``"gpt-4o-mini"`` and set ``OPENAI_API_KEY``.
"""

import anyio

from good_agent import Agent, tool
from good_agent.testing import ScriptedModel


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


async def main() -> None:
    model = ScriptedModel([ScriptedModel.tool_call("add", {"a": 2, "b": 3}), "2 + 3 = 5"])
    async with Agent("You are a calculator.", model=model, tools=[add]) as agent:
        print((await agent.call("What is 2 + 3?")).content)


anyio.run(main)
