"""ToolCache: one behavioural suite run against the memory, SQLite and Redis stores."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from pydantic import SecretStr

from good_agent import Agent, ToolMessage, tool
from good_agent.extensions import (
    AuthInjector,
    CacheEvent,
    CacheStore,
    MemoryStore,
    RedisStore,
    SQLiteStore,
    ToolCache,
)
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio

STORES = ["memory", "sqlite", "redis"]


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=STORES)
def store_kind(request: pytest.FixtureRequest) -> str:
    if request.param == "redis":
        request.getfixturevalue("redis_port")
    return str(request.param)


@pytest.fixture
def open_store(
    store_kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> Callable[[], Any]:
    @asynccontextmanager
    async def opener() -> AsyncIterator[CacheStore]:
        if store_kind == "memory":
            yield MemoryStore()
        elif store_kind == "sqlite":
            sqlite = SQLiteStore(str(tmp_path / f"{uuid.uuid4().hex}.db"))
            try:
                yield sqlite
            finally:
                sqlite.close()
        else:
            port = request.getfixturevalue("redis_port")
            redis_store = RedisStore(
                url=f"redis://127.0.0.1:{port}/0", prefix=f"t:{uuid.uuid4().hex}:"
            )
            try:
                yield redis_store
            finally:
                await redis_store.clear()
                await redis_store.close()

    return opener


class Counted:
    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def tool(self, delay: float = 0.0) -> Any:
        calls = self.calls

        @tool
        async def lookup(query: str, api_key: SecretStr | None = None) -> dict[str, Any]:
            """Look something up."""
            calls.append({"query": query, "key": api_key})
            if delay:
                await anyio.sleep(delay)
            if query == "boom":
                raise RuntimeError("upstream failed")
            return {"query": query, "answer": len(query)}

        return lookup


async def test_hit_and_miss(open_store: Callable[[], Any]) -> None:
    counted = Counted()
    events: list[CacheEvent] = []
    model = ScriptedModel(
        [
            ScriptedModel.tool_call("lookup", {"query": "abc"}),
            ScriptedModel.tool_call("lookup", {"query": "abc"}),
            ScriptedModel.tool_call("lookup", {"query": "xyz"}),
            "done",
        ]
    )
    async with open_store() as store:
        cache = ToolCache(store, tools=["lookup"], on_event=events.append)
        async with Agent(model=model, tools=[counted.tool()], extensions=[cache]) as agent:
            await agent.call("go")
    assert [c["query"] for c in counted.calls] == ["abc", "xyz"]
    results = [m for m in agent.messages if isinstance(m, ToolMessage)]
    assert results[0].content == results[1].content
    assert [r.tool_call_id for r in results] == [
        c.id for m in agent.messages for c in getattr(m, "tool_calls", [])
    ]
    assert (cache.stats.hits, cache.stats.misses, cache.stats.sets) == (1, 2, 2)
    assert [e.kind for e in events] == ["miss", "set", "hit", "miss", "set"]


async def test_ttl_expiry_with_injected_clock(open_store: Callable[[], Any]) -> None:
    counted = Counted()
    clock = FakeClock()
    async with open_store() as store:
        cache = ToolCache(store, tools={"lookup": 10.0}, clock=clock)
        async with Agent(tools=[counted.tool()], extensions=[cache]) as agent:
            await agent.invoke("lookup", query="q")
            clock.now += 9
            await agent.invoke("lookup", query="q")
            assert len(counted.calls) == 1
            clock.now += 2
            await agent.invoke("lookup", query="q")
    assert len(counted.calls) == 2


async def test_scope_isolation_between_principals(open_store: Callable[[], Any]) -> None:
    counted = Counted()
    lookup = counted.tool()
    async with open_store() as store:
        keys = []
        for token in ["alice-token-123", "bob-token-456", "alice-token-123"]:
            cache = ToolCache(store, tools=["lookup"])
            # a shared store without a scope key warns (tests/extensions/test_scope_key.py)
            auth = AuthInjector({"api_key": token}, scope_key="test-deployment-scope-key")
            async with Agent(tools=[lookup], extensions=[cache, auth]) as agent:
                response = await agent.invoke("lookup", query="same")
                assert response.success
                keys.append(cache.key_for("lookup", {"query": "same", "api_key": SecretStr(token)}))
    assert len(counted.calls) == 2
    assert [c["key"].get_secret_value() for c in counted.calls] == [
        "alice-token-123",
        "bob-token-456",
    ]
    assert keys[0] == keys[2] != keys[1]
    assert all("token" not in key for key in keys)


async def test_single_flight_runs_the_tool_once(open_store: Callable[[], Any]) -> None:
    counted = Counted()
    calls = [("lookup", {"query": "slow"}) for _ in range(6)]
    model = ScriptedModel([ScriptedModel.tool_calls(*calls), "done"])
    async with open_store() as store:
        cache = ToolCache(store, tools=["lookup"])
        async with Agent(
            model=model, tools=[counted.tool(delay=0.05)], extensions=[cache]
        ) as agent:
            await agent.call("go")
    assert len(counted.calls) == 1
    results = [m for m in agent.messages if isinstance(m, ToolMessage)]
    assert len(results) == 6 and len({r.content for r in results}) == 1
    assert len({r.tool_call_id for r in results}) == 6
    assert cache.stats.misses == 1 and cache.stats.hits == 5 and cache.stats.coalesced == 5


async def test_caches_on_one_store_share_its_calls_in_flight(
    open_store: Callable[[], Any],
) -> None:
    """The calls running now belong to the store: a second cache on it waits for the
    first cache's identical call instead of running the tool again."""
    ran: list[str] = []
    started, waited = anyio.Event(), anyio.Event()

    @tool
    async def lookup(query: str) -> str:
        """Look something up."""
        ran.append(query)
        started.set()
        with anyio.fail_after(10):
            await waited.wait()  # until the other cache's call is waiting for this one
        return f"result for {query}"

    def seen(event: CacheEvent) -> None:
        if event.kind == "coalesced":
            waited.set()

    async with open_store() as store:
        first = ToolCache(store, tools=["lookup"])
        second = ToolCache(store, tools=["lookup"], on_event=seen)
        assert first.in_flight is second.in_flight
        async with (
            Agent(tools=[lookup], extensions=[first]) as one,
            Agent(tools=[lookup], extensions=[second]) as two,
        ):
            answers: list[Any] = []

            async def ask(agent: Agent) -> None:
                answers.append(await agent.invoke("lookup", query="same"))

            async with anyio.create_task_group() as group:
                group.start_soon(ask, one)
                with anyio.fail_after(10):
                    await started.wait()  # the first cache's call is running
                group.start_soon(ask, two)
    assert ran == ["same"]
    assert [a.response for a in answers] == ["result for same"] * 2
    assert second.stats.coalesced == 1 and second.stats.hits == 1


