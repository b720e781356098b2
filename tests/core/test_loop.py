"""The tool loop with ScriptedModel: parallel calls, feedback of errors, limits."""

from __future__ import annotations

import anyio
import pytest

from good_agent import (
    Agent,
    AssistantMessage,
    MaxIterationsError,
    ScriptExhaustedError,
    ToolError,
    ToolMessage,
    ToolRetriesExceededError,
    UserMessage,
    tool,
)
from good_agent.models.base import ModelRequest, ModelResponse
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio


async def test_parallel_calls_overlap_and_results_keep_call_order() -> None:
    first_started, second_started = anyio.Event(), anyio.Event()
    finished: list[str] = []

    @tool
    async def slow(name: str) -> str:
        first_started.set()
        # Only completes if the other call runs at the same time.
        with anyio.fail_after(5):
            await second_started.wait()
        finished.append("slow")
        return f"slow:{name}"

    @tool
    async def quick(name: str) -> str:
        second_started.set()
        with anyio.fail_after(5):
            await first_started.wait()
        finished.append("quick")
        return f"quick:{name}"

    model = ScriptedModel(
        [
            ScriptedModel.tool_calls(("slow", {"name": "a"}, "c1"), ("quick", {"name": "b"}, "c2")),
            "both done",
        ]
    )
    async with Agent("sys", model=model, tools=[slow, quick]) as agent:
        answer = await agent.call("go")

    assert answer.content == "both done"
    assert sorted(finished) == ["quick", "slow"]
    second = model.requests[1].messages
    tool_messages = [m for m in second if isinstance(m, ToolMessage)]
    assert [(m.tool_call_id, m.content) for m in tool_messages] == [
        ("c1", "slow:a"),
        ("c2", "quick:b"),
    ]
    assert isinstance(second[-3], AssistantMessage) and len(second[-3].tool_calls) == 2
    assert [m.role for m in agent.messages] == [
        "system",
        "user",
        "assistant",
        "tool",
        "tool",
        "assistant",
    ]


async def test_model_sees_tool_signatures_and_history() -> None:
    @tool
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    model = ScriptedModel([ScriptedModel.tool_call("add", {"a": 1, "b": 2}), "3"])
    agent = Agent("sys", model=model, tools=[add])
    await agent.call("1+2?")
    assert model.requests[0].tools == [add.signature]
    assert isinstance(model.requests[0].messages[-1], UserMessage)
    assert model.requests[1].messages[-1].content == "3"  # type: ignore[union-attr]


async def test_invalid_arguments_go_back_to_the_model_and_retry_succeeds() -> None:
    calls: list[int] = []

    @tool
    def square(n: int) -> int:
        calls.append(n)
        return n * n

    model = ScriptedModel(
        [
            ScriptedModel.tool_call("square", {"n": "five"}),
            ScriptedModel.tool_call("square", {"n": 5}),
            "25",
        ]
    )
    agent = Agent(model=model, tools=[square])
    assert (await agent.call("square 5")).content == "25"
    error = model.requests[1].messages[-1]
    assert isinstance(error, ToolMessage) and error.is_error
    assert "n: Input should be a valid integer" in error.content
    assert calls == [5]


async def test_unknown_tool_goes_back_to_the_model() -> None:
    @tool
    def real() -> str:
        return "ok"

    model = ScriptedModel([ScriptedModel.tool_call("imaginary", {}), "sorry"])
    agent = Agent(model=model, tools=[real])
    await agent.call("x")
    error = model.requests[1].messages[-1]
    assert isinstance(error, ToolMessage) and error.is_error
    assert "unknown tool 'imaginary'; available tools: real" in error.content


async def test_malformed_argument_json_is_a_validation_error_not_empty_arguments() -> None:
    ran: list[bool] = []

    @tool
    def ping(n: int = 1) -> str:
        ran.append(True)
        return "pong"

    from good_agent.types.messages import ToolCall

    bad = ModelResponse(
        tool_calls=[
            ToolCall(
                id="c1",
                name="ping",
                raw_arguments='{"n": 1',
                arguments_error="the arguments are not valid JSON",
            )
        ]
    )
    model = ScriptedModel([bad, "gave up"])
    await Agent(model=model, tools=[ping]).call("x")
    assert ran == []
    error = model.requests[1].messages[-1]
    assert isinstance(error, ToolMessage) and "not valid JSON" in error.content


async def test_tool_exception_is_reported_to_the_model_and_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    @tool
    def boom() -> str:
        raise RuntimeError("disk full")

    model = ScriptedModel([ScriptedModel.tool_call("boom"), "noted"])
    await Agent(model=model, tools=[boom]).call("x")
    error = model.requests[1].messages[-1]
    assert isinstance(error, ToolMessage) and error.content == "Error: RuntimeError: disk full"
    assert any("tool boom raised RuntimeError" in r.getMessage() for r in caplog.records)


async def test_tool_errors_raise_mode_propagates() -> None:
    @tool
    def boom() -> str:
        raise RuntimeError("disk full")

    model = ScriptedModel([ScriptedModel.tool_call("boom"), "noted"])
    with pytest.raises(RuntimeError, match="disk full"):
        await Agent(model=model, tools=[boom], tool_errors="raise").call("x")


async def test_retry_limit_is_per_tool_and_carries_history() -> None:
    @tool
    def flaky() -> str:
        raise ToolError("try again later")

    model = ScriptedModel([ScriptedModel.tool_call("flaky") for _ in range(5)])
    agent = Agent(model=model, tools=[flaky], max_tool_retries=2)
    with pytest.raises(ToolRetriesExceededError, match="tool 'flaky' failed 3 times") as info:
        await agent.call("x")
    assert info.value.messages[-1].content == "Error: try again later"  # type: ignore[union-attr]


async def test_max_iterations_error_carries_the_history() -> None:
    @tool
    def again() -> str:
        return "more"

    model = ScriptedModel([ScriptedModel.tool_call("again") for _ in range(3)])
    agent = Agent("sys", model=model, tools=[again], max_iterations=3)
    with pytest.raises(MaxIterationsError, match="after 3 requests") as info:
        await agent.call("loop")
    assert len(info.value.messages) == 2 + 3 * 2
    assert len(model.requests) == 3


async def test_script_exhaustion_is_a_clear_error() -> None:
    model = ScriptedModel(["only one"])
    agent = Agent(model=model)
    await agent.call("a")
    with pytest.raises(ScriptExhaustedError, match="ran out of replies after 1"):
        await agent.call("b")


async def test_callable_script_entries_receive_the_request() -> None:
    async def answer(request: ModelRequest) -> str:
        return f"{len(request.messages)} messages"

    model = ScriptedModel([answer])
    assert (await Agent("sys", model=model).call("hi")).content == "2 messages"


async def test_agent_without_model_says_so() -> None:
    from good_agent import ModelConfigError

    with pytest.raises(ModelConfigError, match="no model"):
        await Agent().call("hi")
