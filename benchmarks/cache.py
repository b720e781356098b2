"""ToolCache hit path latency per store, as a ratio to the bare tool call.

The bare call is one tool call through the agent's pipeline with no extension
(``execute_call`` on a plan, the tool a trivial sync function run in a worker thread,
as tools are). The hit path is the same call with a :class:`ToolCache` whose entry is
already stored: key hashing, a store read, JSON decoding, and no tool run. The Redis
store uses a ``redis-server`` started here on a free port, if one is installed.

Run: ``python benchmarks/cache.py``
"""

from __future__ import annotations

import os
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from good_agent import Agent, tool
from good_agent.core._execution import current_plans, execute_call
from good_agent.core.messages import ToolCall
from good_agent.extensions import CacheStore, MemoryStore, RedisStore, SQLiteStore, ToolCache

ROUNDS = 5
CALLS = 1000


@tool
def lookup(query: str, limit: int = 10) -> dict[str, Any]:
    """Look something up."""
    return {"query": query, "results": list(range(limit))}


async def per_call(agent: Agent, calls: int) -> float:
    plans = await current_plans(agent)
    call = ToolCall(id="bench", name="lookup", arguments={"query": "cats", "limit": 5})
    assert (await execute_call(agent, call, plans)).success
    best = float("inf")
    for _ in range(ROUNDS):
        start = time.perf_counter()
        for _ in range(calls):
            await execute_call(agent, call, plans)
        best = min(best, (time.perf_counter() - start) / calls)
    return best


async def measure(store: CacheStore | None, calls: int = CALLS) -> float:
    extensions = [ToolCache(store, tools=["lookup"])] if store is not None else []
    async with Agent(tools=[lookup], extensions=extensions) as agent:
        return await per_call(agent, calls)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_redis() -> tuple[subprocess.Popen[bytes], int] | None:
    binary = shutil.which("redis-server")
    if binary is None:
        return None
    port = _free_port()
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2) as sock:
                sock.sendall(b"PING\r\n")
                if sock.recv(16).startswith(b"+PONG"):
                    return process, port
        except OSError:
            time.sleep(0.05)
    process.terminate()
    return None


async def main() -> None:
    bare = statistics.median([await measure(None) for _ in range(3)])
    print(f"bare tool call (no cache): {bare * 1e6:8.1f} us")
    stores: list[tuple[str, Callable[[], Awaitable[CacheStore]]]] = []

    async def memory() -> CacheStore:
        return MemoryStore()

    stores.append(("memory", memory))
    folder = tempfile.mkdtemp()

    async def sqlite() -> CacheStore:
        return SQLiteStore(os.path.join(folder, "bench.db"))

    stores.append(("sqlite", sqlite))
    redis = start_redis()
    if redis is not None:

        async def redis_store() -> CacheStore:
            return RedisStore(url=f"redis://127.0.0.1:{redis[1]}/0", prefix="bench:")

        stores.append(("redis", redis_store))
    try:
        for name, make in stores:
            store = await make()
            hit = await measure(store, CALLS if name == "memory" else CALLS // 4)
            print(
                f"cache hit, {name:<7}: {hit * 1e6:8.1f} us   ratio to bare call: {hit / bare:5.2f}"
            )
            if isinstance(store, RedisStore):
                await store.close()
            elif isinstance(store, SQLiteStore):
                store.close()
    finally:
        if redis is not None:
            redis[0].terminate()
            redis[0].wait()
        else:
            print("redis: skipped (redis-server not installed)")
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    anyio.run(main)
