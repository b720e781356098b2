"""ToolCache and the run's owner: a tool that reads ``RunContext.deps`` (the current
user) is cached per user with a scope that takes the run's context; user B never gets
user A's result, neither from the store nor from a call of A's still running; and
caching such a tool without a scope is refused at install."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest

from good_agent import Agent, RunContext, ToolMessage, tool
from good_agent.extensions import CacheScopeError, MemoryStore, SQLiteStore, ToolCache
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio


@dataclass
class User:
    name: str


runs: list[str] = []
release = anyio.Event()
started: dict[str, anyio.Event] = {}


def started_for(user: str) -> anyio.Event:
    return started.setdefault(user, anyio.Event())


@tool
async def my_files(ctx: RunContext[User], folder: str) -> str:
    """The current user's files in a folder."""
    runs.append(ctx.deps.name)
    started_for(ctx.deps.name).set()
    await release.wait()
    return f"{ctx.deps.name}'s files in {folder}: secret-{ctx.deps.name}.txt"


@pytest.fixture(autouse=True)
def _reset() -> None:
    global release
    runs.clear()
    started.clear()
    release = anyio.Event()
    release.set()


def by_user(ctx: RunContext[User] | None, tool_name: str, parameters: object) -> str | None:
    return ctx.deps.name if ctx is not None else None


def files_agent(cache: ToolCache) -> Agent:
    model = ScriptedModel(
        [ScriptedModel.tool_call("my_files", {"folder": "/docs"}, id="f1"), "Here they are."] * 4
    )
    return Agent(model=model, tools=[my_files], extensions=[cache])


async def files_seen(agent: Agent, user: str) -> str:
    result = await agent.run("list my files", deps=User(user))
    (answer,) = [m for m in result.new_messages if isinstance(m, ToolMessage)]
    return str(answer.content)


async def test_a_cache_scoped_by_the_runs_user_never_serves_one_user_anothers_result(
    tmp_path: Path,
) -> None:
    for store in (MemoryStore(), SQLiteStore(str(tmp_path / "cache.db"))):
        runs.clear()
        agent = files_agent(ToolCache(store, tools=["my_files"], scope=by_user))
        async with agent:
            assert await files_seen(agent, "alice") == "alice's files in /docs: secret-alice.txt"
            assert await files_seen(agent, "bob") == "bob's files in /docs: secret-bob.txt"
            # each user's own entry is a hit for that user only
            assert await files_seen(agent, "alice") == "alice's files in /docs: secret-alice.txt"
            assert await files_seen(agent, "bob") == "bob's files in /docs: secret-bob.txt"
        assert runs == ["alice", "bob"]


async def test_a_call_of_another_user_still_running_is_not_shared() -> None:
    global release
    release = anyio.Event()
    store = MemoryStore()  # its in-flight calls are shared by every cache on it
    alice = files_agent(ToolCache(store, tools=["my_files"], scope=by_user))
    bob = files_agent(ToolCache(store, tools=["my_files"], scope=by_user))
    seen: dict[str, str] = {}

    async def ask(agent: Agent, user: str) -> None:
        seen[user] = await files_seen(agent, user)

    async with alice, bob, anyio.create_task_group() as group:
        group.start_soon(ask, alice, "alice")
        with anyio.fail_after(5):
            await started_for("alice").wait()
        group.start_soon(ask, bob, "bob")
        with anyio.fail_after(5):
            await started_for("bob").wait()  # bob's call runs: it did not wait for alice's
        assert runs == ["alice", "bob"]
        release.set()
    assert seen == {
        "alice": "alice's files in /docs: secret-alice.txt",
        "bob": "bob's files in /docs: secret-bob.txt",
    }


async def test_the_same_users_call_still_running_is_shared() -> None:
    global release
    release = anyio.Event()
    store = MemoryStore()
    first = files_agent(ToolCache(store, tools=["my_files"], scope=by_user))
    second = files_agent(ToolCache(store, tools=["my_files"], scope=by_user))
    seen: list[str] = []

    async def ask(agent: Agent) -> None:
        seen.append(await files_seen(agent, "alice"))

    async with first, second, anyio.create_task_group() as group:
        group.start_soon(ask, first)
        with anyio.fail_after(5):
            await started_for("alice").wait()
        group.start_soon(ask, second)
        await anyio.sleep(0.1)
        release.set()
    assert runs == ["alice"]  # the second call waited for the first and got its result
    assert seen == ["alice's files in /docs: secret-alice.txt"] * 2


async def test_caching_a_tool_that_takes_the_run_context_without_a_scope_is_refused() -> None:
    agent = files_agent(ToolCache(tools=["my_files"]))
    with pytest.raises(CacheScopeError, match="my_files") as refused:
        async with agent:
            pass
    message = str(refused.value)
    assert "RunContext" in message and "scope=lambda ctx, tool, params: ctx.deps" in message
    assert runs == []


async def test_a_two_argument_scope_still_works() -> None:
    seen: list[tuple[str, object]] = []

    def old_style(tool_name: str, parameters: object) -> str:
        seen.append((tool_name, parameters))
        return "everyone"

    @tool
    def weather(city: str) -> str:
        """Weather."""
        return f"sunny in {city}"

    model = ScriptedModel([ScriptedModel.tool_call("weather", {"city": "Oslo"}), "ok"] * 2)
    cache = ToolCache(tools=["weather"], scope=old_style)
    async with Agent(model=model, tools=[weather], extensions=[cache]) as agent:
        await agent.run("weather?")
        await agent.run("weather?")
    assert seen == [("weather", {"city": "Oslo"})] * 2
    assert cache.stats.hits == 1
