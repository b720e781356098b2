"""Agent.run: results, usage, limits, forced tool choice, run_sync, history and call()."""

from __future__ import annotations

import logging
import subprocess
import sys
import textwrap

import anyio
import pytest

from good_agent import (
    Agent,
    AgentEvents,
    AgentRunError,
    AssistantMessage,
    RunEndPayload,
    RunStartPayload,
    RunUsage,
    SystemMessage,
    ToolCall,
    ToolMessage,
    Usage,
    UsageLimitExceeded,
    UsageLimits,
    UserMessage,
    tool,
)
from good_agent.messages import HistoryFormatError, dump_messages, load_messages
from good_agent.models.base import ModelResponse
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def reply(
    content: str | None = None, *calls: ToolCall, inp: int = 0, out: int = 0
) -> ModelResponse:
    return ModelResponse(
        content=content,
        tool_calls=list(calls),
        finish_reason="tool_calls" if calls else "stop",
        usage=Usage(input_tokens=inp, output_tokens=out),
    )


async def test_run_result_holds_output_message_new_messages_and_usage_totals() -> None:
    model = ScriptedModel(
        [
            reply(None, ToolCall(id="c1", name="add", arguments={"a": 1, "b": 2}), inp=10, out=3),
            reply("It is 3.", inp=20, out=4),
        ]
    )
    agent = Agent("sys", model=model, tools=[add])
    result = await agent.run("1+2?")

    assert result.output == "It is 3."
    assert result.message is agent.messages[-1]
    assert result.new_messages == agent.messages[1:]
    assert isinstance(result.new_messages[0], UserMessage)
    assert result.usage == RunUsage(requests=2, input_tokens=30, output_tokens=7, tool_calls=1)
    assert result.usage.total_tokens == 37
    assert result.deferred == [] and not result.is_deferred


async def test_call_returns_the_message_of_the_same_run() -> None:
    script = [ScriptedModel.tool_call("add", {"a": 2, "b": 2}, id="c"), "four"]
    by_call = await Agent(model=ScriptedModel(script), tools=[add]).call("2+2")
    by_run = await Agent(model=ScriptedModel(script), tools=[add]).run("2+2")
    assert by_call == by_run.message


async def test_run_events_frame_the_run_for_observers() -> None:
    seen: list[object] = []
    agent = Agent(model=ScriptedModel(["hi"]))
    agent.events.on(AgentEvents.RUN_START, lambda ctx: seen.append(ctx.payload))
    agent.events.on(AgentEvents.RUN_END, lambda ctx: seen.append(ctx.payload))
    result = await agent.run("hello")
    start, end = seen
    assert isinstance(start, RunStartPayload) and start.prompt == "hello"
    assert not start.streamed and start.output_type is None
    assert isinstance(end, RunEndPayload) and end.result is result and end.error is None
    assert end.run_id == start.run_id


async def test_run_end_reports_the_error_of_a_failed_run() -> None:
    ends: list[RunEndPayload] = []
    agent = Agent(model=ScriptedModel([]))
    agent.events.on(AgentEvents.RUN_END, lambda ctx: ends.append(ctx.payload))
    with pytest.raises(Exception, match="ran out"):
        await agent.run("x")
    assert ends[0].result is None and "ran out" in str(ends[0].error)


async def test_forced_tool_choice_applies_to_the_first_request_only() -> None:
    model = ScriptedModel([ScriptedModel.tool_call("add", {"a": 1, "b": 1}), "two"])
    agent = Agent(model=model, tools=[add], tool_choice="required")
    assert (await agent.call("1+1")).content == "two"
    assert [r.tool_choice for r in model.requests] == ["required", "auto"]

    named = {"type": "function", "function": {"name": "add"}}
    model = ScriptedModel([ScriptedModel.tool_call("add", {"a": 1, "b": 1}), "two"])
    agent = Agent(model=model, tools=[add])
    await agent.run("1+1", tool_choice=named)  # type: ignore[arg-type]
    assert [r.tool_choice for r in model.requests] == [named, "auto"]


