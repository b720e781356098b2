"""ToolLogger records, metrics and spans; RateLimiter buckets in memory and Redis."""

from __future__ import annotations

import logging
import time
import uuid
from typing import Any

import pytest

from good_agent import Agent, tool
from good_agent.extensions import (
    MemoryBuckets,
    Rate,
    RateLimiter,
    RedisBuckets,
    ToolLogger,
)
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio


@tool
def echo(text: str, token: str = "none") -> str:
    """Echo the text."""
    if text == "fail":
        raise ValueError("bad input")
    return text


class FakeSpan:
    def __init__(self, name: str, attributes: dict[str, Any], start_time: int) -> None:
        self.name, self.attributes, self.start_time = name, dict(attributes), start_time
        self.status: Any = None
        self.end_time: int | None = None

    def set_status(self, status: Any) -> None:
        self.status = status

    def end(self, end_time: int | None = None) -> None:
        self.end_time = end_time


class FakeTracer:
    def __init__(self) -> None:
        self.spans: list[FakeSpan] = []

    def start_span(self, name: str, attributes: dict[str, Any], start_time: int) -> FakeSpan:
        span = FakeSpan(name, attributes, start_time)
        self.spans.append(span)
        return span


async def test_logger_records_metrics_and_spans(caplog: pytest.LogCaptureFixture) -> None:
    tracer = FakeTracer()
    logger = ToolLogger(tracer=tracer)
    model = ScriptedModel(
        [
            ScriptedModel.tool_calls(
                ("echo", {"text": "hello", "token": "tok-secret"}, "c1"),
                ("echo", {"text": "fail"}, "c2"),
            ),
            "done",
        ]
    )
    caplog.set_level(logging.DEBUG)
    async with Agent(model=model, tools=[echo], extensions=[logger]) as agent:
        before = time.time_ns()
        await agent.call("go")
        after = time.time_ns()
    records = [r for r in caplog.records if r.name == "good_agent.tool_calls"]
    assert len(records) == 2
    by_id = {r.tool_call_id: r for r in records}  # type: ignore[attr-defined]
    ok, bad = by_id["c1"], by_id["c2"]
    assert ok.tool_name == "echo" and ok.success is True  # type: ignore[attr-defined]
    assert ok.arguments == {"text": "hello", "token": "[REDACTED]"}  # type: ignore[attr-defined]
    assert ok.response_bytes == 5 and ok.duration_ms >= 0  # type: ignore[attr-defined]
    assert bad.success is False and bad.levelno == logging.WARNING  # type: ignore[attr-defined]
    assert "bad input" in bad.error  # type: ignore[attr-defined]
    assert all("tok-secret" not in r.getMessage() for r in caplog.records)
    metrics = logger.snapshot()["echo"]
    assert (metrics.calls, metrics.errors, sum(metrics.buckets)) == (2, 1, 2)
    assert metrics.quantile(0.5) >= 0
    spans = {s.attributes["gen_ai.tool.call.id"]: s for s in tracer.spans}
    assert spans["c1"].name == "execute_tool echo"
    assert spans["c1"].attributes["gen_ai.operation.name"] == "execute_tool"
    assert spans["c1"].attributes["gen_ai.tool.name"] == "echo"
    assert spans["c2"].attributes["error.type"] == "ValueError"
    assert spans["c2"].status is not None and spans["c1"].status is None
    assert all(s.end_time is not None and s.end_time >= s.start_time for s in tracer.spans)
    # Each span starts within the run (1 ms allowed between the two clocks).
    assert all(before - 1_000_000 <= s.start_time <= after for s in tracer.spans)


async def test_logger_works_with_the_real_opentelemetry_api() -> None:
    logger = ToolLogger()
    assert logger.tracer is not None
    async with Agent(tools=[echo], extensions=[logger]) as agent:
        await agent.invoke("echo", text="x")
    assert logger.snapshot()["echo"].calls == 1


class Clock:
    def __init__(self) -> None:
        self.now = 5_000.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


@pytest.fixture(params=["memory", "redis"])
def buckets(request: pytest.FixtureRequest) -> Any:
    if request.param == "memory":
        return lambda: MemoryBuckets()
    port = request.getfixturevalue("redis_port")
    return lambda: RedisBuckets(url=f"redis://127.0.0.1:{port}/0", prefix=f"r:{uuid.uuid4().hex}:")


async def _close(backend: Any) -> None:
    if isinstance(backend, RedisBuckets):
        await backend.close()


async def test_rate_limiter_error_mode(buckets: Any) -> None:
    clock = Clock()
    backend = buckets()
    limiter = RateLimiter({"echo": Rate(2, per=1.0)}, mode="error", backend=backend, clock=clock)
    async with Agent(tools=[echo], extensions=[limiter]) as agent:
        results = [await agent.invoke("echo", text=str(i)) for i in range(3)]
        clock.now += 0.5
        later = await agent.invoke("echo", text="later")
    await _close(backend)
    assert [r.success for r in results] == [True, True, False]
    assert "rate limit for tool 'echo' exceeded" in (results[2].error or "")
    assert "retry in 0.5 s" in (results[2].error or "")
    assert results[2].tool_call_id == "invoke_3"
    assert later.success
    assert (limiter.stats.allowed, limiter.stats.rejected) == (3, 1)


async def test_rate_limiter_wait_mode(buckets: Any) -> None:
    clock = Clock()
    backend = buckets()
    limiter = RateLimiter(
        default=Rate(1, per=2.0), backend=backend, clock=clock, sleep=clock.sleep, max_wait=3.0
    )
    async with Agent(tools=[echo], extensions=[limiter]) as agent:
        results = [await agent.invoke("echo", text=str(i)) for i in range(3)]
        over = RateLimiter(default=Rate(1, per=10.0), backend=MemoryBuckets(), max_wait=1.0)
    await _close(backend)
    assert all(r.success for r in results)
    assert clock.slept == pytest.approx([2.0, 2.0])
    assert limiter.stats.waited == 2
    async with Agent(tools=[echo], extensions=[over]) as agent:
        assert (await agent.invoke("echo", text="a")).success
        refused = await agent.invoke("echo", text="b")
    assert not refused.success and "retry in" in (refused.error or "")


async def test_rate_limiter_queues_concurrent_waiters() -> None:
    clock = Clock()
    slept: list[float] = []

    async def record(seconds: float) -> None:
        slept.append(seconds)

    limiter = RateLimiter({"echo": Rate(1, per=1.0)}, clock=clock, sleep=record)
    model = ScriptedModel(
        [ScriptedModel.tool_calls(*[("echo", {"text": str(i)}) for i in range(3)]), "ok"]
    )
    async with Agent(model=model, tools=[echo], extensions=[limiter]) as agent:
        await agent.call("go")
    assert sorted(slept) == pytest.approx([1.0, 2.0])


def test_rate_validation() -> None:
    with pytest.raises(ValueError):
        Rate(0)
    assert str(Rate(5, per=60)) == "5 per 60s" and Rate(5, per=60).capacity == 5
