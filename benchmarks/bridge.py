"""Throughput and latency through the bridge, as a ratio to calling the upstream directly.

A fake OpenAI-compatible upstream streams a reply (text, then one tool call) on
loopback; the same streamed requests go to it directly and through the bridge, in
native mode and in validated mode (the upstream writes a Hermes ``<tool_call>`` as
text, which the bridge parses while streaming). Everything runs in one process:
the upstream and the bridge each on their own uvicorn thread. Run:
``python benchmarks/bridge.py [--requests 200] [--concurrency 50]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx2
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

from good_agent.server import create_app, parse_config
from good_agent.server.background import BackgroundServer

TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}
ANSWER = "Let me look that up for you, one moment please. " * 2
HERMES = ANSWER + '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'


def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    payload = {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(payload)}\n\n".encode()


async def native_reply() -> AsyncIterator[bytes]:
    yield chunk({"role": "assistant", "content": ""})
    for i in range(0, len(ANSWER), 6):
        yield chunk({"content": ANSWER[i : i + 6]})
    head = {
        "index": 0,
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": ""},
    }
    yield chunk({"tool_calls": [head]})
    for part in ('{"city"', ': "Pa', 'ris"}'):
        yield chunk({"tool_calls": [{"index": 0, "function": {"arguments": part}}]})
    yield chunk({}, "tool_calls")
    yield b"data: [DONE]\n\n"


async def text_reply() -> AsyncIterator[bytes]:
    yield chunk({"role": "assistant", "content": ""})
    for i in range(0, len(HERMES), 6):
        yield chunk({"content": HERMES[i : i + 6]})
    yield chunk({}, "stop")
    yield b"data: [DONE]\n\n"


async def upstream(request: Request) -> StreamingResponse:
    body = await request.json()
    reply = native_reply() if body.get("tools") else text_reply()
    return StreamingResponse(reply, media_type="text/event-stream")


async def one(http: httpx2.AsyncClient, url: str, model: str) -> float:
    body = {
        "model": model,
        "stream": True,
        "tools": [TOOL],
        "messages": [{"role": "user", "content": "Weather in Paris?"}],
    }
    started = time.perf_counter()
    calls = 0
    async with http.stream("POST", url, json=body) as response:
        response.raise_for_status()
        async for line in response.aiter_lines():
            if '"type": "function"' in line:
                calls += 1
    if calls != 1:
        raise RuntimeError(f"expected one tool call from {url} ({model}), got {calls}")
    return time.perf_counter() - started


async def run(url: str, model: str, requests: int, concurrency: int) -> dict[str, float]:
    latencies: list[float] = []
    limits = httpx2.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx2.AsyncClient(limits=limits, timeout=60) as http:
        await one(http, url, model)
        limiter = anyio.Semaphore(concurrency)

        async def task() -> None:
            async with limiter:
                latencies.append(await one(http, url, model))

        started = time.perf_counter()
        async with anyio.create_task_group() as group:
            for _ in range(requests):
                group.start_soon(task)
        elapsed = time.perf_counter() - started
    ordered = sorted(latencies)
    return {
        "rps": requests / elapsed,
        "p50": statistics.median(ordered) * 1000,
        "p99": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000,
    }


async def main(requests: int, concurrency: int) -> None:
    fake = BackgroundServer(
        Starlette(routes=[Route("/v1/chat/completions", upstream, methods=["POST"])])
    ).start()
    config = parse_config(
        {
            "models": [
                {
                    "name": "native",
                    "provider": "openai",
                    "model": "m",
                    "mode": "native",
                    "base_url": f"{fake.url}/v1",
                },
                {
                    "name": "validated",
                    "provider": "openai",
                    "model": "m",
                    "mode": "validated",
                    "base_url": f"{fake.url}/v1",
                },
            ]
        }
    )
    bridge = BackgroundServer(create_app(config)).start()
    try:
        direct = await run(f"{fake.url}/v1/chat/completions", "m", requests, concurrency)
        print(f"{requests} streamed requests, concurrency {concurrency}")
        print(
            f"{'path':<28}{'req/s':>9}{'p50 ms':>10}{'p99 ms':>10}"
            f"{'x req/s':>10}{'x p50':>8}{'x p99':>8}"
        )
        rows = [("direct to upstream", direct)]
        for model in ("native", "validated"):
            rows.append(
                (
                    f"bridge ({model})",
                    await run(f"{bridge.url}/v1/chat/completions", model, requests, concurrency),
                )
            )
        for name, row in rows:
            print(
                f"{name:<28}{row['rps']:>9.0f}{row['p50']:>10.1f}{row['p99']:>10.1f}"
                f"{row['rps'] / direct['rps']:>10.2f}{row['p50'] / direct['p50']:>8.2f}"
                f"{row['p99'] / direct['p99']:>8.2f}"
            )
    finally:
        bridge.stop()
        fake.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=50)
    options = parser.parse_args()
    anyio.run(main, options.requests, options.concurrency)
