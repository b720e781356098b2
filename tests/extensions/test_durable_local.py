"""Durable runs in this process: outside a workflow nothing changes; inside one, each
model request and each tool call is a step, streamed runs included (DBOS on SQLite)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dbos import DBOS, SetWorkflowID

from good_agent import Agent, tool
from good_agent.core.run_events import TextDeltaEvent
from good_agent.extensions.durable import MODEL_STEP, TOOL_STEP, Durable
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio

RAN: list[int] = []


@tool
def record(n: int) -> str:
    """Record ``n``."""
    RAN.append(n)
    return f"recorded {n}"


def script() -> list[Any]:
    return [
        ScriptedModel.tool_calls(("record", {"n": 1}, "c1"), ("record", {"n": 2}, "c2")),
        ScriptedModel.tool_call("record", {"n": 3}, id="c3"),
        ScriptedModel.streamed("All ", "recorded."),
    ]


@pytest.fixture(scope="module")
def dbos(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    db = tmp_path_factory.mktemp("dbos") / "system.sqlite"
    DBOS(
        config={
            "name": "good-agent-local",
            "system_database_url": f"sqlite:///{db}",
            "run_admin_server": False,
            "log_level": "WARNING",
        }
    )
    DBOS.launch()
    yield
    DBOS.destroy(destroy_registry=False)


async def test_outside_a_workflow_a_durable_agent_runs_exactly_as_a_plain_one() -> None:
    RAN.clear()
    plain = Agent(model=ScriptedModel(script()), tools=[record])
    durable = Agent(model=ScriptedModel(script()), tools=[record], extensions=[Durable()])
    first = await plain.run("go")
    second = await durable.run("go")
    assert second.output == first.output == "All recorded."
    assert [m.model_dump() for m in durable.messages] == [m.model_dump() for m in plain.messages]
    # c1 and c2 run in parallel (in worker threads): their order within a turn is free.
    assert sorted(RAN[:3]) == sorted(RAN[3:]) == [1, 2, 3]
    assert RAN[2] == RAN[5] == 3


@DBOS.workflow(name="local_streamed")
async def local_streamed(prompt: str) -> list[str]:
    agent = Agent(model=ScriptedModel(script()), tools=[record], extensions=[Durable()])
    async with agent.stream(prompt) as run:
        deltas = [e.text async for e in run if isinstance(e, TextDeltaEvent)]
    return [*deltas, str(run.output)]


async def test_in_a_workflow_each_request_and_each_call_is_a_step_streamed_runs_too(
    dbos: None, tmp_path: Path
) -> None:
    RAN.clear()
    with SetWorkflowID("local-1"):
        handle = await DBOS.start_workflow_async(local_streamed, "go")
    assert await handle.get_result() == ["All ", "recorded.", "All recorded."]
    steps = await DBOS.list_workflow_steps_async("local-1")
    names = [step["function_name"] for step in steps]
    assert names == [MODEL_STEP, TOOL_STEP, TOOL_STEP, MODEL_STEP, TOOL_STEP, MODEL_STEP]
    calls = [step["output"].tool_call_id for step in steps if step["function_name"] == TOOL_STEP]
    assert calls == ["c1", "c2", "c3"]
    assert sorted(RAN) == [1, 2, 3]


def test_the_install_shown_in_the_docstring_builds_an_agent() -> None:
    shown = re.search(r"``Agent\(\.\.\., (\w+)=\[Durable\(\)\]\)``", Durable.__doc__ or "")
    assert shown, "Durable's docstring shows no install"
    agent = Agent(model=ScriptedModel(["ok"]), **{shown.group(1): [Durable()]})
    assert any(isinstance(component, Durable) for component in agent.components)
