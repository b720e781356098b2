"""AuthInjector with a provider taking the RunContext: a per-user credential from deps."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from pydantic import SecretStr

from good_agent import Agent, AuthInjector, RunContext, ToolCache, ToolError, tool
from good_agent.extensions import MemoryStore
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio


@dataclass
class Deps:
    user: str
    token: SecretStr


runs: list[str] = []


@tool
def profile(headers: dict[str, SecretStr], name: str) -> str:
    """A user's profile."""
    runs.append(name)
    bearer = headers["Authorization"].get_secret_value()  # "Bearer tok-<user>-<n>"
    return f"{name} as {bearer.split('-')[1]}"


def script(count: int) -> list[object]:
    replies: list[object] = []
    for _ in range(count):
        replies += [ScriptedModel.tool_call("profile", {"name": "me"}), "ok"]
    return replies


async def test_a_bearer_token_read_from_each_runs_deps() -> None:
    async def token(ctx: RunContext[Deps]) -> SecretStr:
        return ctx.deps.token

    model = ScriptedModel(script(2))
    auth = AuthInjector().bearer(token, tools=["profile"])
    agent = Agent(model=model, tools=[profile], extensions=[auth], deps_type=Deps)
    await agent.run("who?", deps=Deps("ada", SecretStr("tok-ada-123")))
    await agent.run("who?", deps=Deps("bob", SecretStr("tok-bob-456")))
    results = [m.content for m in agent.messages if m.role == "tool"]
    assert results == ["me as ada", "me as bob"]
    assert "headers" not in str(model.requests[0].tools)
    assert "tok-ada-123" not in str(agent.messages) and "tok-bob-456" not in str(agent.messages)


async def test_cached_results_are_scoped_to_the_user_of_the_run() -> None:
    runs.clear()
    model = ScriptedModel(script(3))
    agent = Agent(
        model=model,
        tools=[profile],
        extensions=[
            AuthInjector().bearer(lambda ctx: ctx.deps.token, tools=["profile"]),
            ToolCache(MemoryStore(), tools=["profile"]),
        ],
    )
    await agent.run("who?", deps=Deps("ada", SecretStr("tok-ada-123")))
    await agent.run("who?", deps=Deps("bob", SecretStr("tok-bob-456")))  # not ada's entry
    await agent.run("who?", deps=Deps("ada", SecretStr("tok-ada-123")))  # ada's entry
    assert runs == ["me", "me"]


async def test_a_provider_taking_the_run_context_outside_a_call_context_fails_clearly() -> None:
    from good_agent.extensions.auth import AuthAdapter

    auth = AuthInjector().bearer(lambda ctx: ctx.deps.token, tools=["profile"])
    adapter = auth.adapter
    assert isinstance(adapter, AuthAdapter)
    adapter.adapt_signature(profile, profile.signature, None)
    with pytest.raises(ToolError, match="could not be obtained") as caught:
        await adapter.adapt_parameters("profile", {"name": "me"}, None)
    assert "needs the run context" in str(caught.value.__cause__)