async def test_a_store_of_ones_own_coalesces_per_cache() -> None:
    class Plain:
        def __init__(self) -> None:
            self.data: dict[str, str] = {}

        async def get(self, key: str) -> str | None:
            return self.data.get(key)

        async def set(self, key: str, value: str, ttl: float | None) -> None:
            self.data[key] = value

        async def delete(self, key: str) -> None:
            self.data.pop(key, None)

        async def clear(self) -> None:
            self.data.clear()

    counted = Counted()
    calls = [("lookup", {"query": "slow"}) for _ in range(3)]
    model = ScriptedModel([ScriptedModel.tool_calls(*calls), "done"])
    cache = ToolCache(Plain(), tools=["lookup"])
    async with Agent(model=model, tools=[counted.tool(delay=0.05)], extensions=[cache]) as agent:
        await agent.call("go")
    assert len(counted.calls) == 1 and cache.stats.coalesced == 2


async def test_errors_are_not_cached_unless_configured(open_store: Callable[[], Any]) -> None:
    for cache_errors, expected in [(False, 2), (True, 1)]:
        counted = Counted()
        async with open_store() as store:
            cache = ToolCache(store, tools=["lookup"], cache_errors=cache_errors)
            async with Agent(tools=[counted.tool()], extensions=[cache]) as agent:
                first = await agent.invoke("lookup", query="boom")
                second = await agent.invoke("lookup", query="boom")
        assert not first.success and not second.success
        assert second.error == first.error
        assert len(counted.calls) == expected


