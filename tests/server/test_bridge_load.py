"""A bounded load test: many concurrent streams, zero errors, nothing left running."""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
import openai
import pytest
from bridge_fakes import Fake, Reply
from bridge_harness import CLIENT_KEY, USER, WEATHER, start_bridge

pytestmark = pytest.mark.anyio
CONCURRENCY = 200


async def _task_count() -> int:
    return len(asyncio.all_tasks())


async def test_concurrent_streams(fakes: dict[str, tuple[Fake, str]]) -> None:
    fake = fakes["openai"][0]
    fake.reply = Reply(
        text="Load test answer, in pieces.", calls=[("get_weather", {"city": "Paris"})]
    )
    server = start_bridge(fakes)
    try:
        baseline = server.run_coroutine(_task_count())
        errors: list[BaseException] = []
        results: list[str] = []

        async def one(client: Any) -> None:
            try:
                stream = await client.chat.completions.create(
                    model="gpt", messages=USER, tools=[WEATHER], stream=True
                )
                names = [
                    c.function.name
                    async for chunk in stream
                    for choice in chunk.choices
                    for c in choice.delta.tool_calls or []
                    if c.function.name
                ]
                results.append(names[0])
            except Exception as exc:
                errors.append(exc)

        # Bounded: a hang fails the test instead of stalling the suite.
        with anyio.fail_after(120):
            async with (
                openai.AsyncOpenAI(
                    base_url=f"{server.url}/v1", api_key=CLIENT_KEY, max_retries=0, timeout=30
                ) as client,
                anyio.create_task_group() as group,
            ):
                for _ in range(CONCURRENCY):
                    group.start_soon(one, client)
        assert not errors, errors[:3]
        assert results == ["get_weather"] * CONCURRENCY
        assert fake.completed_streams == CONCURRENCY and fake.active_streams == 0
        assert not fake.cancelled.is_set()
        for _ in range(100):
            if server.run_coroutine(_task_count()) <= baseline:
                break
            await anyio.sleep(0.05)
        assert server.run_coroutine(_task_count()) <= baseline
        bridge = server.server.config.app.state.bridge
        pool = bridge.client._transport._pool
        assert all(not c.is_closed() and c.is_idle() for c in pool.connections)
    finally:
        server.stop()
