"""One OS process of the scale-out test: an agent whose cache and rate limit live in Redis.

``python scale_out_worker.py REDIS_URL PREFIX cache`` calls ``lookup(city="Paris")``
once; ``... limit NAME`` calls ``lookup(city=NAME-i)`` five times (distinct, so no
cache hits). It prints one JSON line: tool executions, results, cache and limiter stats.
"""

from __future__ import annotations

import json
import os
import sys

import anyio

from good_agent import Agent, RateLimiter, RedisStore, ToolCache, tool
from good_agent.extensions import Rate, RedisBuckets

EXECUTIONS: list[str] = []


@tool
def lookup(city: str) -> str:
    """Look a city up (slow and metered upstream)."""
    EXECUTIONS.append(city)
    return f"{city}: 18C, computed by process {os.getpid()}"


async def main(url: str, prefix: str, role: str, name: str) -> None:
    cache = ToolCache(RedisStore(url=url, prefix=f"{prefix}:cache:"), tools=["lookup"])
    limiter = RateLimiter(
        {"lookup": Rate(5, per=3600)},
        mode="error",
        backend=RedisBuckets(url=url, prefix=f"{prefix}:rate:"),
    )
    cities = ["Paris"] if role == "cache" else [f"{name}-{i}" for i in range(5)]
    results = []
    async with Agent(tools=[lookup], extensions=[cache, limiter]) as agent:
        for city in cities:
            response = await agent.invoke("lookup", city=city)
            results.append({"success": response.success, "text": response.content_text()})
    print(
        json.dumps(
            {
                "executions": EXECUTIONS,
                "results": results,
                "cache_hits": cache.stats.hits,
                "allowed": limiter.stats.allowed,
                "rejected": limiter.stats.rejected,
            }
        )
    )


if __name__ == "__main__":
    anyio.run(main, *sys.argv[1:4], sys.argv[4] if len(sys.argv) > 4 else "")
