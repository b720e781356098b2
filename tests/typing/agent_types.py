"""Static typing of the agent API, checked by ``mypy --strict`` (see ``.ci/run``).

Never run: each ``assert_type`` is a claim mypy verifies; each ``type: ignore`` marks a
call mypy must refuse (``warn_unused_ignores``, part of ``--strict``, fails the check
if it does not).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, assert_type

from pydantic import BaseModel

from good_agent import (
    Agent,
    AgentRun,
    AssistantMessage,
    Conversation,
    Message,
    RunContext,
    RunResult,
    StreamedRun,
    UserMessage,
)
from good_agent.testing import ScriptedModel


@dataclass
class Deps:
    user: str


class Report(BaseModel):
    title: str


class Other(BaseModel):
    size: int


model = ScriptedModel([])


async def typed_agent() -> None:
    agent = Agent(model=model, deps_type=Deps, output_type=Report)
    assert_type(agent, Agent[Deps, Report])
    result = await agent.run("x", deps=Deps("ada"))
    assert_type(result, RunResult[Report])
    assert_type(result.output, Report)
    assert_type(agent.run_sync("x").output, Report)
    assert_type((await agent.run("x", output_type=Other)).output, Other)
    assert_type(agent.run_sync("x", output_type=int).output, int)
    async with agent.stream("x", deps=Deps("ada")) as run:
        assert_type(run, StreamedRun[Report])
        assert_type(run.output, Report)
    assert_type(agent.stream("x", output_type=list[Other]), StreamedRun[list[Other]])
    assert_type(await agent.call("x", deps=Deps("ada")), AssistantMessage)
    async with agent.iter("x", deps=Deps("ada")) as steps:
        assert_type(steps, AgentRun[Report])
        assert_type(steps.result, RunResult[Report] | None)
    assert_type(agent.iter("x", output_type=Other), AgentRun[Other])
    agent.iter("x", deps="not deps")  # type: ignore[call-overload]
    await agent.run("x", deps="not deps")  # type: ignore[call-overload]
    with agent.override(deps=Deps("test"), model=model):
        pass
    with agent.override(deps=3):  # type: ignore[arg-type]
        pass


async def text_agent() -> None:
    agent = Agent("You are terse.", model=model)
    assert_type(agent, Agent[Any, str])
    assert_type((await agent.run("x")).output, str)
    assert_type(agent.run_sync("x", deps=object()).output, str)
    annotated: Agent[Deps, Report] = Agent(model=model, deps_type=Deps, output_type=Report)
    assert_type(annotated.run_sync("x").output, Report)
    limited = Agent(model=model, tool_timeout=5.0, max_concurrency=2, output_type=Report)
    assert_type(limited.run_sync("x", tools=[], usage_limits=None).output, Report)
    Agent(model=model, max_iterations="ten")  # type: ignore[call-overload]


def union_output() -> None:
    agent = Agent(model=model, output_type=Report | Other)  # a union is not a type[...]
    assert_type(agent.run_sync("x").output, Any)


def tools_and_hooks() -> None:
    agent = Agent(model=model, deps_type=Deps, output_type=Report)

    @agent.instructions
    def who(ctx: RunContext[Deps]) -> str:
        assert_type(ctx.deps, Deps)
        return ctx.deps.user

    @agent.output_validator
    async def check(ctx: RunContext[Deps], report: Report) -> Report:
        return report

    def any_agent(agent: Agent) -> None: ...

    any_agent(agent)  # a bare ``Agent`` annotation takes any agent


async def runs_with_their_own_history() -> None:
    agent = Agent(model=model, deps_type=Deps, output_type=Report)
    earlier: list[Message] = [UserMessage(content="hi")]
    result = await agent.run("x", message_history=earlier, deps=Deps("ada"))
    assert_type(result, RunResult[Report])
    assert_type(result.all_messages(), list[Message])
    assert_type(result.new_messages, list[Message])
    assert_type(
        (await agent.run("x", message_history=[], output_type=Other)).output, Other
    )
    assert_type(agent.run_sync("x", message_history=earlier).output, Report)
    assert_type(agent.stream("x", message_history=[]), StreamedRun[Report])
    assert_type(
        (await agent.run("x", model="openai:gpt-4o-mini", model_settings={"temperature": 0}))
        .output,
        Report,
    )
    await agent.run("x", message_history=[1])  # type: ignore[list-item]
    await agent.run("x", model_settings=1)  # type: ignore[call-overload]


async def conversation_results() -> None:
    agent = Agent(model=model, deps_type=Deps, output_type=Report)
    conversation = agent.conversation(history=[UserMessage(content="hi")])
    assert_type(conversation, Conversation[Deps, Report])
    async with conversation as entered:
        assert_type(entered, Conversation[Deps, Report])
    assert_type((await conversation.run("x", deps=Deps("ada"))).output, Report)
    assert_type((await conversation.run("x", output_type=Other)).output, Other)
    assert_type(conversation.run_sync("x").output, Report)
    async with conversation.stream("x") as run:
        assert_type(run, StreamedRun[Report])
    async with conversation.iter("x") as steps:
        assert_type(steps, AgentRun[Report])
    assert_type(await conversation.call("x"), AssistantMessage)
    assert_type(conversation.messages, list[Message])
    text_agent = Agent(model=model)
    assert_type((await text_agent.conversation().run("x")).output, str)
    await conversation.run("x", deps="not deps")  # type: ignore[call-overload]


class Forecast(BaseModel):
    city: str


def make_forecast(ctx: RunContext[Deps], city: str) -> Forecast:
    return Forecast(city=city)


async def fetch_forecast(city: str) -> Forecast:
    return Forecast(city=city)


async def output_functions_and_deferred_runs() -> None:
    agent = Agent(model=model, deps_type=Deps, output_type=make_forecast)
    assert_type(agent, Agent[Deps, Forecast])
    result = await agent.run("x", deps=Deps("ada"))
    assert_type(result.output, Forecast)
    assert_type(result.output_or_none, Forecast | None)
    assert_type(Agent(model=model, output_type=fetch_forecast).run_sync("x").output, Forecast)
    assert_type(agent.run_sync("x", end_strategy="exhaustive").output, Forecast)
    text_or_report = Agent(model=model, output_type=str | Report)  # a union: not a type[...]
    assert_type(text_or_report.run_sync("x").output, Any)
    Agent(model=model, end_strategy="sometimes")  # type: ignore[call-overload]
    text_agent = Agent(model=model, deps_type=Deps)
    assert_type((await text_agent.run("x", output_type=make_forecast)).output, Forecast)
    assert_type(text_agent.run_sync("x", output_type=fetch_forecast).output, Forecast)
    assert_type(text_agent.stream("x", output_type=fetch_forecast), StreamedRun[Forecast])
    assert_type(text_agent.iter("x", output_type=make_forecast), AgentRun[Forecast])


def names_imported_on_first_use() -> None:
    # The faces import these on first use (PEP 562); type checkers see plain imports,
    # and a name no face has is still an error.
    import good_agent
    import good_agent.models
    from good_agent.extensions._cache import ToolCache as CacheClass
    from good_agent.models.vendors import OpenAIChatModel as ChatClass

    assert_type(good_agent.ToolCache, type[CacheClass])
    assert_type(good_agent.OpenAIChatModel, type[ChatClass])
    assert_type(good_agent.models.OpenAIChatModel("gpt-4o", api_key="k"), ChatClass)
    print(good_agent.NoSuchName)  # type: ignore[attr-defined]
    print(good_agent.models.NoSuchName)  # type: ignore[attr-defined]
