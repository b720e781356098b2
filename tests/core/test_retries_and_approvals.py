"""Per-tool retries, ToolRetry, approvals (deferred calls and resuming) and dangling calls."""

from __future__ import annotations

import json
import logging
from typing import Any

import anyio
import anyio.lowlevel
import pytest
from pydantic import SecretStr

from good_agent import (
    Agent,
    AgentRunError,
    ApprovalError,
    AssistantMessage,
    ToolAdapter,
    ToolCall,
    ToolMessage,
    ToolRetriesExceededError,
    ToolRetry,
    tool,
)
from good_agent.core.approvals import HIDDEN, unanswered_calls
from good_agent.messages import dump_messages, load_messages
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio


def failing_script(name: str, times: int) -> list[Any]:
    return [ScriptedModel.tool_call(name, {"x": 1}, id=f"c{i}") for i in range(times)] + ["done"]


async def test_a_tools_own_retries_override_the_agents() -> None:
    @tool(retries=1)
    def strict_tool(x: int) -> int:
        raise ToolRetry("x must be even")

    @tool
    def lenient(x: int) -> int:
        raise ToolRetry("again")

    agent = Agent(model=ScriptedModel(failing_script("strict_tool", 3)), tools=[strict_tool])
    agent.max_tool_retries = 5
    with pytest.raises(ToolRetriesExceededError, match="retry limit is 1"):
        await agent.run("go")
    assert sum(isinstance(m, ToolMessage) for m in agent.messages) == 2

    model = ScriptedModel(failing_script("lenient", 3))
    agent = Agent(model=model, tools=[lenient], max_tool_retries=3)
    assert (await agent.run("go")).output == "done"


async def test_tool_retry_sends_its_message_back_without_counting_as_a_crash(
    caplog: pytest.LogCaptureFixture,
) -> None:
    calls: list[int] = []

    @tool
    def pick(x: int) -> str:
        calls.append(x)
        if x < 2:
            raise ToolRetry("pick a number of at least 2")
        return "ok"

    model = ScriptedModel(
        [
            ScriptedModel.tool_call("pick", {"x": 1}),
            ScriptedModel.tool_call("pick", {"x": 3}),
            "done",
        ]
    )
    agent = Agent(model=model, tools=[pick], tool_errors="raise")
    with caplog.at_level(logging.ERROR, logger="good_agent.tools"):
        result = await agent.run("go")
    assert result.output == "done" and calls == [1, 3]
    feedback = next(m for m in model.requests[1].messages if isinstance(m, ToolMessage))
    assert feedback.is_error and "pick a number of at least 2" in feedback.content
    assert caplog.records == []


class Secrets(ToolAdapter):
    """Puts a secret token in place of nothing: the model never sees it."""

    def should_adapt(self, tool: Any, agent: Any) -> bool:
        return tool.name == "transfer"

    def adapt_signature(self, tool: Any, signature: dict[str, Any], agent: Any) -> dict[str, Any]:
        params = signature["function"]["parameters"]
        params["properties"].pop("token", None)
        params["required"] = [r for r in params.get("required", []) if r != "token"]
        return signature

    def adapt_parameters(
        self, tool_name: str, parameters: dict[str, Any], agent: Any
    ) -> dict[str, Any]:
        return {**parameters, "token": SecretStr("sk-live-123")}


sent: list[tuple[int, str]] = []


@tool(requires_approval=True)
def transfer(amount: int, token: SecretStr) -> str:
    """Move money."""
    sent.append((amount, token.get_secret_value()))
    return f"sent {amount}"


@tool
def balance() -> int:
    """The balance."""
    return 100


def approval_agent(*script: Any) -> Agent:
    sent.clear()
    agent = Agent(model=ScriptedModel(list(script)), tools=[transfer, balance])
    agent.adapter_chain.add(Secrets())
    return agent


async def test_a_call_needing_approval_stops_the_run_with_the_unwrapped_call() -> None:
    agent = approval_agent(
        ScriptedModel.tool_calls(("transfer", {"amount": 5}, "t1"), ("balance", {}, "b1")),
    )
    result = await agent.run("pay 5")
    assert result.output_or_none is None and result.is_deferred
    (pending,) = result.deferred
    assert (pending.call_id, pending.tool_name) == ("t1", "transfer")
    assert pending.arguments == {"amount": 5}
    assert pending.parameters == {"amount": 5, "token": HIDDEN}
    assert "sk-live" not in repr(result) and sent == []
    # the other call of the turn ran; only the deferred one waits
    answered = [m.tool_call_id for m in agent.messages if isinstance(m, ToolMessage)]
    assert answered == ["b1"]
    assert [c.id for c in unanswered_calls(agent.messages)] == ["t1"]


