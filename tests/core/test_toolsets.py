"""Tools for one run, and toolsets: filtered, prefixed and renamed on the adapter chain."""

from __future__ import annotations

import json
import string
from dataclasses import dataclass
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from good_agent import (
    Agent,
    RunContext,
    ToolAdapter,
    ToolDefinitionError,
    ToolMessage,
    Toolset,
    tool,
)
from good_agent.adapters import Signature
from good_agent.testing import ScriptedModel, TestModel
from good_agent.tools.tool import Tool

pytestmark = pytest.mark.anyio


def named(name: str, label: str | None = None) -> Tool:
    """A tool called ``name`` that answers with ``label`` (default: its name)."""

    def run(q: str) -> str:
        return label or name

    return Tool.from_function(run, name=name, description=f"the {name} tool")


def _results(agent: Agent) -> dict[str, str]:
    return {m.tool_name: m.content for m in agent.messages if isinstance(m, ToolMessage)}


identifiers = st.text(alphabet=string.ascii_lowercase + "_", min_size=1, max_size=8)


@st.composite
def renamings(draw: st.DrawFn) -> tuple[list[str], dict[str, str], str]:
    names = draw(st.lists(identifiers, min_size=1, max_size=5, unique=True))
    renamed = draw(st.lists(st.sampled_from(names), unique=True))
    targets = draw(st.lists(identifiers, min_size=len(renamed), max_size=len(renamed), unique=True))
    mapping = dict(zip(renamed, targets, strict=True))
    visible = [mapping.get(n, n) for n in names]
    if len(set(visible)) < len(visible):  # a rename onto a kept name: not a valid case here
        mapping = {}
    prefix = draw(st.text(alphabet=string.ascii_lowercase, max_size=4))
    return names, mapping, prefix


@settings(max_examples=60, deadline=None)
@given(renamings())
def test_renaming_and_prefix_round_trip(case: tuple[list[str], dict[str, str], str]) -> None:
    names, mapping, prefix = case
    toolset = Toolset([named(n) for n in names]).renamed(mapping)
    if prefix:
        toolset = toolset.prefixed(prefix)
    expected = {prefix + mapping.get(n, n): n for n in names}

    async def run() -> None:
        model = TestModel()
        agent = Agent(model=model, tools=[toolset])
        await agent.run("go")
        # forward: the model saw the new names; reverse: each call ran the right tool
        assert model.requests[0].tool_names == list(expected)
        assert _results(agent) == expected
        if agent.adapter_chain.renames:
            naming = agent.adapter_chain.naming()
            assert {v: getattr(naming.tool_for(v), "name", None) for v in expected} == expected
        else:  # nothing renamed: the naming adapter was never needed
            assert list(expected) == names

    anyio.run(run)


@settings(max_examples=40, deadline=None)
@given(st.lists(identifiers, min_size=1, max_size=4, unique=True), identifiers)
def test_two_toolsets_with_the_same_names_combine_under_prefixes(
    names: list[str], other: str
) -> None:
    first = Toolset([named(n, f"first:{n}") for n in names]).prefixed("a_")
    second = Toolset([named(n, f"second:{n}") for n in names]).prefixed("b_")

    async def run() -> None:
        agent = Agent(model=TestModel(), tools=[first, second])
        await agent.run("go")
        assert _results(agent) == {
            **{f"a_{n}": f"first:{n}" for n in names},
            **{f"b_{n}": f"second:{n}" for n in names},
        }

    anyio.run(run)


async def test_the_same_names_without_a_prefix_are_a_clear_error() -> None:
    agent = Agent(model=TestModel(), tools=[Toolset([named("search")]), named("search", "x")])
    with pytest.raises(ToolDefinitionError, match="two tools reach the model as 'search'"):
        await agent.run("go")


def test_renaming_an_unknown_tool_is_refused() -> None:
    with pytest.raises(ToolDefinitionError, match="cannot rename nope: this toolset has search"):
        Toolset([named("search")]).renamed({"nope": "x"})


async def test_one_tool_under_two_names_is_refused() -> None:
    search = named("search")
    agent = Agent(model=TestModel(), tools=[Toolset([search]).prefixed("a_"), search])
    with pytest.raises(ToolDefinitionError, match="offered twice"):
        await agent.run("go")


class AddsUnit(ToolAdapter):
    """An adapter configured by the tool's own name: adds a ``unit`` parameter."""

    def should_adapt(self, tool: Tool, agent: Any) -> bool:
        return tool.name == "measure"

    def adapt_signature(self, tool: Tool, signature: Signature, agent: Any) -> Signature:
        function = dict(signature["function"])
        parameters = dict(function["parameters"])
        parameters["properties"] = {**parameters["properties"], "unit": {"type": "string"}}
        function["parameters"] = parameters
        return {**signature, "function": function}

    def adapt_parameters(self, tool_name: str, parameters: dict[str, Any], agent: Any) -> Any:
        seen.append(tool_name)
        return {k: v for k, v in parameters.items() if k != "unit"}


seen: list[str] = []


