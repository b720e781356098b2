"""A run uses no machinery for features it does not use: no limit checks without
usage limits, no batching for a turn with one tool call (the per-call cost of
``benchmarks/adapter_chain.py`` with no extension)."""

from __future__ import annotations

from typing import Any

import pytest

import good_agent.core._execution as execution
from good_agent import Agent, UsageLimits, tool
from good_agent.testing import ScriptedModel
from good_agent.types.usage import RunUsage, UsageLimitExceeded

pytestmark = pytest.mark.anyio


@tool
async def double(n: int) -> int:
    """Double a number."""
    return 2 * n


def _script() -> list[Any]:
    return [
        ScriptedModel.tool_call("double", {"n": 1}),
        ScriptedModel.tool_call("double", {"n": 2}),
        "done",
    ]


async def test_a_run_without_usage_limits_checks_none(monkeypatch: pytest.MonkeyPatch) -> None:
    checked: list[Any] = []
    original = RunUsage.exceeded

    def spy(self: RunUsage, check: Any) -> str | None:
        checked.append(check)
        return original(self, check)

    monkeypatch.setattr(RunUsage, "exceeded", spy)
    async with Agent(model=ScriptedModel(_script()), tools=[double]) as agent:
        assert (await agent.call("go")).content == "done"
    assert checked == []
    limits = UsageLimits(tool_calls_limit=1)
    async with Agent(model=ScriptedModel(_script()), tools=[double], usage_limits=limits) as agent:
        with pytest.raises(UsageLimitExceeded, match="usage limit"):
            await agent.call("go")
    assert checked


async def test_a_turn_with_one_tool_call_is_not_cut_into_batches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def batches(*args: Any) -> Any:
        raise AssertionError("one call was cut into batches")

    monkeypatch.setattr(execution, "_batches", batches)
    async with Agent(model=ScriptedModel(_script()), tools=[double]) as agent:
        assert (await agent.call("go")).content == "done"
    results = [m.content for m in agent.messages if m.role == "tool"]
    assert results == ["2", "4"]


def test_a_text_result_is_not_searched_for_media(monkeypatch: pytest.MonkeyPatch) -> None:
    import good_agent.types.messages as messages

    def searched(value: Any) -> Any:
        raise AssertionError("a text result was searched for media")

    monkeypatch.setattr(messages, "media_of", searched)
    response = messages.ToolResponse(tool_name="double", tool_call_id="c1", response="4")
    message = messages.ToolMessage.from_response(response)
    assert (message.content, message.media, message.is_error) == ("4", [], False)
