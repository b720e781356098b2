"""ToolCache cost per store, against the same async tool without a cache, interleaved.

Every figure is one tool call through the agent's pipeline (``execute_call`` on the
current plans). The tool is the same trivial ``async`` function in every case, so the
baseline has no worker-thread hop either. Cases:

* ``bare``: no cache;
* ``hit``: a ``ToolCache`` whose entry is already stored (key hashing, a store read,
  JSON decoding; the tool does not run);
* ``miss``: a ``ToolCache`` that never finds the entry (key, a read, the tool, a
  write).

Rounds interleave the cases (bare, then each store's hit and miss) and medians are
reported (wall time: a store's latency is the point). The Redis store uses a
``redis-server`` started here on a free port, if one is installed.

Targets (the issue sets none; these bound the cache's own work): with the memory store
a hit (a hash, a read, a JSON decode, a response object) costs at most 3x the bare
call of the cheapest possible tool, and a miss (the bare call plus a hash, a read and
a write) at most 5x; an SQLite or Redis hit stays under 1 ms.

Run: ``python benchmarks/cache.py``
"""

from __future__ import annotations

import itertools
import os
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from typing import Any

import anyio

from good_agent import Agent, tool
from good_agent.core._execution import current_plans, execute_call
from good_agent.extensions import CacheStore, MemoryStore, RedisStore, SQLiteStore, ToolCache
from good_agent.types.messages import ToolCall

ROUNDS = 7
CALLS = {"memory": 2000, "sqlite": 300, "redis": 300}


@tool
async def lookup(query: str, limit: int = 10) -> dict[str, Any]:
    """Look something up."""
    return {"query": query, "results": list(range(limit))}


async def per_call(store: CacheStore | None, calls: int, *, hit: bool) -> float:
    """Seconds per call: bare (no store), all hits, or all misses."""
    extensions = [ToolCache(store, tools=["lookup"])] if store is not None else []
    fresh = itertools.count()
    async with Agent(tools=[lookup], extensions=extensions) as agent:
        plans = await current_plans(agent)
        if hit:
            arguments = [{"query": "cats", "limit": 5}] * calls
        else:
            run = next(_RUNS)
            arguments = [{"query": f"q{run}-{next(fresh)}", "limit": 5} for _ in range(calls)]
        warm = ToolCall(id="warm", name="lookup", arguments={"query": "cats", "limit": 5})
        assert (await execute_call(agent, warm, plans)).success
        calls_made = [
            ToolCall(id=f"c{i}", name="lookup", arguments=a) for i, a in enumerate(arguments)
        ]
        start = time.perf_counter()
        for call in calls_made:
            await execute_call(agent, call, plans)
        return (time.perf_counter() - start) / calls


_RUNS = itertools.count()


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


def verdict(ok: bool) -> str:
    return "meets" if ok else "MISSES"


async def main() -> None:
    folder = tempfile.mkdtemp()
    stores: dict[str, Callable[[], CacheStore]] = {
        "memory": lambda: MemoryStore(max_entries=100_000),
        "sqlite": lambda: SQLiteStore(os.path.join(folder, "bench.db")),
    }
    redis = start_redis()
    if redis is not None:
        url = f"redis://127.0.0.1:{redis[1]}/0"
        stores["redis"] = lambda: RedisStore(url=url, prefix="bench:")
    opened = {name: make() for name, make in stores.items()}
    bare: dict[str, list[float]] = {name: [] for name in stores}
    results: dict[tuple[str, str], list[float]] = {
        (name, case): [] for name in stores for case in ("hit", "miss")
    }
    try:
        for _ in range(ROUNDS):
            for name, store in opened.items():
                bare[name].append(await per_call(None, CALLS[name], hit=True))
                results[(name, "hit")].append(await per_call(store, CALLS[name], hit=True))
                results[(name, "miss")].append(await per_call(store, CALLS[name], hit=False))
        print(f"{ROUNDS} interleaved rounds, medians; the tool is the same async function")
        columns = ("bare us", "hit us", "hit/bare", "miss us", "miss/bare")
        print(f"{'store':<8} " + " ".join(f"{c:>9}" for c in columns))
        ratios: dict[tuple[str, str], float] = {}
        for name in opened:
            base = statistics.median(bare[name])
            hit = statistics.median(results[(name, "hit")])
            miss = statistics.median(results[(name, "miss")])
            ratios[(name, "hit")], ratios[(name, "miss")] = hit / base, miss / base
            ratios[(name, "hit_us")] = hit * 1e6
            values = (base * 1e6, hit * 1e6, hit / base, miss * 1e6, miss / base)
            print(f"{name:<8} " + " ".join(f"{v:>9.2f}" for v in values))
        print(
            "target memory hit <= 3x bare: "
            f"{verdict(ratios[('memory', 'hit')] <= 3)} ({ratios[('memory', 'hit')]:.2f}x)"
        )
        print(
            "target memory miss <= 5x bare: "
            f"{verdict(ratios[('memory', 'miss')] <= 5)} ({ratios[('memory', 'miss')]:.2f}x)"
        )
        for name in ("sqlite", "redis"):
            if name in opened:
                micro = ratios[(name, "hit_us")]
                print(f"target {name} hit < 1 ms: {verdict(micro < 1000)} ({micro:.0f} us)")
            else:
                print(f"{name}: skipped (redis-server not installed)")
    finally:
        for store in opened.values():
            if isinstance(store, RedisStore):
                await store.clear()
                await store.close()
            elif isinstance(store, SQLiteStore):
                store.close()
        if redis is not None:
            redis[0].terminate()
            redis[0].wait()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    anyio.run(main)
