"""Components wrap each model request: ``AgentComponent.around_model_request``."""

from __future__ import annotations

from typing import Any

import pytest

from good_agent import Agent, tool
from good_agent.core.components import AgentComponent, ModelCall
from good_agent.core.events import AgentEvents
from good_agent.core.run_events import TextDeltaEvent
from good_agent.models.base import ModelRequest, ModelResponse
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio


@tool
def ping() -> str:
    """Ping."""
    return "pong"


class Around(AgentComponent):
    def __init__(self, name: str, log: list[str]) -> None:
        super().__init__()
        self.name, self.log = name, log

    async def around_model_request(
        self, request: ModelRequest, call_next: ModelCall
    ) -> ModelResponse:
        self.log.append(f"{self.name} in ({len(request.messages)} messages)")
        response = await call_next(request)
        self.log.append(f"{self.name} out")
        return response


class Answers(AgentComponent):
    async def around_model_request(
        self, request: ModelRequest, call_next: ModelCall
    ) -> ModelResponse:
        return ModelResponse(content="from the component", finish_reason="stop")


def script() -> list[Any]:
    return [ScriptedModel.tool_call("ping", id="p1"), ScriptedModel.streamed("do", "ne")]


@pytest.mark.parametrize("streamed", [False, True])
async def test_the_hooks_wrap_each_request_first_installed_outermost(streamed: bool) -> None:
    log: list[str] = []
    model = ScriptedModel(script())
    agent = Agent(model=model, tools=[ping], extensions=[Around("a", log), Around("b", log)])
    seen: list[str] = []
    agent.events.on(AgentEvents.LLM_RESPONSE_AFTER, lambda ctx: seen.append("after"))
    if streamed:
        async with agent.stream("go") as run:
            deltas = [e.text async for e in run if isinstance(e, TextDeltaEvent)]
        assert deltas == ["do", "ne"]
        output = run.output
    else:
        output = (await agent.run("go")).output
    assert output == "done"
    assert log == [
        "a in (1 messages)", "b in (1 messages)", "b out", "a out",
        "a in (3 messages)", "b in (3 messages)", "b out", "a out",
    ]  # fmt: skip
    assert seen == ["after", "after"]
    assert len(model.requests) == 2


@pytest.mark.parametrize("streamed", [False, True])
async def test_a_hook_may_answer_instead_of_the_model(streamed: bool) -> None:
    model = ScriptedModel([])
    agent = Agent(model=model, extensions=[Answers()])
    if streamed:
        async with agent.stream("go") as run:
            async for _ in run:
                pass
        output = run.output
    else:
        output = (await agent.run("go")).output
    assert output == "from the component"
    assert model.requests == []


async def test_an_uninstalled_component_no_longer_wraps_requests() -> None:
    log: list[str] = []
    component = Around("a", log)
    agent = Agent(model=ScriptedModel(["one", "two"]), extensions=[component])
    await agent.run("go")
    await component.uninstall(agent)
    await agent.run("again")
    assert log == ["a in (1 messages)", "a out"]
