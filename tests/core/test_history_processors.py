"""History processors: choose what the model sees before each request; storage unchanged."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from good_agent import (
    Agent,
    AssistantMessage,
    HistoryProcessorError,
    Message,
    RunContext,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
    tool,
)
from good_agent.core.history_processors import check_pairs
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio


@tool
def ping(n: int) -> str:
    """Ping."""
    return f"pong {n}"


def last_user_turn(messages: list[Message]) -> list[Message]:
    start = max(i for i, m in enumerate(messages) if isinstance(m, UserMessage))
    return [messages[0], *messages[start:]]


async def test_the_model_gets_the_processed_messages_and_the_history_keeps_everything() -> None:
    model = ScriptedModel(["first answer", ScriptedModel.tool_call("ping", {"n": 1}), "second"])
    agent = Agent("System.", model=model, tools=[ping], history_processors=[last_user_turn])
    await agent.run("one")
    await agent.run("two")
    sent = [[m.role for m in request.messages] for request in model.requests]
    assert sent == [
        ["system", "user"],
        ["system", "user"],  # "one" and its answer are not sent
        ["system", "user", "assistant", "tool"],
    ]
    assert [m.role for m in agent.messages] == [
        "system", "user", "assistant", "user", "assistant", "tool", "assistant"
    ]  # fmt: skip


@dataclass
class Deps:
    keep: int


async def test_processors_run_in_order_before_every_request_with_the_run_context() -> None:
    calls: list[tuple[str, int]] = []

    def first(ctx: RunContext[Deps], messages: list[Message]) -> list[Message]:
        calls.append(("first", ctx.usage.requests))
        return messages[-ctx.deps.keep :]

    async def second(messages: list[Message]) -> list[Message]:
        calls.append(("second", len(messages)))
        return [SystemMessage(content="Summary: none."), *messages]

    model = ScriptedModel([ScriptedModel.tool_call("ping", {"n": 1}), "done"])
    agent = Agent(model=model, tools=[ping], history_processors=[first, second])
    await agent.run("go", deps=Deps(keep=3))
    assert calls == [("first", 0), ("second", 1), ("first", 1), ("second", 3)]
    assert [m.role for m in model.requests[1].messages] == ["system", "user", "assistant", "tool"]
    assert all(not isinstance(m, SystemMessage) for m in agent.messages)


async def test_a_processor_changing_a_message_copy_leaves_the_history_alone() -> None:
    def shorten(messages: list[Message]) -> list[Message]:
        return [
            m.model_copy(update={"content": "[dropped]"}) if isinstance(m, ToolMessage) else m
            for m in messages
        ]

    model = ScriptedModel([ScriptedModel.tool_call("ping", {"n": 7}), "done"])
    agent = Agent(model=model, tools=[ping], history_processors=[shorten])
    await agent.run("go")
    assert model.requests[1].messages[-1].content == "[dropped]"
    assert agent.messages[-2].content == "pong 7"


def drop_calls(messages: list[Message]) -> list[Message]:
    return [m for m in messages if not (isinstance(m, AssistantMessage) and m.tool_calls)]


def drop_results(messages: list[Message]) -> list[Message]:
    return [m for m in messages if not isinstance(m, ToolMessage)]


@pytest.mark.parametrize(
    ("processor", "problem"),
    [
        (drop_calls, "left the result of call 'c1' (ping) at message 1 without its call"),
        (drop_results, "left call 'c1' (ping) without its result"),
        (lambda messages: [], "returned no messages"),
        (lambda messages: "hello", "returned str, not a list of messages"),
        (lambda messages: [{"role": "user"}], "returned a dict among the messages"),
    ],
)
async def test_a_processor_breaking_the_history_gets_a_clear_error(
    processor: Any, problem: str
) -> None:
    model = ScriptedModel([ScriptedModel.tool_call("ping", {"n": 1}, id="c1"), "done"])
    agent = Agent(model=model, tools=[ping], history_processors=[processor])
    with pytest.raises(HistoryProcessorError) as caught:
        await agent.run("go")
    assert problem in str(caught.value)
    assert len(model.requests) == (1 if processor in (drop_calls, drop_results) else 0)
    assert check_pairs(agent.messages) is None  # the stored history stays valid


def history(turns: list[int]) -> list[Message]:
    """A valid history: one user turn per entry, with that many tool calls each."""
    messages: list[Message] = [SystemMessage(content="s")]
    for turn, count in enumerate(turns):
        messages.append(UserMessage(content=f"q{turn}"))
        if count:
            calls = [ToolCall(id=f"t{turn}c{i}", name="ping", arguments={}) for i in range(count)]
            messages.append(AssistantMessage(tool_calls=calls))
            messages += [
                ToolMessage(tool_call_id=c.id, tool_name="ping", content="r") for c in calls
            ]
        messages.append(AssistantMessage(content=f"a{turn}"))
    return messages


@given(st.lists(st.integers(0, 3), min_size=1, max_size=6), st.data())
def test_check_pairs_accepts_valid_histories_and_finds_any_dropped_half(
    turns: list[int], data: st.DataObject
) -> None:
    messages = history(turns)
    assert check_pairs(messages) is None
    halves = [
        i
        for i, m in enumerate(messages)
        if isinstance(m, ToolMessage) or (isinstance(m, AssistantMessage) and m.tool_calls)
    ]
    if halves:
        dropped = data.draw(st.sampled_from(halves))
        assert check_pairs(messages[:dropped] + messages[dropped + 1 :]) is not None
    # dropping whole turns keeps every pair
    start = data.draw(st.integers(0, len(turns) - 1))
    users = [i for i, m in enumerate(messages) if isinstance(m, UserMessage)]
    assert check_pairs([messages[0], *messages[users[start] :]]) is None