async def test_use_cache_flag_is_opt_in_and_bypasses(open_store: Callable[[], Any]) -> None:
    counted = Counted()
    async with open_store() as store:
        plain = ToolCache(store, tools=["lookup"])
        async with Agent(tools=[counted.tool()], extensions=[plain]) as agent:
            props = (await agent.tool_signatures())[0]["function"]["parameters"]["properties"]
            assert "use_cache" not in props
        cache = ToolCache(store, tools=["lookup"], use_cache_flag=True)
        async with Agent(tools=[counted.tool()], extensions=[cache]) as agent:
            props = (await agent.tool_signatures())[0]["function"]["parameters"]["properties"]
            assert props["use_cache"]["type"] == "boolean"
            await agent.invoke("lookup", query="q")
            await agent.invoke("lookup", query="q", use_cache=True)
            await agent.invoke("lookup", query="q", use_cache=False)
            await agent.invoke("lookup", query="q")
    assert len(counted.calls) == 2
    assert cache.stats.bypasses == 1 and cache.stats.hits == 2


async def test_stored_values_are_json_tool_responses(open_store: Callable[[], Any]) -> None:
    import json

    counted = Counted()
    async with open_store() as store:
        cache = ToolCache(store, tools=["lookup"])
        async with Agent(tools=[counted.tool()], extensions=[cache]) as agent:
            await agent.invoke("lookup", query="q")
        items = await store.items()  # type: ignore[attr-defined]
    assert len(items) == 1
    key, value = items[0]
    assert key.startswith("v1:lookup:")
    entry = json.loads(value)
    assert entry["response"]["response"] == {"query": "q", "answer": 1}
    assert "tool_call_id" not in entry["response"]


def test_memory_store_is_lru() -> None:
    async def run() -> None:
        store = MemoryStore(max_entries=2)
        await store.set("a", "1", None)
        await store.set("b", "2", None)
        assert await store.get("a") == "1"
        await store.set("c", "3", None)
        assert await store.get("b") is None and await store.get("a") == "1"

    anyio.run(run)


SCRIPT = textwrap.dedent(
    """
    import sys
    import anyio
    from good_agent import Agent, tool
    from good_agent.extensions import RedisStore, ToolCache

    runs = []

    @tool
    def lookup(query: str) -> str:
        "Look something up."
        runs.append(query)
        return "answer for " + query

    async def main() -> None:
        store = RedisStore(url=sys.argv[1], prefix=sys.argv[2])
        async with Agent(tools=[lookup], extensions=[ToolCache(store, tools=["lookup"])]) as agent:
            response = await agent.invoke("lookup", query="shared")
        await store.close()
        print(len(runs), response.response)

    anyio.run(main)
    """
)


def test_two_processes_share_a_redis_cache(redis_port: int, tmp_path: Path) -> None:
    script = tmp_path / "cache_client.py"
    script.write_text(SCRIPT)
    url, prefix = f"redis://127.0.0.1:{redis_port}/0", f"p:{uuid.uuid4().hex}:"
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    outputs = [
        subprocess.run(
            [sys.executable, str(script), url, prefix],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=True,
        ).stdout.strip()
        for _ in range(2)
    ]
    assert outputs == ["1 answer for shared", "0 answer for shared"]


async def test_waiters_run_the_tool_themselves_after_flight_timeout() -> None:
    counted = Counted()
    cache = ToolCache(tools=["lookup"], flight_timeout=0.05)
    model = ScriptedModel(
        [ScriptedModel.tool_calls(("lookup", {"query": "q"}), ("lookup", {"query": "q"})), "ok"]
    )
    async with Agent(model=model, tools=[counted.tool(delay=0.3)], extensions=[cache]) as agent:
        await agent.call("go")
    assert len(counted.calls) == 2
    assert cache.stats.coalesced == 1 and cache.stats.misses == 2


def test_the_scope_memo_never_mixes_principals() -> None:
    cache = ToolCache(tools=["lookup"])
    alice, bob = SecretStr("alice-token-123"), SecretStr("bob-token-456")
    keys = [
        cache.key_for("lookup", {"query": "q", "api_key": secret})
        for secret in (alice, bob, SecretStr("alice-token-123"), bob)
    ]
    assert keys[0] == keys[2] != keys[1] == keys[3]
    moved = cache.key_for("lookup", {"query": "q", "token": alice})
    assert moved not in keys
