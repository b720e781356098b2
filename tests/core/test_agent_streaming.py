"""Agent.stream with ScriptedModel: event order, same result as call(), early exits, errors."""

from __future__ import annotations

from typing import Any

import anyio
import anyio.lowlevel
import pytest
from pydantic import BaseModel

from good_agent import (
    Agent,
    AgentEvents,
    AssistantMessage,
    ReasoningDeltaEvent,
    RunEndEvent,
    ScriptExhaustedError,
    TextDeltaEvent,
    ToolAdapter,
    ToolCallArgsEvent,
    ToolCallStartEvent,
    ToolExecuteEvent,
    ToolMessage,
    ToolResultEvent,
    TurnEndEvent,
    Usage,
    UsageLimitExceeded,
    UsageLimits,
    tool,
)
from good_agent.core.approvals import unanswered_calls
from good_agent.core.output import OUTPUT_TOOL_NAME
from good_agent.messages import dump_messages, load_messages
from good_agent.providers.streaming.deltas import ReasoningDelta
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio


@tool
def weather(city: str) -> str:
    """Weather in a city."""
    return f"sunny in {city}"


def script() -> list[Any]:
    return [
        ScriptedModel.streamed(
            ReasoningDelta("need weather"),
            "Let me check. ",
            ScriptedModel.call("weather", {"city": "Paris"}, id="w1"),
            usage=Usage(input_tokens=10, output_tokens=4),
        ),
        ScriptedModel.streamed(
            "It is ", "sunny ", "in Paris.", usage=Usage(input_tokens=20, output_tokens=5)
        ),
    ]


def kinds(events: list[Any]) -> list[str]:
    names = [type(e).__name__.removesuffix("Event") for e in events]
    collapsed: list[str] = []
    for name in names:
        if not collapsed or collapsed[-1] != name:
            collapsed.append(name)
    return collapsed


async def test_events_arrive_in_order_and_the_result_matches_call() -> None:
    agent = Agent("sys", model=ScriptedModel(script()), tools=[weather])
    events: list[Any] = []
    async with agent.stream("Weather in Paris?") as run:
        async for event in run:
            events.append(event)

    assert kinds(events) == [
        "ReasoningDelta",
        "TextDelta",
        "ToolCallStart",
        "ToolCallArgs",
        "TurnEnd",
        "ToolExecute",
        "ToolResult",
        "TextDelta",
        "TurnEnd",
        "RunEnd",
    ]
    start = next(e for e in events if isinstance(e, ToolCallStartEvent))
    assert (start.index, start.id, start.name) == (0, "w1", "weather")
    args = "".join(e.arguments for e in events if isinstance(e, ToolCallArgsEvent))
    assert args == '{"city": "Paris"}'
    assert all(e.id == "w1" for e in events if isinstance(e, ToolCallArgsEvent))
    executing = next(e for e in events if isinstance(e, ToolExecuteEvent))
    assert executing.parameters == {"city": "Paris"}
    result = next(e for e in events if isinstance(e, ToolResultEvent))
    assert result.message.content == "sunny in Paris"
    turn = [e for e in events if isinstance(e, TurnEndEvent)]
    assert turn[0].usage == Usage(input_tokens=10, output_tokens=4)
    assert [e.text for e in events if isinstance(e, ReasoningDeltaEvent)] == ["need weather"]
    text = "".join(e.text for e in events if isinstance(e, TextDeltaEvent))
    assert text == "Let me check. It is sunny in Paris."

    assert run.result is agent.messages[-1]
    assert run.result.content == "It is sunny in Paris."
    assert run.usage.input_tokens == 30 and run.usage.tool_calls == 1
    assert isinstance(events[-1], RunEndEvent) and events[-1].result is run.run_result

    called = Agent("sys", model=ScriptedModel(script()), tools=[weather])
    final = await called.call("Weather in Paris?")
    assert final == run.result
    assert called.messages == agent.messages


async def test_text_deltas_gives_only_the_answer_text() -> None:
    agent = Agent(model=ScriptedModel(script()), tools=[weather])
    async with agent.stream("go") as run:
        pieces = [text async for text in run.text_deltas()]
    assert pieces == ["Let me check. ", "It is ", "sunny ", "in Paris."]
    assert run.output == "It is sunny in Paris."


async def test_whole_replies_stream_too() -> None:
    model = ScriptedModel([ScriptedModel.tool_call("weather", {"city": "Oslo"}), "Cold."])
    agent = Agent(model=model, tools=[weather])
    async with agent.stream("go") as run:
        result = await run.wait()
    assert result.output == "Cold."