@pytest.mark.parametrize(
    ("decision", "expected"),
    [
        (True, "sent 5"),
        (False, "denied this tool call."),
        ("too much", "denied this tool call: too much"),
    ],
)
async def test_resuming_applies_each_decision(decision: bool | str, expected: str) -> None:
    agent = approval_agent(ScriptedModel.tool_call("transfer", {"amount": 5}, id="t1"), "ok")
    await agent.run("pay 5")
    result = await agent.run(approvals={"t1": decision})
    assert result.output == "ok"
    answer = [m for m in agent.messages if isinstance(m, ToolMessage)][-1]
    assert expected in answer.content
    assert answer.is_error is (decision is not True)
    assert sent == ([(5, "sk-live-123")] if decision is True else [])
    assert result.usage.tool_calls == (1 if decision is True else 0)


def resumed_agent(data: bytes, *script: Any) -> Agent:
    agent = Agent(
        model=ScriptedModel(list(script)), tools=[transfer, balance], messages=load_messages(data)
    )
    agent.adapter_chain.add(Secrets())
    return agent


async def test_a_deferred_run_resumes_in_another_agent_from_the_dumped_history() -> None:
    first = approval_agent(ScriptedModel.tool_call("transfer", {"amount": 7}, id="t9"))
    (pending,) = (await first.run("pay 7")).deferred
    data = dump_messages(first.messages)

    second = resumed_agent(data, "paid")
    # this agent did not defer t9: a bare True does not say which call was shown
    with pytest.raises(ApprovalError, match=r"t9 \(transfer\) was not deferred by this agent"):
        await second.run(approvals={"t9": True})
    result = await second.run(approvals={"t9": pending.approve()})
    assert result.output == "paid" and sent == [(7, "sk-live-123")]


def edit_call(data: bytes, **changes: Any) -> bytes:
    """The dumped history with the last call's fields changed, as an attacker would."""
    history = json.loads(data)
    call = history[-1]["tool_calls"][0]
    call.update(changes)
    return json.dumps(history).encode()


@pytest.mark.parametrize(
    "changes",
    [{"arguments": {"amount": 9000}}, {"name": "balance"}],
    ids=["edited-arguments", "renamed-tool"],
)
async def test_an_approval_does_not_run_a_call_edited_after_the_deferral(
    changes: dict[str, Any],
) -> None:
    first = approval_agent(ScriptedModel.tool_call("transfer", {"amount": 7}, id="t9"), "paid")
    (pending,) = (await first.run("pay 7")).deferred
    original = dump_messages(first.messages)
    edited = edit_call(original, **changes)

    for agent, decision in [
        (resumed_agent(edited, "paid"), pending.approve()),  # another process
        (first, True),  # the same agent, its history replaced
        (first, pending.approve()),
    ]:
        agent.messages = load_messages(edited)
        with pytest.raises(ApprovalError, match=r"t9 \(\w+\) is not the call that was approved"):
            await agent.run(approvals={"t9": decision})
        assert sent == [] and unanswered_calls(agent.messages)[0].id == "t9"
    # the call as it was shown still runs under its approval
    first.messages = load_messages(original)
    assert (await first.run(approvals={"t9": True})).output == "paid"
    assert sent == [(7, "sk-live-123")]


async def test_resumed_results_are_appended_in_call_order() -> None:
    agent = approval_agent(
        ScriptedModel.tool_calls(
            ("transfer", {"amount": 1}, "t1"),
            ("transfer", {"amount": 2}, "t2"),
            ("transfer", {"amount": 3}, "t3"),
        ),
        "ok",
    )
    first, _, _ = (await agent.run("pay")).deferred
    await agent.run(approvals={"t1": first.approve(), "t2": "no", "t3": True})
    results = [m for m in agent.messages if isinstance(m, ToolMessage)]
    assert [(m.tool_call_id, m.is_error) for m in results] == [
        ("t1", False),
        ("t2", True),
        ("t3", False),
    ]
    assert sorted(sent) == [(1, "sk-live-123"), (3, "sk-live-123")]


async def test_approvals_must_match_the_waiting_calls() -> None:
    agent = approval_agent(ScriptedModel.tool_call("transfer", {"amount": 5}, id="t1"), "ok")
    with pytest.raises(ApprovalError, match="no tool call is waiting"):
        await agent.run(approvals={"t1": True})
    await agent.run("pay")
    with pytest.raises(ApprovalError, match="no decision for t1"):
        await agent.run(approvals={})
    with pytest.raises(ApprovalError, match="no pending call has id zz"):
        await agent.run(approvals={"t1": True, "zz": False})
    with pytest.raises(AgentRunError, match="resume them"):
        await agent.run("something else")
    assert (await agent.run(approvals={"t1": False})).output == "ok"


