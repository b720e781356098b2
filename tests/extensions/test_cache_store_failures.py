"""A failing cache store never costs a tool result: real SQLite locks, a stopped redis-server."""

from __future__ import annotations

import logging
import socket
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from good_agent import Agent, tool
from good_agent.extensions import CacheEvent, RedisStore, SQLiteStore, ToolCache

pytestmark = pytest.mark.anyio


def counted_tool(runs: list[str]) -> Any:
    @tool
    async def lookup(query: str) -> str:
        """Look something up."""
        runs.append(query)
        return f"answer for {query}"

    return lookup


async def test_a_locked_sqlite_database_never_loses_a_result(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = str(tmp_path / "cache.db")
    store = SQLiteStore(path, timeout=0.05)
    events: list[CacheEvent] = []
    cache = ToolCache(store, tools=["lookup"], on_event=events.append)
    runs: list[str] = []
    caplog.set_level(logging.WARNING, logger="good_agent.extensions.cache")
    try:
        async with Agent(tools=[counted_tool(runs)], extensions=[cache]) as agent:
            assert (await agent.invoke("lookup", query="a")).response == "answer for a"
            other = sqlite3.connect(path, isolation_level=None, timeout=0.05)
            other.execute("BEGIN IMMEDIATE")  # a writer holds the lock past the timeout
            try:
                locked = await agent.invoke("lookup", query="b")
                hit = await agent.invoke("lookup", query="a")  # reads still work in WAL
            finally:
                other.execute("ROLLBACK")
                other.close()
            assert locked.success and locked.response == "answer for b"
            assert hit.response == "answer for a"
            assert cache.stats.store_errors == 1 and cache.stats.lookup_errors == 0
            # Recovery: the next call stores again, the one after is a hit.
            assert (await agent.invoke("lookup", query="b")).response == "answer for b"
            assert (await agent.invoke("lookup", query="b")).response == "answer for b"
    finally:
        store.close()
    assert runs == ["a", "b", "b"]
    assert [e.kind for e in events] == [
        "miss", "set", "miss", "store_error", "hit", "miss", "set", "hit",
    ]  # fmt: skip
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "OperationalError" in warnings[0].getMessage()
    assert warnings[0].cache_event == "store_error"  # type: ignore[attr-defined]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RedisServer:
    """A redis-server of this test alone, so it can be stopped and started again."""

    def __init__(self, binary: str) -> None:
        self.binary, self.port = binary, _free_port()
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("redis-server did not start")
            time.sleep(0.02)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None


@pytest.fixture
def redis_server(redis_server_binary: str) -> Iterator[RedisServer]:
    server = RedisServer(redis_server_binary)
    server.start()
    try:
        yield server
    finally:
        server.stop()


async def test_a_redis_server_that_stops_and_returns_never_loses_a_result(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    store = RedisStore(url=f"redis://127.0.0.1:{redis_server.port}/0", prefix="down:")
    cache = ToolCache(store, tools=["lookup"])
    runs: list[str] = []
    caplog.set_level(logging.WARNING, logger="good_agent.extensions.cache")
    try:
        async with Agent(tools=[counted_tool(runs)], extensions=[cache]) as agent:
            await agent.invoke("lookup", query="a")
            assert (await agent.invoke("lookup", query="a")).response == "answer for a"
            redis_server.stop()
            down = await agent.invoke("lookup", query="a")
            assert down.success and down.response == "answer for a"
            assert (cache.stats.lookup_errors, cache.stats.store_errors) == (1, 1)
            redis_server.start()  # empty again: no persistence
            await agent.invoke("lookup", query="a")
            assert (await agent.invoke("lookup", query="a")).response == "answer for a"
    finally:
        await store.close()
    assert runs == ["a", "a", "a"]
    assert (cache.stats.hits, cache.stats.sets) == (2, 2)
    kinds = [getattr(r, "cache_event", None) for r in caplog.records]
    assert kinds == ["lookup_error", "store_error"]
    assert all("ConnectionError" in r.getMessage() for r in caplog.records)


async def test_a_cancelled_miss_releases_its_key_for_the_next_call() -> None:
    runs: list[str] = []

    @tool
    async def slow(query: str) -> str:
        """Slow on its first call."""
        runs.append(query)
        if len(runs) == 1:
            await anyio.sleep(10)
        return "done"

    cache = ToolCache(tools=["slow"])
    async with Agent(tools=[slow], extensions=[cache]) as agent:
        with anyio.move_on_after(0.05) as first:
            await agent.invoke("slow", query="q")
        with anyio.fail_after(5):  # a key left claimed would make this call wait 30 s
            result = await agent.invoke("slow", query="q")
    assert first.cancelled_caught
    assert result.response == "done" and runs == ["q", "q"]
    assert cache.stats.coalesced == 0 and cache.stats.sets == 1