async def test_adapters_and_events_apply_as_in_call() -> None:
    class Upper(ToolAdapter):
        def adapt_parameters(self, tool_name: str, parameters: dict[str, Any], agent: Any) -> Any:
            return {**parameters, "city": parameters["city"].upper()}

    before: list[dict[str, Any]] = []
    agent = Agent(model=ScriptedModel(script()), tools=[weather])
    agent.adapter_chain.add(Upper())
    agent.events.on(AgentEvents.TOOL_CALL_BEFORE, lambda ctx: before.append(ctx.payload.parameters))
    async with agent.stream("go") as run:
        events = [event async for event in run]
    executing = next(e for e in events if isinstance(e, ToolExecuteEvent))
    assert executing.parameters == {"city": "PARIS"}
    assert before == [{"city": "PARIS"}]
    result = next(e for e in events if isinstance(e, ToolResultEvent))
    assert result.message.content == "sunny in PARIS"


async def test_breaking_out_early_closes_the_model_stream_and_keeps_history_valid() -> None:
    model = ScriptedModel([ScriptedModel.streamed("one ", "two ", "three ", "four")])
    agent = Agent(model=model)
    async with agent.stream("count") as run:
        async for event in run:
            if isinstance(event, TextDeltaEvent):
                break
    assert model.streams_closed_early == 1
    # what the user saw stays as the assistant turn, marked incomplete
    assert [type(m).__name__ for m in agent.messages] == ["UserMessage", "AssistantMessage"]
    partial = agent.messages[-1]
    assert isinstance(partial, AssistantMessage) and partial.incomplete
    assert partial.content == "one " and partial.tool_calls == []
    assert load_messages(dump_messages(agent.messages)) == agent.messages
    with pytest.raises(RuntimeError, match="has not finished"):
        _ = run.result


async def test_the_run_after_leaving_early_never_sends_two_user_turns_in_a_row() -> None:
    model = ScriptedModel(
        [
            ScriptedModel.streamed("The answer ", "is ", "long"),
            ScriptedModel.streamed(ScriptedModel.call("slow", {}, id="s1")),
            ScriptedModel.streamed("short"),
        ]
    )
    started = anyio.Event()

    @tool
    async def slow() -> str:
        started.set()
        await anyio.sleep(30)
        return "never"

    agent = Agent(model=model, tools=[slow])
    async with agent.stream("first") as run:
        async for event in run:
            if isinstance(event, TextDeltaEvent):
                break
    async with agent.stream("second") as run:  # left during a tool call
        async for event in run:
            if isinstance(event, ToolExecuteEvent):
                break
    later = Agent(model=model, tools=[slow], messages=load_messages(dump_messages(agent.messages)))
    async with later.stream("third") as run:
        assert (await run.wait()).output == "short"
    roles = [m.role for m in model.requests[-1].messages]
    assert roles == ["user", "assistant", "user", "assistant", "tool", "user"]
    assert [m.role for m in later.messages][-1] == "assistant"
    first_answer = model.requests[-1].messages[1]
    assert isinstance(first_answer, AssistantMessage) and first_answer.incomplete
    assert first_answer.content == "The answer "


async def test_leaving_during_a_tool_call_answers_the_call() -> None:
    started = anyio.Event()

    @tool
    async def slow() -> str:
        started.set()
        await anyio.sleep(30)
        return "never"

    model = ScriptedModel([ScriptedModel.streamed(ScriptedModel.call("slow", {}, id="s1"))])
    agent = Agent(model=model, tools=[slow])
    async with agent.stream("go") as run:
        async for event in run:
            if isinstance(event, ToolExecuteEvent):
                break
    last = agent.messages[-1]
    assert isinstance(last, ToolMessage) and last.tool_call_id == "s1" and last.is_error
    assert unanswered_calls(agent.messages) == []
    assert started.is_set()


async def test_leaving_without_reading_cancels_the_run() -> None:
    model = ScriptedModel([ScriptedModel.streamed("a", "b")])
    agent = Agent(model=model)
    async with agent.stream("go"):
        pass
    # nothing was read: no complete answer; a turn cut short is marked incomplete
    answers = [m for m in agent.messages if isinstance(m, AssistantMessage)]
    assert all(m.incomplete and not m.content for m in answers)


