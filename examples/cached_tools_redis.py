"""Tool results cached in Redis, shared by every process that uses the same server.

Offline (default) the script starts a throwaway `redis-server` on a free loopback
port (or, without one installed, uses SQLite and says so) and a scripted model asks
the same question twice: the second answer comes from the cache and the tool runs
once. With your own Redis and a real model:

    python examples/cached_tools_redis.py --redis redis://localhost:6379/0 --model gpt-4.1-mini
"""

from __future__ import annotations

import argparse
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager

import anyio

from good_agent import Agent, RedisStore, SQLiteStore, ToolCache, tool
from good_agent.testing import ScriptedModel

runs: list[str] = []


@tool
def exchange_rate(base: str, quote: str) -> float:
    """The exchange rate between two currencies (an expensive lookup).

    Args:
        base: ISO code of the base currency.
        quote: ISO code of the quote currency.
    """
    runs.append(f"{base}/{quote}")
    return 0.92


@contextmanager
def throwaway_redis() -> Iterator[str | None]:
    """A redis-server on a free loopback port, if one is installed."""
    binary = shutil.which("redis-server")
    if binary is None:
        yield None
        return
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(timeout=10)


async def ask_twice(redis_url: str | None, model: str | None) -> None:
    store = RedisStore(url=redis_url) if redis_url else SQLiteStore()
    print("store:", "Redis at " + redis_url if redis_url else "SQLite (no redis-server found)")
    cache = ToolCache(store, tools=["exchange_rate"], ttl=3600)
    for attempt in (1, 2):
        call = ScriptedModel.tool_call("exchange_rate", {"base": "USD", "quote": "EUR"})
        scripted = ScriptedModel([call, "1 USD = 0.92 EUR."])
        agent = Agent(
            "You answer currency questions.",
            model=model or scripted,
            tools=[exchange_rate],
            extensions=[cache],
        )
        async with agent:
            answer = await agent.call("What is the USD/EUR rate?")
        print(f"ask {attempt}: {answer.content}")
    print(f"tool runs: {len(runs)}; cache hits: {cache.stats.hits}, misses: {cache.stats.misses}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="cached tools on Redis")
    parser.add_argument("--redis", help="a Redis URL (default: a throwaway local server)")
    parser.add_argument("--model", help="a real model (default: scripted, offline)")
    args = parser.parse_args()
    if args.redis:
        anyio.run(ask_twice, args.redis, args.model)
    else:
        with throwaway_redis() as url:
            anyio.run(ask_twice, url, args.model)
