"""agent.iter: the run's steps, on the engine of run and stream."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from good_agent import (
    Agent,
    AgentRunError,
    EndStep,
    ModelStep,
    RunStep,
    ToolCallsStep,
    ToolMessage,
    ToolResultsStep,
    UserMessage,
    resolve_model,
    tool,
)
from good_agent.messages import dump_messages
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def script() -> list[Any]:
    return [
        ScriptedModel.tool_calls(("add", {"a": 1, "b": 2}, "c1"), ("add", {"a": 3, "b": 4}, "c2")),
        ScriptedModel.tool_call("add", {"a": 10, "b": 20}, id="c3"),
        "3, 7 and 30.",
    ]


async def test_iter_yields_each_step_in_order_and_the_result_at_the_end() -> None:
    agent = Agent(model=ScriptedModel(script()), tools=[add])
    kinds: list[str] = []
    async with agent.iter("Add things.") as run:
        async for step in run:
            kinds.append(type(step).__name__)
            if isinstance(step, ModelStep):
                assert step.message is agent.messages[-1]
                assert step.request.tools and step.request.tools[0]["function"]["name"] == "add"
            if isinstance(step, ToolResultsStep):
                assert [r.content for r in step.results] in (["3", "7"], ["30"])
                assert agent.messages[-1] is step.results[-1]
            if isinstance(step, EndStep):
                assert step.result.output == "3, 7 and 30."
    assert kinds == [
        "ModelStep",
        "ToolCallsStep",
        "ToolResultsStep",
        "ModelStep",
        "ToolCallsStep",
        "ToolResultsStep",
        "ModelStep",
        "EndStep",
    ]
    assert run.result is not None and run.result.output == "3, 7 and 30."
    assert run.result.usage.requests == 3 and run.result.usage.tool_calls == 3


async def test_run_stream_and_iter_give_the_same_history() -> None:
    async def via_run() -> Agent[Any, str]:
        agent = Agent("Sys.", model=ScriptedModel(script()), tools=[add])
        await agent.run("Add things.")
        return agent

    async def via_stream() -> Agent[Any, str]:
        agent = Agent("Sys.", model=ScriptedModel(script()), tools=[add])
        async with agent.stream("Add things.") as run:
            await run.wait()
        return agent

    async def via_iter() -> Agent[Any, str]:
        agent = Agent("Sys.", model=ScriptedModel(script()), tools=[add])
        async with agent.iter("Add things.") as run:
            async for _ in run:
                pass
        return agent

    histories = [dump_messages((await make()).messages) for make in (via_run, via_stream, via_iter)]
    assert histories[0] == histories[1] == histories[2]


async def test_changed_calls_run_and_replace_the_reply_in_the_history() -> None:
    model = ScriptedModel(script())
    agent = Agent(model=model, tools=[add])
    async with agent.iter("Add things.") as run:
        async for step in run:
            if isinstance(step, ToolCallsStep) and len(step.calls) == 2:
                first = step.calls[0]
                step.calls = [first.model_copy(update={"arguments": {"a": 100, "b": 1}})]
    assert run.result is not None
    results = [m for m in agent.messages if isinstance(m, ToolMessage)]
    assert [r.content for r in results] == ["101", "30"]
    # The reply in the history holds the calls as changed: each has its result.
    replies = [m for m in agent.messages if m.role == "assistant" and m.tool_calls]
    assert [c.arguments for c in replies[0].tool_calls] == [{"a": 100, "b": 1}]
    # and the model saw the changed call on the next request
    sent = model.requests[1].messages
    assert [c.arguments for c in sent[-2].tool_calls] == [{"a": 100, "b": 1}]


async def test_emptied_calls_make_the_reply_the_answer() -> None:
    agent = Agent(model=ScriptedModel(script()), tools=[add])
    async with agent.iter("Add things.") as run:
        async for step in run:
            if isinstance(step, ToolCallsStep):
                step.calls = []
    assert run.result is not None and run.result.output == ""
    assert not any(isinstance(m, ToolMessage) for m in agent.messages)


async def test_a_message_added_at_a_step_goes_into_the_next_request() -> None:
    model = ScriptedModel(script())
    agent = Agent(model=model, tools=[add])
    async with agent.iter("Add things.") as run:
        async for step in run:
            if isinstance(step, ToolResultsStep) and len(step.calls) == 2:
                await run.add_message(UserMessage(content="Also add 10 and 20."))
    sent = model.requests[1].messages
    assert sent[-1] == UserMessage(content="Also add 10 and 20.")
    assert agent.messages.count(UserMessage(content="Also add 10 and 20.")) == 1


async def test_a_message_between_a_call_and_its_result_is_refused() -> None:
    agent = Agent(model=ScriptedModel(script()), tools=[add])
    async with agent.iter("Add things.") as run:
        async for step in run:
            if isinstance(step, ToolCallsStep):
                with pytest.raises(AgentRunError, match="wait for their results"):
                    await run.add_message(UserMessage(content="now"))
                break
    with pytest.raises(AgentRunError, match="waiting at a step"):
        await run.add_message(UserMessage(content="later"))


async def test_stopping_at_the_calls_leaves_every_call_answered() -> None:
    ran: list[int] = []

    @tool
    def record(n: int) -> int:
        """Record n."""
        ran.append(n)
        return n

    model = ScriptedModel([ScriptedModel.tool_call("record", {"n": 1}), "fine"])
    agent = Agent(model=model, tools=[record])
    async with agent.iter("go") as run:
        async for step in run:
            if isinstance(step, ToolCallsStep):
                break
    assert run.result is None
    assert ran == [] and len(model.requests) == 1
    last = agent.messages[-1]
    assert isinstance(last, ToolMessage) and last.is_error
    assert "stopped" in last.content or "cancelled" in last.content
    # The agent goes on with a valid history.
    assert (await agent.run("again")).output == "fine"


async def test_stopping_after_the_first_reply_stops_before_the_next_request() -> None:
    model = ScriptedModel(script())
    agent = Agent(model=model, tools=[add])
    steps: list[RunStep] = []
    async with agent.iter("Add things.") as run:
        async for step in run:
            steps.append(step)
            if isinstance(step, ToolResultsStep):
                break
    assert len(model.requests) == 1 and run.result is None
    assert [m.role for m in agent.messages] == ["user", "assistant", "tool", "tool"]


async def test_an_error_ending_the_run_is_raised_from_the_iteration() -> None:
    agent = Agent(model=ScriptedModel([ScriptedModel.tool_call("add", {"a": 1, "b": 2})] * 3))
    agent.tools.add(add)
    agent.max_iterations = 2
    with pytest.raises(AgentRunError, match="max_iterations"):
        async with agent.iter("loop") as run:
            async for _ in run:
                pass


def chat(message: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    return 200, {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
    }


async def test_iter_over_loopback_http_with_a_prompted_model(
    fake_upstream: Callable[[list[Any]], Any],
) -> None:
    written = '<tool_call>{"name": "add", "arguments": {"a": 2, "b": 3}}</tool_call>'
    upstream = fake_upstream(
        [
            chat({"role": "assistant", "content": written}),
            chat({"role": "assistant", "content": "5"}),
        ]
    )
    model = resolve_model("my-local-model", base_url=f"{upstream.url}/v1", mode="validated")
    agent = Agent(model=model, tools=[add])
    seen: list[RunStep] = []
    async with agent.iter("2+3?") as run:
        async for step in run:
            seen.append(step)
            if isinstance(step, ToolCallsStep):
                call = step.calls[0]
                step.calls = [call.model_copy(update={"arguments": {"a": 2, "b": 4}})]
    assert run.result is not None and run.result.output == "5"
    results = [s for s in seen if isinstance(s, ToolResultsStep)]
    assert [r.content for r in results[0].results] == ["6"]
    assert len(upstream.bodies) == 2
