"""Tool limits: time limits (cancel, tell the model, count a retry), sequential tools,
and the agent's cap on concurrently running tool calls. Counters, not clocks."""

from __future__ import annotations

import threading
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from good_agent import (
    Agent,
    AgentEvents,
    ModelConfigError,
    ToolDefinitionError,
    ToolMessage,
    ToolRetriesExceededError,
    ToolTimeoutError,
    tool,
)
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio

NEVER = anyio.Event  # an event nobody sets: the tool waits until it is cancelled


def _results(agent: Agent) -> list[ToolMessage]:
    return [m for m in agent.messages if isinstance(m, ToolMessage)]


async def test_a_tool_past_its_timeout_is_cancelled_and_the_model_is_told() -> None:
    cancelled: list[str] = []
    errors: list[BaseException] = []

    @tool(timeout=0.01)
    async def hang(x: int) -> str:
        try:
            await NEVER().wait()
        except anyio.get_cancelled_exc_class():
            cancelled.append("hang")
            raise
        return "never"

    model = ScriptedModel([ScriptedModel.tool_call("hang", {"x": 1}), "gave up"])
    agent = Agent(model=model, tools=[hang])
    agent.events.on(AgentEvents.TOOL_CALL_ERROR, lambda ctx: errors.append(ctx.payload.error))
    result = await agent.run("go")
    assert result.output == "gave up"
    assert cancelled == ["hang"]
    [message] = _results(agent)
    assert message.is_error and "time limit of 0.01s" in message.content
    assert "cancelled" in model.requests[1].messages[-1].content
    assert [type(e) for e in errors] == [ToolTimeoutError]


async def test_a_timeout_counts_against_the_tools_retry_budget() -> None:
    @tool(timeout=0.01, retries=1)
    async def hang() -> str:
        await NEVER().wait()
        return "never"

    script = [ScriptedModel.tool_call("hang", {}) for _ in range(3)] + ["done"]
    agent = Agent(model=ScriptedModel(script), tools=[hang])
    with pytest.raises(ToolRetriesExceededError, match=r"retry limit is 1.*time limit"):
        await agent.run("go")
    assert len(_results(agent)) == 2


async def test_the_agents_tool_timeout_applies_and_a_tools_own_overrides_it() -> None:
    release = anyio.Event()

    @tool
    async def slow() -> str:
        await release.wait()
        return "slow done"

    @tool(timeout=60)
    async def patient() -> str:
        # runs past the agent's limit: finishes once the other call has timed out
        await slow_timed_out.wait()
        return "patient done"

    timed_out: list[str] = []
    slow_timed_out = anyio.Event()

    def note(ctx: Any) -> None:
        timed_out.append(ctx.payload.call.name)
        slow_timed_out.set()

    model = ScriptedModel([ScriptedModel.tool_calls(("slow", {}), ("patient", {})), "ok"])
    agent = Agent(model=model, tools=[slow, patient], tool_timeout=0.01)

    agent.events.on(AgentEvents.TOOL_CALL_ERROR, note)

    await agent.run("go")
    slow_result, patient_result = _results(agent)
    assert slow_result.is_error and "time limit" in slow_result.content
    assert patient_result.content == "patient done" and not patient_result.is_error
    assert timed_out == ["slow"]


async def test_a_sync_tool_times_out_while_its_thread_runs_on() -> None:
    go_on = threading.Event()
    started = threading.Event()
    finished = threading.Event()

    # The limit leaves a loaded machine time to start the worker thread: a limit that
    # fires before the thread starts cancels the call before the tool ever runs.
    @tool(timeout=1.0)
    def blocking() -> str:
        started.set()
        go_on.wait(30)
        finished.set()
        return "late"

    model = ScriptedModel([ScriptedModel.tool_call("blocking", {}), "moved on"])
    agent = Agent(model=model, tools=[blocking])
    result = await agent.run("go")
    # the run ended while the thread was still blocked: it was left running
    assert started.is_set() and not finished.is_set()
    assert result.output == "moved on"
    assert "time limit" in _results(agent)[0].content
    go_on.set()
    assert finished.wait(30)


