"""Files that hold conversations or cached results are created ``0600``, and one client
key cannot fill the bridge's store of responses: it keeps at most ``max_per_owner`` of
one key's (the oldest go first) and ``max_responses`` in all; on SQLite and Redis, and
over loopback HTTP."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from bridge_fakes import Fake
from responses_harness import AUTH, OTHER, post, start_responses_bridge

from good_agent.extensions import SQLiteStore
from good_agent.server.responses.store import (
    RedisResponseStore,
    SQLiteResponseStore,
    StoredResponse,
)
from good_agent.server.ui import SQLiteThreadStore
from good_agent.types.messages import UserMessage

pytestmark = pytest.mark.anyio


@pytest.fixture
def open_umask() -> Iterator[None]:
    """A umask that lets everyone read new files (as many systems have)."""
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def modes_in(directory: Path) -> dict[str, int]:
    return {path.name: mode(path) for path in directory.iterdir()}


async def test_the_response_store_file_and_its_wal_are_private(
    tmp_path: Path, open_umask: None
) -> None:
    path = tmp_path / "new-dir" / "responses.sqlite3"
    store = SQLiteResponseStore(path, ttl_seconds=60)
    await store.put("resp_1", "owner", StoredResponse({"id": "resp_1"}, []))
    modes = modes_in(path.parent)
    assert "responses.sqlite3" in modes and len(modes) >= 2  # with its WAL
    assert set(modes.values()) == {0o600}
    assert mode(path.parent) == 0o700
    await store.aclose()


async def test_the_thread_and_cache_files_are_private(tmp_path: Path, open_umask: None) -> None:
    threads = SQLiteThreadStore(str(tmp_path / "threads.db"))
    await threads.save("t1", [UserMessage(content="my secret plans")])
    cache = SQLiteStore(str(tmp_path / "cache.db"))
    await cache.set("k", "v", None)
    modes = modes_in(tmp_path)
    assert modes["threads.db"] == modes["cache.db"] == 0o600
    assert set(modes.values()) == {0o600}  # their -wal and -shm files too


async def test_an_existing_file_keeps_the_mode_its_operator_gave_it(
    tmp_path: Path, open_umask: None
) -> None:
    path = tmp_path / "shared.db"
    path.touch(mode=0o640)
    path.chmod(0o640)
    await SQLiteStore(str(path)).set("k", "v", None)
    assert mode(path) == 0o640


async def test_one_owner_keeps_at_most_its_quota_of_responses_the_oldest_go(
    tmp_path: Path,
) -> None:
    store = SQLiteResponseStore(
        tmp_path / "r.sqlite3", ttl_seconds=60, max_per_owner=3, max_responses=5
    )
    for i in range(10):
        await store.put(f"a{i}", "alice", StoredResponse({"id": f"a{i}"}, []))
    assert [await store.get(f"a{i}", "alice") is not None for i in range(10)] == [False] * 7 + [
        True
    ] * 3
    await store.put("b0", "bob", StoredResponse({"id": "b0"}, []))
    assert await store.get("b0", "bob") is not None
    for i in range(3):  # others fill the store: the oldest of all go
        await store.put(f"c{i}", f"carol{i}", StoredResponse({}, []))
    assert await store.get("a7", "alice") is None
    assert await store.get("c2", "carol2") is not None
    await store.aclose()


async def test_the_redis_store_keeps_the_same_quotas(redis_port: int) -> None:
    url = f"redis://127.0.0.1:{redis_port}/6"
    import redis.asyncio

    raw = redis.asyncio.Redis.from_url(url)
    await raw.flushdb()
    store = RedisResponseStore(url, ttl_seconds=100, max_per_owner=3, max_responses=5)
    for i in range(10):
        await store.put(f"a{i}", "alice", StoredResponse({"id": f"a{i}"}, []))
    kept = [await store.get(f"a{i}", "alice") is not None for i in range(10)]
    assert kept == [False] * 7 + [True] * 3
    for i in range(4):
        await store.put(f"b{i}", "bob", StoredResponse({}, []))
    assert await store.get("b3", "bob") is not None
    assert await raw.zcard(RedisResponseStore.ALL) <= 5
    assert len(await raw.keys(RedisResponseStore.PREFIX + "*")) <= 5
    await raw.aclose()
    await store.aclose()


async def test_over_http_one_key_cannot_push_out_another_keys_responses(
    fakes: dict[str, tuple[Fake, str]], tmp_path: Path
) -> None:
    bridge = start_responses_bridge(
        fakes, {"path": str(tmp_path / "responses.sqlite3"), "max_per_owner": 2}
    )
    try:
        body = {"model": "gpt", "input": "Hi"}
        mine = (await post(bridge, body, OTHER)).json()["id"]
        ids = [(await post(bridge, body, AUTH)).json()["id"] for _ in range(4)]
        async with httpx2.AsyncClient(timeout=30) as http:

            async def found(response_id: str, headers: dict[str, str]) -> int:
                url = f"{bridge.url}/v1/responses/{response_id}"
                return (await http.get(url, headers=headers)).status_code

            assert [await found(i, AUTH) for i in ids] == [404, 404, 200, 200]
            assert await found(mine, OTHER) == 200
    finally:
        bridge.stop()
