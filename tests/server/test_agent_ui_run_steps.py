"""One translation of run events for both UI protocols: the steps of a real run are well
framed, and AG-UI and the Vercel stream, over loopback HTTP, tell the same run."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

import pytest
from ui_harness import ag_ui, run_input, served, text_of, user, vercel

from good_agent import Agent, tool
from good_agent.core.run_events import RunEvent
from good_agent.server.ui import agent_app
from good_agent.server.ui.run_steps import (
    CallArgs,
    CallEnd,
    CallResult,
    CallStart,
    PartDelta,
    PartEnd,
    PartStart,
    RunFinish,
    RunSteps,
    Step,
    TurnEnd,
    TurnStart,
    run_steps,
)
from good_agent.server.ui.vercel_wire import (
    TextChunk,
    ToolInputAvailableChunk,
    ToolOutputAvailableChunk,
)
from good_agent.testing import ScriptedModel


@tool
def lookup(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


def weather_agent() -> Agent:
    call = ScriptedModel.tool_call("lookup", {"city": "Paris"}, id="call-1")
    return Agent(model=ScriptedModel([call, "It is sunny in Paris."]), tools=[lookup])


async def events_of(agent: Agent, prompt: str) -> AsyncGenerator[RunEvent, None]:
    async with agent.stream(prompt) as run:
        async for event in run:
            yield event


async def steps_of(agent: Agent, prompt: str) -> list[Step]:
    steps: list[Step] = []
    async for step in run_steps(events_of(agent, prompt), RunSteps(), "req_test"):
        steps.append(step)
    return steps


@pytest.mark.anyio
async def test_the_steps_of_a_run_are_framed_and_end_with_its_finish() -> None:
    steps = await steps_of(weather_agent(), "Weather in Paris?")
    assert isinstance(steps[-1], RunFinish)
    assert steps[-1].result.output == "It is sunny in Paris."
    open_part: PartStart | None = None
    open_calls: set[str] = set()
    in_turn = False
    for step in steps:
        if isinstance(step, TurnStart):
            assert not in_turn
            in_turn = True
        elif isinstance(step, PartStart):
            assert in_turn and open_part is None
            open_part = step
        elif isinstance(step, PartDelta):
            assert open_part is not None and (step.kind, step.id) == (open_part.kind, open_part.id)
        elif isinstance(step, PartEnd):
            assert open_part is not None and step.id == open_part.id
            open_part = None
        elif isinstance(step, CallStart):
            assert in_turn and open_part is None
            open_calls.add(step.id)
        elif isinstance(step, CallArgs):
            assert step.id in open_calls
        elif isinstance(step, CallEnd):
            open_calls.remove(step.id)
        elif isinstance(step, TurnEnd):
            assert open_part is None and not open_calls
            in_turn = False
    ends = [s for s in steps if isinstance(s, CallEnd)]
    assert [(s.id, s.name, s.arguments) for s in ends] == [("call-1", "lookup", {"city": "Paris"})]
    results = [s for s in steps if isinstance(s, CallResult)]
    assert [(s.call_id, s.content, s.is_error) for s in results] == [
        ("call-1", "sunny in Paris", False)
    ]
    text = "".join(s.text for s in steps if isinstance(s, PartDelta) and s.kind == "text")
    assert text == "It is sunny in Paris."


@pytest.mark.anyio
async def test_a_failed_run_ends_with_an_error_step_and_no_finish() -> None:
    agent = Agent(model=ScriptedModel([]))
    steps = await steps_of(agent, "Hello")
    assert type(steps[-1]).__name__ == "RunError"
    assert not any(isinstance(s, RunFinish) for s in steps)


def test_ag_ui_and_vercel_tell_the_same_run() -> None:
    with served(agent_app(weather_agent)) as server:
        events: list[Any] = ag_ui(server, run_input("t-same", [user("Weather in Paris?")]))
        chunks: list[Any] = vercel(
            server,
            {
                "id": "c-same",
                "messages": [
                    {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Weather?"}]}
                ],
            },
        )
    ag_calls = [(e.tool_call_id, e.tool_call_name) for e in events if e.type == "TOOL_CALL_START"]
    ag_results = [(e.tool_call_id, e.content) for e in events if e.type == "TOOL_CALL_RESULT"]
    v_calls = [
        (c.tool_call_id, c.tool_name) for c in chunks if isinstance(c, ToolInputAvailableChunk)
    ]
    v_results = [
        (c.tool_call_id, c.output) for c in chunks if isinstance(c, ToolOutputAvailableChunk)
    ]
    v_text = "".join(
        c.delta or "" for c in chunks if isinstance(c, TextChunk) and c.type == "text-delta"
    )
    assert ag_calls == v_calls == [("call-1", "lookup")]
    assert ag_results == v_results == [("call-1", "sunny in Paris")]
    assert text_of(events) == v_text == "It is sunny in Paris."