async def test_tool_choice_none_stays_none() -> None:
    model = ScriptedModel(["a", "b"])
    agent = Agent(model=model, tools=[add], tool_choice="none")
    await agent.call("x")
    await agent.call("y")
    assert [r.tool_choice for r in model.requests] == ["none", "none"]


async def test_request_limit_stops_before_the_request_that_would_exceed_it() -> None:
    loop = [ScriptedModel.tool_call("add", {"a": 1, "b": 1}, id=f"c{i}") for i in range(5)]
    model = ScriptedModel(loop)
    agent = Agent(model=model, tools=[add], usage_limits=UsageLimits(request_limit=2))
    with pytest.raises(UsageLimitExceeded, match="request_limit=2") as caught:
        await agent.run("go")
    assert len(model.requests) == 2
    assert caught.value.usage.requests == 2
    assert caught.value.messages == agent.messages


async def test_tool_calls_limit_stops_before_the_calls_and_answers_them() -> None:
    ran: list[int] = []

    @tool
    def count(n: int) -> int:
        ran.append(n)
        return n

    model = ScriptedModel(
        [
            ScriptedModel.tool_call("count", {"n": 1}, id="a"),
            ScriptedModel.tool_calls(("count", {"n": 2}, "b"), ("count", {"n": 3}, "c")),
        ]
    )
    agent = Agent(model=model, tools=[count])
    with pytest.raises(UsageLimitExceeded, match="tool_calls_limit=2") as caught:
        await agent.run("go", usage_limits=UsageLimits(tool_calls_limit=2))
    assert ran == [1]
    assert caught.value.usage.tool_calls == 1
    answers = {m.tool_call_id: m for m in agent.messages if isinstance(m, ToolMessage)}
    assert set(answers) == {"a", "b", "c"}
    assert answers["b"].is_error and answers["c"].is_error
    assert caught.value.messages == agent.messages


async def test_token_limits_stop_right_after_the_response_that_exceeds_them() -> None:
    model = ScriptedModel([reply("long answer", inp=50, out=80)])
    agent = Agent(model=model)
    with pytest.raises(UsageLimitExceeded, match="output_tokens_limit=60") as caught:
        await agent.run("x", usage_limits=UsageLimits(output_tokens_limit=60))
    assert caught.value.usage.output_tokens == 80
    assert isinstance(caught.value.messages[-1], AssistantMessage)

    model = ScriptedModel([reply("a", inp=50, out=80)])
    with pytest.raises(UsageLimitExceeded, match="total_tokens_limit=100"):
        await Agent(model=model).run("x", usage_limits=UsageLimits(total_tokens_limit=100))
    model = ScriptedModel([reply("a", inp=50, out=80)])
    with pytest.raises(UsageLimitExceeded, match="input_tokens_limit=10"):
        await Agent(model=model).run("x", usage_limits=UsageLimits(input_tokens_limit=10))


def test_run_sync_runs_without_a_loop_and_keeps_one_loop_between_calls() -> None:
    model = ScriptedModel(["one", "two"])
    agent = Agent(model=model)
    assert agent.run_sync("a").output == "one"
    assert agent.run_sync("b").output == "two"
    assert [m.content for m in agent.messages if isinstance(m, UserMessage)] == ["a", "b"]


async def test_run_sync_refuses_inside_a_running_event_loop() -> None:
    agent = Agent(model=ScriptedModel(["x"]))
    with pytest.raises(RuntimeError, match="inside a running event loop"):
        agent.run_sync("a")
    assert agent.messages == []


def full_history() -> list[object]:
    return [
        SystemMessage(content="be brief"),
        UserMessage(content="weather?"),
        AssistantMessage(
            content="Checking.",
            reasoning="The user wants weather.",
            tool_calls=[
                ToolCall(id="c1", name="weather", arguments={"city": "Paris", "n": [1, 2.5]}),
                ToolCall(
                    id="c2",
                    name="weather",
                    raw_arguments='{"city": ',
                    arguments_error="invalid arguments for tool 'weather': bad JSON",
                ),
            ],
            finish_reason="tool_calls",
            usage=Usage(input_tokens=12, output_tokens=5),
        ),
        ToolMessage(tool_call_id="c1", tool_name="weather", content="sunny"),
        ToolMessage(tool_call_id="c2", tool_name="weather", content="Error: x", is_error=True),
        AssistantMessage(content="Sunny in Paris. ✓", finish_reason="stop"),
    ]


