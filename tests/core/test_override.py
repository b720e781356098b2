"""agent.override(model=..., deps=...): a test's model and deps for the runs in a block."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from good_agent import Agent, RunContext, tool
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio


@dataclass
class Deps:
    user: str


@tool
def whoami(ctx: RunContext[Deps]) -> str:
    """The user."""
    return ctx.deps.user


async def application(agent: Agent[Deps, str]) -> str:
    """Code under test: it passes its own, real deps."""
    return (await agent.run("who?", deps=Deps("production-user"))).output


async def test_override_replaces_the_model_and_the_deps_inside_the_block_only() -> None:
    real = ScriptedModel(["real answer"], name="real")
    agent = Agent(model=real, tools=[whoami], deps_type=Deps)
    fake = ScriptedModel([ScriptedModel.tool_call("whoami"), "test answer"], name="fake")
    with agent.override(model=fake, deps=Deps("test-user")):
        assert agent.model is fake
        assert await application(agent) == "test answer"
    assert agent.messages[2].content == "test-user"
    assert agent.model is real and not real.requests
    assert await application(agent) == "real answer"


async def test_override_restores_on_error_and_nests() -> None:
    first = ScriptedModel([ScriptedModel.tool_call("whoami"), "a"])
    second = ScriptedModel([ScriptedModel.tool_call("whoami"), "b"])
    agent = Agent(model=first, tools=[whoami])
    with pytest.raises(RuntimeError), agent.override(model=second):
        with agent.override(deps=Deps("inner")):
            assert agent.model is second
            await agent.run("x", deps=Deps("mine"))
        raise RuntimeError("boom")
    assert agent.messages[2].content == "inner"
    assert agent.model is first
    assert (await agent.run("x", deps=Deps("mine"))).output == "a"
    assert agent.messages[-2].content == "mine"


async def test_override_with_a_model_name_resolves_it() -> None:
    agent = Agent(model=ScriptedModel(["a"]), api_key="sk-test")
    with agent.override(model="openai:gpt-4o-mini"):
        assert agent.model.model_name == "gpt-4o-mini"
    assert agent.model.model_name == "scripted"


async def test_typed_results_at_run_time() -> None:
    agent = Agent(model=ScriptedModel(['{"n": 1}']), output_type=dict[str, int])
    async with agent.stream("x", output_mode="prompted") as run:
        await run.wait()
    assert run.output == {"n": 1}
