"""CallContext and around_call: order, short-circuit, exceptions, cancellation, conflicts."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from good_agent import (
    Agent,
    AgentComponent,
    AgentEvents,
    CallContext,
    ConflictStrategy,
    EventContext,
    ToolAdapter,
    ToolError,
    ToolResponse,
    tool,
)
from good_agent.adapters import AdapterConflictError, CallNext
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio


def make_tool(log: list[str], *, fail: BaseException | None = None, delay: float = 0.0) -> Any:
    @tool
    async def work(x: int) -> int:
        """Work on x."""
        log.append("tool")
        if delay:
            await anyio.sleep(delay)
        if fail is not None:
            raise fail
        return x * 2

    return work


class Layer(ToolAdapter):
    """Logs entering and leaving; may answer, raise or change parameters."""

    def __init__(
        self,
        label: str,
        log: list[str],
        priority: int,
        *,
        answer: Any = None,
        raise_: BaseException | None = None,
        touches: str | None = None,
        strategy: ConflictStrategy = ConflictStrategy.CHAIN,
    ) -> None:
        super().__init__(None, priority, strategy)
        self.label, self.log, self.answer, self.raise_ = label, log, answer, raise_
        self.touches = touches
        self.seen: list[Any] = []

    def adapt_signature(self, tool: Any, signature: Any, agent: Any) -> Any:
        if self.touches is None:
            return signature
        out = copy.deepcopy(signature)
        out["function"]["parameters"]["properties"][self.touches]["description"] = self.label
        return out

    async def around_call(self, ctx: CallContext, call_next: CallNext) -> ToolResponse:
        self.log.append(f"{self.label}>")
        try:
            if self.raise_ is not None:
                raise self.raise_
            if self.answer is not None:
                return ctx.respond(self.answer)
            response = await call_next(ctx)
            self.seen.append(response)
            return response
        finally:
            self.log.append(f"<{self.label}")


def agent_with(*adapters: ToolAdapter, tools: list[Any], **options: Any) -> Agent:
    owner = AgentComponent()
    for adapter in adapters:
        owner.register_tool_adapter(adapter)
    return Agent(tools=tools, extensions=[owner], **options)


async def test_the_context_carries_the_call_as_sent_and_unwrapped() -> None:
    seen: list[CallContext] = []

    class Rename(ToolAdapter):
        def adapt_signature(self, tool: Any, signature: Any, agent: Any) -> Any:
            out = copy.deepcopy(signature)
            props = out["function"]["parameters"]["properties"]
            props["number"] = props.pop("x")
            out["function"]["parameters"]["required"] = ["number"]
            return out

        def adapt_parameters(
            self, tool_name: str, parameters: dict[str, Any], agent: Any, ctx: Any = None
        ) -> Any:
            seen.append(ctx)
            return {"x": parameters["number"]}

        async def around_call(self, ctx: CallContext, call_next: CallNext) -> ToolResponse:
            seen.append(ctx)
            return await call_next(ctx)

        def adapt_response(
            self, tool_name: str, response: ToolResponse, agent: Any, *, ctx: Any = None
        ) -> Any:
            seen.append(ctx)
            return response

    log: list[str] = []
    model = ScriptedModel([ScriptedModel.tool_call("work", {"number": 4}, id="c9"), "ok"])
    owner = AgentComponent()
    owner.register_tool_adapter(Rename(owner))
    agent = Agent(model=model, tools=[make_tool(log)], extensions=[owner])
    await agent.call("go")
    unwrap, around, respond = seen
    assert unwrap.agent is agent and unwrap.call.id == "c9" and unwrap.tool.name == "work"
    assert dict(unwrap.arguments) == {"number": 4} and unwrap.attempt == 1
    assert dict(around.parameters) == {"x": 4} and dict(around.arguments) == {"number": 4}
    assert respond.parameters == around.parameters and respond.call is around.call
    with pytest.raises(dataclasses.FrozenInstanceError):
        around.attempt = 2  # type: ignore[misc]


async def test_attempt_counts_the_failed_calls_of_the_tool_in_the_run() -> None:
    attempts: list[int] = []

    class Watch(ToolAdapter):
        async def around_call(self, ctx: CallContext, call_next: CallNext) -> ToolResponse:
            attempts.append(ctx.attempt)
            return await call_next(ctx)

    log: list[str] = []
    model = ScriptedModel(
        [
            ScriptedModel.tool_call("work", {"x": "not a number"}),
            ScriptedModel.tool_call("work", {"x": 1}),
            ScriptedModel.tool_call("work", {"x": 2}),
            "ok",
        ]
    )
    owner = AgentComponent()
    owner.register_tool_adapter(Watch(owner))
    async with Agent(model=model, tools=[make_tool(log)], extensions=[owner]) as agent:
        await agent.call("go")
    # The invalid call never reaches around_call but counts as a failure.
    assert attempts == [2, 2]


async def test_old_style_hooks_keep_working_and_never_receive_the_context() -> None:
    calls: list[tuple[Any, ...]] = []

    class Old(ToolAdapter):
        def adapt_parameters(self, tool_name: str, parameters: dict[str, Any], agent: Any) -> Any:
            calls.append(("params", tool_name, dict(parameters), agent))
            return parameters

        async def adapt_response(self, tool_name: str, response: ToolResponse, agent: Any) -> Any:
            calls.append(("response", tool_name, response.response, agent))
            return response.model_copy(update={"response": response.response + 1})

    log: list[str] = []
    owner = AgentComponent()
    owner.register_tool_adapter(Old(owner))
    async with Agent(tools=[make_tool(log)], extensions=[owner]) as agent:
        result = await agent.invoke("work", x=5)
    assert result.response == 11
    assert calls == [("params", "work", {"x": 5}, agent), ("response", "work", 10, agent)]


async def test_highest_priority_is_outermost_and_responses_are_adapted_after() -> None:
    log: list[str] = []

    class Mark(ToolAdapter):
        def adapt_response(self, tool_name: str, response: ToolResponse, agent: Any) -> Any:
            log.append("adapt_response")
            return response

    agent = agent_with(
        Layer("low", log, 100),
        Layer("high", log, 300),
        Mark(None, 50),
        Layer("mid", log, 200),
        tools=[make_tool(log)],
    )
    agent.events.on(AgentEvents.TOOL_CALL_BEFORE, lambda ctx: log.append("before-event"))
    response = await agent.invoke("work", x=1)
    assert response.response == 2
    assert log == [
        "high>",
        "mid>",
        "low>",
        "before-event",
        "tool",
        "<low",
        "<mid",
        "<high",
        "adapt_response",
    ]


async def test_an_answer_short_circuits_everything_below() -> None:
    log: list[str] = []
    outer = Layer("outer", log, 300)
    agent = agent_with(
        outer,
        Layer("cache", log, 200, answer="from cache"),
        Layer("inner", log, 100),
        tools=[make_tool(log)],
    )
    response = await agent.invoke("work", x=1)
    assert (response.response, response.tool_call_id) == ("from cache", "invoke_1")
    assert log == ["outer>", "cache>", "<cache", "<outer"]
    assert outer.seen[0].response == "from cache"


async def test_changed_parameters_reach_the_tool_validated_again() -> None:
    got: list[int] = []

    class Double(ToolAdapter):
        async def around_call(self, ctx: CallContext, call_next: CallNext) -> ToolResponse:
            return await call_next(ctx.with_parameters({"x": ctx.parameters["x"] * 10}))

    class Bad(ToolAdapter):
        async def around_call(self, ctx: CallContext, call_next: CallNext) -> ToolResponse:
            return await call_next(ctx.with_parameters({"x": "many"}))

    @tool
    async def work(x: int) -> int:
        """Work."""
        got.append(x)
        return x

    assert (await agent_with(Double(), tools=[work]).invoke("work", x=3)).response == 30
    bad = await agent_with(Bad(), tools=[work]).invoke("work", x=3)
    assert not bad.success and "invalid arguments for tool 'work'" in (bad.error or "")
    assert got == [30]


async def test_tool_errors_reach_the_layers_as_error_responses() -> None:
    log: list[str] = []
    outer = Layer("outer", log, 100)
    agent = agent_with(outer, tools=[make_tool(log, fail=ValueError("bad x"))])
    response = await agent.invoke("work", x=1)
    assert not response.success and response.error == "ValueError: bad x"
    assert outer.seen[0].success is False and log == ["outer>", "tool", "<outer"]


async def test_with_tool_errors_raise_the_exception_passes_through_every_layer() -> None:
    log: list[str] = []
    agent = agent_with(
        Layer("outer", log, 200),
        Layer("inner", log, 100),
        tools=[make_tool(log, fail=KeyError("k"))],
        tool_errors="raise",
    )
    with pytest.raises(KeyError):
        await agent.invoke("work", x=1)
    assert log == ["outer>", "inner>", "tool", "<inner", "<outer"]


async def test_a_tool_error_raised_by_a_layer_is_an_error_response() -> None:
    log: list[str] = []
    errors: list[BaseException] = []
    agent = agent_with(
        Layer("outer", log, 200),
        Layer("limit", log, 100, raise_=ToolError("slow down")),
        tools=[make_tool(log)],
    )
    agent.events.on(AgentEvents.TOOL_CALL_ERROR, lambda ctx: errors.append(ctx.payload.error))
    response = await agent.invoke("work", x=1)
    assert not response.success and response.error == "slow down"
    assert log == ["outer>", "limit>", "<limit", "<outer"]
    assert [type(e) for e in errors] == [ToolError]


async def test_an_adapter_bug_reaches_the_caller() -> None:
    log: list[str] = []
    agent = agent_with(
        Layer("outer", log, 200),
        Layer("buggy", log, 100, raise_=RuntimeError("bug")),
        tools=[make_tool(log)],
    )
    with pytest.raises(RuntimeError, match="bug"):
        await agent.invoke("work", x=1)
    assert "tool" not in log and log[-1] == "<outer"


async def test_cancellation_unwinds_every_layer() -> None:
    log: list[str] = []
    agent = agent_with(
        Layer("outer", log, 200),
        Layer("inner", log, 100),
        tools=[make_tool(log, delay=5.0)],
    )
    async with agent:
        with anyio.move_on_after(0.05) as scope:
            await agent.invoke("work", x=1)
    assert scope.cancelled_caught
    assert log == ["outer>", "inner>", "tool", "<inner", "<outer"]


@pytest.mark.parametrize(
    ("strategy", "expected"),
    [
        (ConflictStrategy.CHAIN, ["high>", "low>", "tool", "<low", "<high"]),
        (ConflictStrategy.MERGE, ["high>", "low>", "tool", "<low", "<high"]),
        (ConflictStrategy.PRIORITY, ["high>", "tool", "<high"]),
    ],
)
async def test_conflict_strategies_decide_which_layers_wrap_the_tool(
    strategy: ConflictStrategy, expected: list[str]
) -> None:
    log: list[str] = []
    agent = agent_with(
        Layer("high", log, 200, touches="x", strategy=strategy),
        Layer("low", log, 100, touches="x", strategy=strategy),
        tools=[make_tool(log)],
    )
    assert (await agent.invoke("work", x=2)).response == 4
    assert log == expected


async def test_exclusive_conflict_raises_before_any_layer_runs() -> None:
    log: list[str] = []
    agent = agent_with(
        Layer("high", log, 200, touches="x", strategy=ConflictStrategy.EXCLUSIVE),
        Layer("low", log, 100, touches="x"),
        tools=[make_tool(log)],
    )
    for _ in range(2):
        with pytest.raises(AdapterConflictError):
            await agent.invoke("work", x=2)
    assert log == []


async def test_a_tool_call_before_answer_is_seen_by_the_layers() -> None:
    log: list[str] = []
    outer = Layer("outer", log, 100)
    agent = agent_with(outer, tools=[make_tool(log)])

    def answer(ctx: EventContext) -> None:
        ctx.payload.answer(error="not today")

    agent.events.on(AgentEvents.TOOL_CALL_BEFORE, answer)
    response = await agent.invoke("work", x=1)
    assert response.error == "not today" and outer.seen[0].error == "not today"
    assert "tool" not in log


@settings(max_examples=60, deadline=None)
@given(
    priorities=st.lists(st.integers(-3, 3), min_size=1, max_size=6),
    answering=st.one_of(st.none(), st.integers(0, 5)),
)
def test_any_chain_nests_by_priority_and_stops_at_the_first_answer(
    priorities: list[int], answering: int | None
) -> None:
    log: list[str] = []
    if answering is not None and answering >= len(priorities):
        answering = None
    layers = [
        Layer(f"a{i}", log, p, answer="answered" if i == answering else None)
        for i, p in enumerate(priorities)
    ]
    agent = agent_with(*layers, tools=[make_tool(log)])
    response = anyio.run(lambda: agent.invoke("work", x=1))
    # Highest priority outermost; equal priorities keep registration order.
    order = [layer.label for layer in sorted(layers, key=lambda a: -a.priority)]
    if answering is None:
        entered = order
        assert response.response == 2 and "tool" in log
    else:
        entered = order[: order.index(f"a{answering}") + 1]
        assert response.response == "answered" and "tool" not in log
    expected = [f"{label}>" for label in entered]
    expected += ["tool"] if answering is None else []
    expected += [f"<{label}" for label in reversed(entered)]
    assert log == expected


def test_the_fast_context_constructor_fills_every_field_and_stays_frozen() -> None:
    import dataclasses

    from good_agent.adapters._context import CallContext, make_context

    values = [object() for _ in dataclasses.fields(CallContext)]
    made = make_context(*values)  # type: ignore[arg-type]
    assert made == CallContext(*values)  # type: ignore[arg-type]
    assert [getattr(made, f.name) for f in dataclasses.fields(CallContext)] == values
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.attempt = 2  # type: ignore[misc]