async def test_other_adapters_see_the_tools_own_name() -> None:
    seen.clear()
    agent = Agent(model=TestModel(), tools=[Toolset([named("measure")]).prefixed("lab_")])
    agent.adapter_chain.add(AddsUnit())
    [signature] = await agent.tool_signatures()
    assert signature["function"]["name"] == "lab_measure"
    assert "unit" in signature["function"]["parameters"]["properties"]
    await agent.run("go")
    assert seen == ["measure"]
    assert _results(agent) == {"lab_measure": "measure"}


async def test_a_filter_is_asked_before_each_request() -> None:
    toolset = Toolset([named("read"), named("write")]).filtered(
        lambda t, agent: t.name == "read" or agent.context.get("writable", False)
    )

    def open_up(request: Any) -> Any:
        agent.context["writable"] = True
        return ScriptedModel.tool_call("read", {"q": "x"})

    model = ScriptedModel([open_up, "done"])
    agent = Agent(model=model, tools=[toolset])
    await agent.run("go")
    assert [r.tool_names for r in model.requests] == [["read"], ["read", "write"]]


@dataclass
class User:
    name: str
    admin: bool


async def test_a_filter_taking_the_run_context_offers_tools_by_the_runs_deps() -> None:
    def admins_only(ctx: RunContext[User], t: Tool) -> bool:
        return t.name != "delete" or ctx.deps.admin

    toolset = Toolset([named("read"), named("delete")]).filtered(admins_only)
    model = TestModel()
    agent = Agent(model=model, tools=[toolset], deps_type=User)
    await agent.run("go", deps=User("ada", admin=True))
    assert model.requests[-1].tool_names == ["read", "delete"]
    await agent.run("go", deps=User("bob", admin=False))
    assert model.requests[-1].tool_names == ["read"]
    # A call of the hidden tool by name is an unknown tool for bob's run.
    scripted = ScriptedModel([ScriptedModel.tool_call("delete", {"q": "x"}), "ok"])
    with agent.override(model=scripted):
        await agent.run("go", deps=User("bob", admin=False))
    last = agent.messages[-2]
    assert isinstance(last, ToolMessage) and last.is_error
    assert "unknown tool 'delete'" in last.content


async def test_a_three_argument_filter_gets_context_tool_and_agent() -> None:
    seen: list[tuple[str, str, bool]] = []

    def check(ctx: Any, t: Tool, agent: Any) -> bool:
        seen.append((ctx.deps, t.name, isinstance(agent, Agent)))
        return ctx.deps == "yes"

    toolset = Toolset([named("read")]).prefixed("x_").filtered(check)
    model = TestModel()
    agent = Agent(model=model, tools=[toolset])
    await agent.run("go", deps="yes", tools=[Toolset([named("other")]).filtered(check)])
    assert model.requests[-1].tool_names == ["x_read", "other"]
    assert ("yes", "read", True) in seen and ("yes", "other", True) in seen
    await agent.run("go", deps="no")
    assert model.requests[-1].tool_names == []


async def test_a_context_filter_outside_a_run_sees_no_deps() -> None:
    toolset = Toolset([named("read")]).filtered(lambda ctx, t, agent: ctx.deps is None)
    agent = Agent(model=TestModel(), tools=[toolset])
    assert [s["function"]["name"] for s in await agent.tool_signatures()] == ["read"]
    assert (await agent.invoke("read", q="x")).success


async def test_run_tools_are_offered_for_that_run_only() -> None:
    model = TestModel()
    agent = Agent(model=model, tools=[named("always")])
    extra = named("extra")
    await agent.run("one", tools=[extra, Toolset([named("more")]).prefixed("x_")])
    assert model.requests[0].tool_names == ["always", "extra", "x_more"]
    await agent.run("two")
    assert model.requests[-1].tool_names == ["always"]
    await agent.call("three", tools=[extra])
    assert model.requests[-1].tool_names == ["always", "extra"]
    async with agent.stream("four", tools=[extra]) as run:
        async for _ in run:
            pass
    assert model.requests[-1].tool_names == ["always", "extra"]
    assert agent.tools.names() == ["always"]


def test_run_sync_takes_run_tools() -> None:
    model = TestModel()
    agent = Agent(model=model)
    result = agent.run_sync("go", tools=[named("extra")])
    assert json.loads(result.output) == {"extra": "extra"}


async def test_a_run_tool_clashing_with_the_agents_is_refused_before_the_prompt_is_kept() -> None:
    agent = Agent(model=TestModel(), tools=[named("search")])
    with pytest.raises(ToolDefinitionError, match="'search'"):
        await agent.run("go", tools=[named("search", "other")])
    assert agent.messages == []


async def test_plain_functions_and_decorated_tools_mix_in_a_toolset() -> None:
    def echo(text: str) -> str:
        """Echo."""
        return text

    @tool
    def shout(text: str) -> str:
        """Shout."""
        return text.upper()

    toolset = Toolset([echo, shout]).renamed({"echo": "say"})
    assert [t.name for t in toolset.tools] == ["echo", "shout"]
    assert repr(toolset) == "Toolset([say, shout])"
    result = await Agent(model=TestModel(), tools=[toolset]).run("go")
    assert json.loads(result.output) == {"say": "a", "shout": "A"}
