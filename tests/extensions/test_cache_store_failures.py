"""A failing cache store never costs a tool result: real SQLite locks, a stopped redis-server."""

from __future__ import annotations

import json
import logging
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from good_agent import Agent, tool
from good_agent.extensions import (
    CacheEvent,
    CacheStoreUnavailable,
    RedisStore,
    SQLiteStore,
    ToolCache,
)

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


async def three_calls(store: SQLiteStore) -> tuple[list[str], ToolCache, list[Any]]:
    """Calls ``a``, ``a``, ``b`` through a cache on ``store``: the tool's runs, the cache
    and the responses."""
    runs: list[str] = []
    cache = ToolCache(store, tools=["lookup"])
    try:
        async with Agent(tools=[counted_tool(runs)], extensions=[cache]) as agent:
            responses = [(await agent.invoke("lookup", query=q)).response for q in "aab"]
    finally:
        store.close()
    return runs, cache, responses


def garbage_file(tmp_path: Path) -> str:
    path = tmp_path / "cache.db"
    path.write_bytes(os.urandom(4096))
    return str(path)


def read_only_file(tmp_path: Path) -> str:
    path = tmp_path / "cache.db"
    anyio.run(three_calls, SQLiteStore(str(path)))  # a real cache file, with entries
    return f"file:{path}?mode=ro"  # opened read-only by SQLite itself, even for root


def under_a_file(tmp_path: Path) -> str:
    (tmp_path / "not-a-directory").write_text("")
    return str(tmp_path / "not-a-directory" / "cache.db")


@pytest.mark.parametrize(
    "make_path",
    [garbage_file, read_only_file, under_a_file],
    ids=["corrupt file", "read-only file", "directory is a file"],
)
def test_an_sqlite_file_that_cannot_be_used_degrades_to_misses_with_one_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, make_path: Callable[[Path], str]
) -> None:
    path = make_path(tmp_path)
    caplog.set_level(logging.WARNING, logger="good_agent.extensions.cache")
    caplog.clear()
    runs, cache, responses = anyio.run(three_calls, SQLiteStore(path, timeout=0.05))
    assert responses == ["answer for a", "answer for a", "answer for b"]
    assert runs == ["a", "a", "b"]  # every call a miss, every result returned
    stats = cache.stats
    assert (stats.hits, stats.sets, stats.lookup_errors, stats.store_errors) == (0, 0, 3, 3)
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1, [r.getMessage() for r in warnings]
    assert "cannot be used" in warnings[0].getMessage()
    assert "SQLiteStore" in warnings[0].getMessage()


async def test_an_unusable_store_raises_its_own_error_for_direct_use(tmp_path: Path) -> None:
    store = SQLiteStore(garbage_file(tmp_path))
    with pytest.raises(CacheStoreUnavailable, match="file is not a database"):
        await store.get("k")
    with pytest.raises(CacheStoreUnavailable):
        await store.clear()
    store.close()


LOCK_HOLDER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.read()  # until the test closes stdin
conn.execute("ROLLBACK")
"""


async def test_a_file_locked_by_another_process_degrades_then_recovers(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = str(tmp_path / "cache.db")
    caplog.set_level(logging.WARNING, logger="good_agent.extensions.cache")
    store = SQLiteStore(path, timeout=0.05)
    runs: list[str] = []
    cache = ToolCache(store, tools=["lookup"])
    async with await anyio.open_process([sys.executable, "-c", LOCK_HOLDER, path]) as holder:
        assert holder.stdout is not None and holder.stdin is not None
        seen = b""
        with anyio.fail_after(30):
            while b"locked" not in seen:
                seen += await holder.stdout.receive()
        try:
            async with Agent(tools=[counted_tool(runs)], extensions=[cache]) as agent:
                for query in "aa":
                    assert (await agent.invoke("lookup", query=query)).response == "answer for a"
                assert runs == ["a", "a"] and cache.stats.lookup_errors == 2
                await holder.stdin.aclose()  # the other process releases its lock
                with anyio.fail_after(30):
                    assert await holder.wait() == 0
                for query in "aa":
                    assert (await agent.invoke("lookup", query=query)).response == "answer for a"
        finally:
            store.close()
    assert runs == ["a", "a", "a"]  # recovered: the third call stored, the fourth hit
    assert (cache.stats.sets, cache.stats.hits) == (1, 1)
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "database is locked" in warnings[0].getMessage()


READ_ONLY_MOUNT = """
import json, logging, sys
import anyio
from good_agent import Agent, tool
from good_agent.extensions import SQLiteStore, ToolCache

records = []
handler = logging.Handler()
handler.emit = records.append
logging.getLogger("good_agent.extensions.cache").addHandler(handler)
runs = []

@tool
def lookup(query: str) -> str:
    "Look something up."
    runs.append(query)
    return f"answer for {query}"

async def main():
    for name in ("existing.db", "new.db"):
        cache = ToolCache(SQLiteStore(sys.argv[1] + "/" + name), tools=["lookup"])
        async with Agent(tools=[lookup], extensions=[cache]) as agent:
            for query in "aab":
                await agent.invoke("lookup", query=query)
        print(json.dumps({"hits": cache.stats.hits, "sets": cache.stats.sets}))

anyio.run(main)
warned = [r.getMessage() for r in records if r.levelno >= logging.WARNING]
print(json.dumps({"runs": runs, "warnings": warned}))
"""


def test_a_read_only_directory_degrades_to_misses_with_one_warning_per_store(
    tmp_path: Path,
) -> None:
    directory = tmp_path / "ro"
    directory.mkdir()
    anyio.run(three_calls, SQLiteStore(str(directory / "existing.db")))
    unshare = shutil.which("unshare")
    # A read-only bind mount in a private mount namespace (``-r``: as mapped root when
    # not root): a read-only directory even for root, who ignores file permissions.
    flags = ["-m"] if os.geteuid() == 0 else ["-r", "-m"]
    mount = f"mount --bind {directory} {directory} && mount -o remount,bind,ro {directory}"
    if (
        unshare is None
        or subprocess.run(
            [unshare, *flags, "sh", "-c", mount], capture_output=True, check=False
        ).returncode
    ):
        pytest.skip("no private mount namespace here (unshare -m, mount --bind)")
    script = f'{mount} && exec {sys.executable} -c "$0" {directory}'
    result = subprocess.run(
        [unshare, *flags, "sh", "-c", script, READ_ONLY_MOUNT],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    *per_store, summary = [json.loads(line) for line in result.stdout.splitlines()]
    assert per_store == [{"hits": 0, "sets": 0}, {"hits": 0, "sets": 0}]
    assert summary["runs"] == ["a", "a", "b"] * 2  # every call ran the tool
    assert len(summary["warnings"]) == 2, summary["warnings"]  # one per store
    assert all("cannot be used" in w for w in summary["warnings"])


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
