"""The names a run's tools reach the model under belong to that run: two conversations
of one agent planning at once, each with tools of its own offered under its own prefix,
each see only their own names."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import anyio
import pytest

from good_agent import Agent, ToolAdapter, Toolset
from good_agent.testing import TestModel
from good_agent.tools.tool import Tool


def lookup(city: str) -> str:
    """Look a city up."""
    return city


class HoldPlanning(ToolAdapter):
    """Holds conversation A's planning of its first request (its names already chosen;
    the planning before it checks the run's tools for clashes) until conversation B
    has run, so the two plan at once."""

    def __init__(self) -> None:
        super().__init__()
        self.a_thread: int | None = None
        self.a_planning = threading.Event()
        self.b_done = threading.Event()
        self._asked = 0

    def should_adapt(self, tool: Tool, agent: Any) -> bool:
        if threading.get_ident() == self.a_thread:
            self._asked += 1
            if self._asked == 2:
                self.a_planning.set()
                assert self.b_done.wait(30), "conversation B did not finish"
        return False


def test_two_conversations_planning_at_once_keep_their_own_tool_names() -> None:
    model = TestModel(tool_args={"a_lookup": {"city": "A"}, "b_lookup": {"city": "B"}})
    agent = Agent(model=model)
    hold = HoldPlanning()
    agent.adapter_chain.add(hold)
    outputs: dict[str, Any] = {}

    def converse(prefix: str) -> None:
        if prefix == "a_":
            hold.a_thread = threading.get_ident()
        run = agent.run("go", message_history=[], tools=[Toolset([lookup]).prefixed(prefix)])
        outputs[prefix] = asyncio.run(run).output

    def b_when_a_plans() -> None:
        assert hold.a_planning.wait(30)
        try:
            converse("b_")
        finally:
            hold.b_done.set()

    threads = [
        threading.Thread(target=converse, args=("a_",)),
        threading.Thread(target=b_when_a_plans),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert outputs == {"a_": '{"a_lookup": "A"}', "b_": '{"b_lookup": "B"}'}
    offered = sorted(tuple(request.tool_names) for request in model.requests)
    assert offered == [("a_lookup",)] * 2 + [("b_lookup",)] * 2


@pytest.mark.anyio
async def test_two_conversations_in_tasks_keep_their_own_tool_names() -> None:
    model = TestModel(tool_args={"a_lookup": {"city": "A"}, "b_lookup": {"city": "B"}})
    agent = Agent(model=model)
    outputs: dict[str, list[Any]] = {"a_": [], "b_": []}

    async def converse(prefix: str) -> None:
        for _ in range(3):
            tools = [Toolset([lookup]).prefixed(prefix)]
            result = await agent.run("go", message_history=[], tools=tools)
            outputs[prefix].append(result.output)

    async with anyio.create_task_group() as group:
        group.start_soon(converse, "a_")
        group.start_soon(converse, "b_")
    assert outputs == {"a_": ['{"a_lookup": "A"}'] * 3, "b_": ['{"b_lookup": "B"}'] * 3}
    assert {tuple(request.tool_names) for request in model.requests} == {
        ("a_lookup",),
        ("b_lookup",),
    }