class Tracker:
    """Counts the tool calls running at once and the most seen together."""

    def __init__(self) -> None:
        self.running = 0
        self.most = 0
        self.alone: dict[str, bool] = {}

    async def busy(self, name: str) -> str:
        self.running += 1
        self.most = max(self.most, self.running)
        alone = self.running == 1
        for _ in range(5):  # give every other started call a chance to start too
            await anyio.lowlevel.checkpoint()
            alone = alone and self.running == 1
        self.alone[name] = alone
        self.running -= 1
        return name


def _tracked(tracker: Tracker) -> list[Any]:
    @tool
    async def work(n: int) -> str:
        return await tracker.busy(f"work{n}")

    @tool(sequential=True)
    async def migrate(n: int) -> str:
        return await tracker.busy(f"migrate{n}")

    return [work, migrate]


def _calls(*names: str) -> Any:
    return ScriptedModel.tool_calls(
        *((name.rstrip("0123456789"), {"n": int(name[-1])}) for name in names)
    )


async def test_parallel_calls_all_run_at_once_without_a_cap() -> None:
    tracker = Tracker()
    model = ScriptedModel([_calls("work1", "work2", "work3", "work4", "work5"), "ok"])
    await Agent(model=model, tools=_tracked(tracker)).run("go")
    assert tracker.most == 5


@pytest.mark.parametrize("cap", [1, 2, 3])
async def test_max_concurrency_caps_the_calls_running_together(cap: int) -> None:
    tracker = Tracker()
    model = ScriptedModel([_calls("work1", "work2", "work3", "work4", "work5"), "ok"])
    agent = Agent(model=model, tools=_tracked(tracker), max_concurrency=cap)
    await agent.run("go")
    assert tracker.most == cap
    assert [m.content for m in _results(agent)] == [f"work{i}" for i in range(1, 6)]


async def test_a_sequential_tool_runs_alone_in_call_order() -> None:
    tracker = Tracker()
    order: list[str] = []
    model = ScriptedModel(
        [_calls("work1", "work2", "migrate1", "work3", "migrate2", "work4", "work5"), "ok"]
    )
    agent = Agent(model=model, tools=_tracked(tracker))
    agent.events.on(
        AgentEvents.TOOL_CALL_AFTER, lambda ctx: order.append(ctx.payload.response.response)
    )
    await agent.run("go")
    assert tracker.alone["migrate1"] and tracker.alone["migrate2"]
    assert tracker.most == 2  # the parallel groups around them still run together
    assert order.index("migrate1") > max(order.index("work1"), order.index("work2"))
    assert order.index("work3") > order.index("migrate1")
    assert order.index("migrate2") > order.index("work3")
    assert min(order.index("work4"), order.index("work5")) > order.index("migrate2")
    assert [m.content for m in _results(agent)] == [
        "work1",
        "work2",
        "migrate1",
        "work3",
        "migrate2",
        "work4",
        "work5",
    ]


@pytest.mark.parametrize(
    ("arguments", "match"),
    [
        ({"tool_timeout": 0}, "tool_timeout"),
        ({"tool_timeout": "5"}, "tool_timeout"),
        ({"max_concurrency": 0}, "max_concurrency"),
        ({"max_concurrency": 1.5}, "max_concurrency"),
    ],
)
def test_bad_limits_are_refused_with_the_fix(arguments: dict[str, Any], match: str) -> None:
    with pytest.raises(ModelConfigError, match=match):
        Agent(model=ScriptedModel([]), **arguments)


def test_a_tool_timeout_must_be_positive() -> None:
    with pytest.raises(ToolDefinitionError, match="timeout"):

        @tool(timeout=-1)
        def bad() -> None:
            """Never built."""