async def test_invalid_arguments_to_an_approval_tool_go_back_without_asking() -> None:
    agent = approval_agent(
        ScriptedModel.tool_call("transfer", {"amount": "lots"}, id="t1"), "sorry"
    )
    result = await agent.run("pay")
    assert not result.is_deferred and result.output == "sorry"
    answer = next(m for m in agent.messages if isinstance(m, ToolMessage))
    assert answer.is_error and "amount" in answer.content


async def test_a_tool_that_raises_leaves_every_call_answered() -> None:
    @tool
    def boom() -> str:
        raise RuntimeError("exploded")

    @tool
    async def slow() -> str:
        await anyio.sleep(30)
        return "late"

    model = ScriptedModel([ScriptedModel.tool_calls(("boom", {}, "b"), ("slow", {}, "s"))])
    agent = Agent(model=model, tools=[boom, slow], tool_errors="raise")
    with pytest.raises(RuntimeError, match="exploded"):  # itself, not in an exception group
        await agent.run("go")
    answers = {m.tool_call_id: m for m in agent.messages if isinstance(m, ToolMessage)}
    assert set(answers) == {"b", "s"}
    assert all(m.is_error for m in answers.values())
    assert unanswered_calls(agent.messages) == []


async def test_a_run_cancelled_during_its_tool_calls_leaves_them_answered() -> None:
    started = anyio.Event()

    @tool
    async def wait() -> str:
        started.set()
        await anyio.sleep(30)
        return "never"

    agent = Agent(model=ScriptedModel([ScriptedModel.tool_call("wait", {}, id="w")]), tools=[wait])
    async with anyio.create_task_group() as group:
        group.start_soon(agent.run, "go")
        await started.wait()
        group.cancel_scope.cancel()
    last = agent.messages[-1]
    assert isinstance(last, ToolMessage) and last.tool_call_id == "w" and last.is_error
    assert "cancelled" in last.content
    assert isinstance(agent.messages[-2], AssistantMessage)


def test_unanswered_calls_reads_only_the_last_turn() -> None:
    call = ToolCall(id="a", name="t")
    history: list[Any] = [AssistantMessage(tool_calls=[call])]
    assert unanswered_calls(history) == [call]
    history.append(ToolMessage(tool_call_id="a", tool_name="t", content="x"))
    assert unanswered_calls(history) == []


async def test_invoke_answers_its_call_even_when_the_tool_raises() -> None:
    @tool
    def boom() -> str:
        raise RuntimeError("exploded")

    agent = Agent(model=ScriptedModel([]), tools=[boom], tool_errors="raise")
    with pytest.raises(RuntimeError, match="exploded"):
        await agent.invoke("boom")
    last = agent.messages[-1]
    assert isinstance(last, ToolMessage) and last.is_error
    assert unanswered_calls(agent.messages) == []


async def test_pending_calls_hide_credentials_injected_by_the_auth_extension() -> None:
    from good_agent import AuthInjector

    @tool(requires_approval=True)
    def charge(amount: int, api_key: str) -> str:
        """Charge a card."""
        return f"charged {amount} ({len(api_key)}-char key)"

    model = ScriptedModel([ScriptedModel.tool_call("charge", {"amount": 5}, id="c1"), "ok"])
    agent = Agent(
        model=model, tools=[charge], extensions=[AuthInjector({"api_key": "sk-live-SECRET"})]
    )
    result = await agent.run("pay")
    assert result.deferred[0].parameters == {"amount": 5, "api_key": HIDDEN}
    assert "SECRET" not in repr(result)
    await agent.run(approvals={"c1": True})
    assert "charged 5 (14-char key)" in [m.content for m in agent.messages if m.role == "tool"]


async def test_cancelling_parallel_calls_keeps_the_result_of_each_finished_call() -> None:
    quick_done = anyio.Event()
    charged: list[str] = []

    @tool
    async def charge() -> str:
        charged.append("card")
        quick_done.set()
        return "charged once"

    @tool
    async def wait() -> str:
        await anyio.sleep(30)
        return "never"

    model = ScriptedModel([ScriptedModel.tool_calls(("charge", {}, "c"), ("wait", {}, "w"))])
    agent = Agent(model=model, tools=[charge, wait])
    async with anyio.create_task_group() as group:
        group.start_soon(agent.run, "go")
        await quick_done.wait()
        await anyio.lowlevel.checkpoint()  # let the finished call hand its response back
        group.cancel_scope.cancel()
    answers = [m for m in agent.messages if isinstance(m, ToolMessage)]
    assert [(m.tool_call_id, m.is_error) for m in answers] == [("c", False), ("w", True)]
    assert answers[0].content == "charged once" and "cancelled" in answers[1].content
    assert charged == ["card"]