async def test_an_error_ending_the_run_is_raised_from_the_iteration() -> None:
    agent = Agent(model=ScriptedModel([]))
    with pytest.raises(ScriptExhaustedError):
        async with agent.stream("go") as run:
            async for _ in run:
                pass

    model = ScriptedModel([ScriptedModel.streamed("x", usage=Usage(output_tokens=50))])
    agent = Agent(model=model, usage_limits=UsageLimits(output_tokens_limit=10))
    seen: list[Any] = []
    with pytest.raises(UsageLimitExceeded):
        async with agent.stream("go") as run:
            async for event in run:
                seen.append(event)
    assert isinstance(seen[-1], TurnEndEvent)


async def test_an_unread_error_is_raised_on_leaving_the_block() -> None:
    agent = Agent(model=ScriptedModel([]))
    with pytest.raises(ScriptExhaustedError):
        async with agent.stream("go") as run:
            await anyio.lowlevel.checkpoint()
            await run.wait()


class City(BaseModel):
    name: str
    population: int


async def test_typed_output_in_a_streamed_run() -> None:
    model = ScriptedModel(
        [
            ScriptedModel.streamed(
                ScriptedModel.call(OUTPUT_TOOL_NAME, {"name": "Oslo", "population": 700000})
            )
        ]
    )
    agent = Agent(model=model)
    async with agent.stream("Biggest Norwegian city?", output_type=City) as run:
        fragments = [e.arguments async for e in run if isinstance(e, ToolCallArgsEvent)]
    assert run.output == City(name="Oslo", population=700000)
    assert "".join(fragments) == '{"name": "Oslo", "population": 700000}'


async def test_prompted_typed_output_in_a_streamed_run() -> None:
    model = ScriptedModel([ScriptedModel.streamed('{"name": "Ber', 'gen", "population": 1}')])
    agent = Agent(model=model)
    async with agent.stream("x", output_type=City, output_mode="prompted") as run:
        text = [t async for t in run.text_deltas()]
    assert text == ['{"name": "Ber', 'gen", "population": 1}']
    assert run.output == City(name="Bergen", population=1)


async def test_partial_json_grows_with_the_stream() -> None:
    call = ScriptedModel.call(OUTPUT_TOOL_NAME, {"name": "Oslo", "population": 700000})
    model = ScriptedModel([ScriptedModel.streamed(call, args_chunk=6)])
    agent = Agent(model=model)
    seen: list[Any] = []
    async with agent.stream("x", output_type=City) as run:
        assert run.partial_json() is None
        async for event in run:
            if isinstance(event, ToolCallArgsEvent):
                seen.append(run.partial_json())
    assert seen[0] == {"name": ""} or seen[0] == {}
    assert {"name": "Oslo"} in seen
    assert seen[-1] == {"name": "Oslo", "population": 700000}
    assert run.output == City(name="Oslo", population=700000)


async def test_partial_json_and_output_of_a_prompted_list_answer() -> None:
    model = ScriptedModel([ScriptedModel.streamed('Sure: [{"name": "A", "popu', 'lation": 1}]')])
    agent = Agent(model=model)
    async with agent.stream("x", output_type=list[City], output_mode="prompted") as run:
        first = await run.__anext__()
        assert isinstance(first, TextDeltaEvent)
        assert run.partial_json() == [{"name": "A"}]
        assert run.partial_output() == []  # the one item still lacks its population
        await run.wait()
    assert run.output == [City(name="A", population=1)]


async def test_a_streamed_run_stops_for_approval_and_resumes_streamed() -> None:
    @tool(requires_approval=True)
    def launch(target: str) -> str:
        """Launch."""
        return f"launched at {target}"

    model = ScriptedModel(
        [
            ScriptedModel.streamed(ScriptedModel.call("launch", {"target": "moon"}, id="l1")),
            ScriptedModel.streamed("Launched."),
        ]
    )
    agent = Agent(model=model, tools=[launch])
    async with agent.stream("go") as run:
        events = [event async for event in run]
    assert not any(isinstance(e, ToolExecuteEvent) for e in events)
    assert isinstance(events[-1], RunEndEvent) and events[-1].result.is_deferred
    assert run.run_result.deferred[0].parameters == {"target": "moon"}

    async with agent.stream(approvals={"l1": True}) as resumed:
        events = [event async for event in resumed]
    executing = next(e for e in events if isinstance(e, ToolExecuteEvent))
    assert executing.call.id == "l1"
    assert resumed.output == "Launched."


async def test_leaving_after_the_last_turn_keeps_the_finished_result() -> None:
    agent = Agent(model=ScriptedModel([ScriptedModel.streamed("all ", "done")]))
    async with agent.stream("go") as run:
        async for event in run:
            if isinstance(event, TurnEndEvent):
                break
    assert run.result.content == "all done"
    assert run.result is agent.messages[-1]
