"""Delegation: a tool that runs another agent passes on the run's usage and deps."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from good_agent import Agent, RunContext, RunUsage, UsageLimitExceeded, UsageLimits, tool
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio


@dataclass
class Deps:
    user: str


def delegating_agent(
    parent_script: list[Any], sub_script: list[Any], **options: Any
) -> tuple[Agent[Deps, str], Agent[Deps, str], list[str]]:
    """A parent agent whose ``research`` tool runs a sub-agent with the run's usage."""
    seen: list[str] = []
    sub: Agent[Deps, str] = Agent(model=ScriptedModel(sub_script), deps_type=Deps)

    @tool
    def lookup(ctx: RunContext[Deps]) -> str:
        """The user the sub-agent serves."""
        seen.append(ctx.deps.user)
        return ctx.deps.user

    sub.tools.add(lookup)

    @tool
    async def research(ctx: RunContext[Deps], topic: str) -> str:
        """Ask the research agent."""
        result = await sub.run(topic, usage=ctx.usage, deps=ctx.deps)
        return result.output

    parent: Agent[Deps, str] = Agent(
        model=ScriptedModel(parent_script), tools=[research], deps_type=Deps, **options
    )
    return parent, sub, seen


async def test_a_sub_agents_requests_and_tool_calls_count_in_the_parents_usage() -> None:
    parent, sub, seen = delegating_agent(
        [ScriptedModel.tool_call("research", {"topic": "owls"}), "Owls hoot."],
        [ScriptedModel.tool_call("lookup"), "They hoot."],
    )
    result = await parent.run("Tell me about owls.", deps=Deps("ada"))
    assert result.output == "Owls hoot."
    # parent: 2 requests, 1 call; sub-agent: 2 requests, 1 call
    assert (result.usage.requests, result.usage.tool_calls) == (4, 2)
    assert seen == ["ada"]  # deps=ctx.deps reached the sub-agent's tool
    assert sub.messages[-1].content == "They hoot."


async def test_without_usage_a_sub_agent_counts_apart() -> None:
    sub = Agent(model=ScriptedModel(["Fine."]))

    @tool
    async def ask(topic: str) -> str:
        """Ask."""
        return (await sub.run(topic)).output

    parent = Agent(model=ScriptedModel([ScriptedModel.tool_call("ask", {"topic": "x"}), "ok"]))
    parent.tools.add(ask)
    result = await parent.run("go")
    assert result.usage.requests == 2


async def test_a_parent_limit_stops_a_sub_agent_that_would_exceed_it() -> None:
    parent, sub, _ = delegating_agent(
        [ScriptedModel.tool_call("research", {"topic": "owls"}), "never"],
        [ScriptedModel.tool_call("lookup"), ScriptedModel.tool_call("lookup"), "never"],
        usage_limits=UsageLimits(request_limit=3),
    )
    with pytest.raises(UsageLimitExceeded) as caught:
        await parent.run("Tell me about owls.", deps=Deps("ada"))
    # one parent request, then the sub-agent's second request would be the fourth
    assert caught.value.usage.requests == 3
    assert len(sub.model.requests) == 2  # type: ignore[attr-defined]
    assert len(parent.model.requests) == 1  # type: ignore[attr-defined]
    # Both histories stay valid: every call has its result.
    for agent in (parent, sub):
        calls = [c.id for m in agent.messages for c in getattr(m, "tool_calls", [])]
        answered = [m.tool_call_id for m in agent.messages if m.role == "tool"]
        assert calls == answered


async def test_a_sub_agents_own_limit_counts_the_shared_totals() -> None:
    shared = RunUsage(requests=5)
    agent = Agent(model=ScriptedModel(["hi"]))
    with pytest.raises(UsageLimitExceeded):
        await agent.run("x", usage=shared, usage_limits=UsageLimits(request_limit=5))
    result = await agent.run("y", usage=shared)
    assert result.usage is shared and shared.requests == 6


async def test_a_finished_parent_leaves_no_limit_on_the_shared_usage() -> None:
    shared = RunUsage()
    agent = Agent(model=ScriptedModel(["a", "b"]))
    await agent.run("x", usage=shared, usage_limits=UsageLimits(request_limit=1))
    # the limit of the run above ended with it
    await agent.run("y", usage=shared)
    assert shared.requests == 2


async def test_streamed_and_called_runs_take_usage_too() -> None:
    shared = RunUsage()
    agent = Agent(model=ScriptedModel(["a", "b"]))
    await agent.call("x", usage=shared)
    async with agent.stream("y", usage=shared) as run:
        await run.wait()
    assert shared.requests == 2 and run.usage is shared


def chat(message: dict[str, Any], tokens: int) -> tuple[int, dict[str, Any]]:
    return 200, {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": tokens, "completion_tokens": 1, "total_tokens": tokens + 1},
    }


CALL_RESEARCH = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {
            "id": "c1",
            "type": "function",
            "function": {"name": "research", "arguments": '{"topic": "owls"}'},
        }
    ],
}
"""The parent's reply asking the research agent (Chat Completions)."""


async def test_delegation_over_loopback_http_counts_both_agents_tokens(
    fake_upstream: Callable[[list[Any]], Any],
) -> None:
    upstream = fake_upstream(
        [
            chat(CALL_RESEARCH, 10),  # parent asks the sub-agent
            chat({"role": "assistant", "content": "They hoot."}, 20),  # sub-agent
            chat({"role": "assistant", "content": "Owls hoot."}, 30),  # parent answers
        ]
    )
    http = {"base_url": f"{upstream.url}/v1", "api_key": "sk-test"}
    sub = Agent("You research.", model="openai:gpt-4o-mini", **http)

    @tool
    async def research(ctx: RunContext[None], topic: str) -> str:
        """Ask the research agent."""
        return (await sub.run(topic, usage=ctx.usage)).output

    parent = Agent("You answer.", model="openai:gpt-4o-mini", tools=[research], **http)
    async with parent, sub:
        result = await parent.run("Owls?")
    assert result.output == "Owls hoot."
    assert result.usage.requests == 3
    assert result.usage.input_tokens == 60 and result.usage.output_tokens == 3
    assert upstream.bodies[1]["messages"][0]["content"] == "You research."


async def test_a_parent_token_limit_stops_the_sub_agent_over_loopback_http(
    fake_upstream: Callable[[list[Any]], Any],
) -> None:
    upstream = fake_upstream(
        [chat(CALL_RESEARCH, 10), chat({"role": "assistant", "content": "x"}, 50)]
    )
    http = {"base_url": f"{upstream.url}/v1", "api_key": "sk-test"}
    sub = Agent(model="openai:gpt-4o-mini", **http)

    @tool
    async def research(ctx: RunContext[None], topic: str) -> str:
        """Ask the research agent."""
        return (await sub.run(topic, usage=ctx.usage)).output

    parent = Agent(
        model="openai:gpt-4o-mini",
        tools=[research],
        usage_limits=UsageLimits(input_tokens_limit=40),
        **http,
    )
    async with parent, sub:
        with pytest.raises(UsageLimitExceeded) as caught:
            await parent.run("Owls?")
    assert caught.value.usage.input_tokens == 60
    assert len(upstream.bodies) == 2  # the parent was not asked again
    assert parent.messages[-1].role == "tool" and parent.messages[-1].is_error
