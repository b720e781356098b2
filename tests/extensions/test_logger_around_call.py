"""ToolLogger as the outermost around_call: every call recorded once, nothing serialized
when nobody listens."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from good_agent import Agent, tool
from good_agent.extensions import Rate, RateLimiter, ToolCache, ToolLogger
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio

runs: list[str] = []


@tool
def lookup(query: str) -> str:
    """Look something up."""
    runs.append(query)
    return f"answer for {query}"


def records(caplog: pytest.LogCaptureFixture) -> list[Any]:
    return [r for r in caplog.records if r.name == "good_agent.tool_calls"]


async def test_hits_refusals_and_rejected_calls_are_each_recorded_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="good_agent.tool_calls")
    logger = ToolLogger(tracing=False)
    cache = ToolCache(tools=["lookup"])
    limiter = RateLimiter({"lookup": Rate(1, per=3600)}, mode="error")
    model = ScriptedModel(
        [
            ScriptedModel.tool_call("lookup", {"query": "a"}, id="miss"),
            ScriptedModel.tool_call("lookup", {"query": "a"}, id="hit"),
            ScriptedModel.tool_call("lookup", {"query": "b"}, id="refused"),
            ScriptedModel.tool_call("lookup", {"query": 3}, id="invalid"),
            ScriptedModel.tool_call("nope", {}, id="unknown"),
            "done",
        ]
    )
    agent = Agent(model=model, tools=[lookup], extensions=[logger, cache, limiter])
    await agent.call("go")
    by_id = {r.tool_call_id: r for r in records(caplog)}
    assert sorted(by_id) == ["hit", "invalid", "miss", "refused", "unknown"]
    assert len(records(caplog)) == 5
    assert by_id["miss"].success and by_id["hit"].success
    assert by_id["refused"].error.startswith("rate limit for tool 'lookup' exceeded")
    assert "invalid arguments" in by_id["invalid"].error
    assert by_id["invalid"].duration_ms == 0.0
    assert "unknown tool 'nope'" in by_id["unknown"].error
    metrics = logger.snapshot()
    assert (metrics["lookup"].calls, metrics["lookup"].errors) == (4, 2)
    assert logger.open_calls == set() and logger.recorded_failures == set()


async def test_nothing_is_serialized_when_the_level_is_off(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    caplog.set_level(logging.WARNING, logger="good_agent.tool_calls")
    logger = ToolLogger(tracing=False)

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("serialized a record nobody listens to")

    monkeypatch.setattr(logger, "redact", forbidden)
    async with Agent(tools=[lookup], extensions=[logger]) as agent:
        assert (await agent.invoke("lookup", query="quiet")).success
    assert records(caplog) == []
    assert logger.snapshot()["lookup"].calls == 1


async def test_a_failure_at_the_warning_level_is_still_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="good_agent.tool_calls")
    logger = ToolLogger(tracing=False)
    async with Agent(tools=[lookup], extensions=[logger]) as agent:
        await agent.invoke("lookup", query=["not", "a", "string"])
    (record,) = records(caplog)
    assert record.levelno == logging.WARNING and record.success is False