def test_dump_and_load_round_trip_every_message_field() -> None:
    history = full_history()
    data = dump_messages(history)  # type: ignore[arg-type]
    assert isinstance(data, bytes)
    restored = load_messages(data)
    assert restored == history
    assert load_messages(data.decode()) == history


def test_load_messages_rejects_other_data_clearly() -> None:
    with pytest.raises(HistoryFormatError, match="role"):
        load_messages(b'[{"role": "wizard", "content": "x"}]')
    with pytest.raises(HistoryFormatError):
        load_messages(b"not json")


async def test_agent_continues_an_earlier_conversation() -> None:
    model = ScriptedModel(["Still sunny."])
    agent = Agent("ignored: the history has its own", model=model, messages=full_history())  # type: ignore[arg-type]
    result = await agent.run("And tomorrow?")
    sent = model.requests[0].messages
    assert sent[:-1] == full_history()
    assert sent[-1] == UserMessage(content="And tomorrow?")
    assert result.new_messages == agent.messages[len(full_history()) :]
    assert sum(isinstance(m, SystemMessage) for m in agent.messages) == 1


async def test_system_prompt_goes_first_when_the_history_has_none() -> None:
    agent = Agent("sys", model=ScriptedModel([]), messages=[UserMessage(content="hi")])
    assert agent.messages == [SystemMessage(content="sys"), UserMessage(content="hi")]


def test_another_process_continues_a_dumped_run(tmp_path: pytest.TempPathFactory) -> None:
    model = ScriptedModel([ScriptedModel.tool_call("add", {"a": 1, "b": 2}, id="c1"), "3"])
    agent = Agent("sys", model=model, tools=[add])
    agent.run_sync("1+2?")
    path = tmp_path / "history.json"  # type: ignore[operator]
    path.write_bytes(dump_messages(agent.messages))
    script = textwrap.dedent(
        f"""
        from pathlib import Path
        from good_agent import Agent
        from good_agent.messages import load_messages
        from good_agent.testing import ScriptedModel
        model = ScriptedModel(["You asked 1+2."])
        agent = Agent(model=model, messages=load_messages(Path({str(path)!r}).read_bytes()))
        print(agent.run_sync("What did I ask?").output)
        print(len(model.requests[0].messages))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.split("\n")[:2] == ["You asked 1+2.", str(len(agent.messages) + 1)]


async def test_a_second_run_while_one_is_in_progress_is_refused() -> None:

    started, release = anyio.Event(), anyio.Event()

    @tool
    async def hold() -> str:
        started.set()
        await release.wait()
        return "held"

    model = ScriptedModel([ScriptedModel.tool_call("hold", {}), "done", "again"])
    agent = Agent(model=model, tools=[hold])
    async with anyio.create_task_group() as group:
        group.start_soon(agent.run, "first")
        await started.wait()
        with pytest.raises(AgentRunError, match="another run of this agent"):
            await agent.run("second")
        release.set()
    assert (await agent.run("third")).output == "again"


async def test_the_agent_has_a_logger_named_for_it(caplog: pytest.LogCaptureFixture) -> None:
    named = Agent(model=ScriptedModel(["hi"]), name="support")
    assert isinstance(named.logger, logging.Logger)
    assert named.logger.name == "good_agent.agent.support"
    assert Agent(model=ScriptedModel([])).logger.name == "good_agent.agent"
    with caplog.at_level(logging.DEBUG, logger="good_agent.agent.support"):
        await named.run("a secret prompt")
    lines = [r.getMessage() for r in caplog.records if r.name == "good_agent.agent.support"]
    assert len(lines) == 2 and lines[1].endswith("ended: 1 requests, 0 tool calls")
    assert not any("secret" in line for line in lines)
