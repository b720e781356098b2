"""The event bus: priorities, payload replacement, stopping, and handler errors."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from good_agent import Agent, AgentEvents, EventContext, ToolCallAfter, ToolResponse, tool
from good_agent.core.events import EventBus, HandlerErrorPayload
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio


async def test_priority_order_is_descending_and_stable() -> None:
    bus = EventBus()
    order: list[str] = []
    bus.on(AgentEvents.MESSAGE_APPEND, lambda ctx: order.append("low"), priority=-5)
    bus.on(AgentEvents.MESSAGE_APPEND, lambda ctx: order.append("first-0"))
    bus.on(AgentEvents.MESSAGE_APPEND, lambda ctx: order.append("high"), priority=10)
    bus.on(AgentEvents.MESSAGE_APPEND, lambda ctx: order.append("second-0"))

    async def async_handler(ctx: EventContext) -> None:
        order.append("async-5")

    bus.on(AgentEvents.MESSAGE_APPEND, async_handler, priority=5)
    await bus.emit(AgentEvents.MESSAGE_APPEND, "payload")
    assert order == ["high", "async-5", "first-0", "second-0", "low"]


async def test_payload_replacement_by_return_and_by_assignment_and_stop() -> None:
    bus = EventBus()
    bus.on(AgentEvents.LLM_RESPONSE_AFTER, lambda ctx: ctx.payload + ["a"], priority=3)

    def assign(ctx: EventContext) -> None:
        ctx.payload = ctx.payload + ["b"]
        ctx.stop()

    bus.on(AgentEvents.LLM_RESPONSE_AFTER, assign, priority=2)
    bus.on(AgentEvents.LLM_RESPONSE_AFTER, lambda ctx: ctx.payload + ["never"], priority=1)
    assert await bus.emit(AgentEvents.LLM_RESPONSE_AFTER, []) == ["a", "b"]


async def test_off_disconnects() -> None:
    bus = EventBus()
    seen: list[Any] = []

    def handler(ctx: EventContext) -> None:
        seen.append(ctx.payload)

    bus.on(AgentEvents.AGENT_INIT, handler)
    await bus.emit(AgentEvents.AGENT_INIT, 1)
    bus.off(AgentEvents.AGENT_INIT, handler)
    await bus.emit(AgentEvents.AGENT_INIT, 2)
    assert seen == [1]
    assert bus.signal(AgentEvents.AGENT_INIT).receivers == {}


async def test_interceptable_handler_exception_reaches_the_caller() -> None:
    @tool
    def ping() -> str:
        return "pong"

    def broken(ctx: EventContext) -> None:
        raise ValueError("handler bug")

    agent = Agent(model=ScriptedModel([ScriptedModel.tool_call("ping"), "ok"]), tools=[ping])
    agent.events.on(AgentEvents.TOOL_CALL_AFTER, broken)
    with pytest.raises(ValueError, match="handler bug"):
        await agent.call("x")


async def test_observe_only_handler_exception_is_logged_and_reemitted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    bus = EventBus()
    reported: list[HandlerErrorPayload] = []
    after: list[str] = []

    def broken(ctx: EventContext) -> None:
        raise RuntimeError("observer bug")

    bus.on(AgentEvents.AGENT_INIT, broken, priority=1)
    bus.on(AgentEvents.AGENT_INIT, lambda ctx: after.append("still ran"))
    bus.on(AgentEvents.EVENT_HANDLER_ERROR, lambda ctx: reported.append(ctx.payload))
    with caplog.at_level(logging.ERROR, logger="good_agent.events"):
        await bus.emit(AgentEvents.AGENT_INIT, None)
    assert after == ["still ran"]
    assert len(reported) == 1
    assert reported[0].event is AgentEvents.AGENT_INIT
    assert isinstance(reported[0].error, RuntimeError)
    assert "broken" in reported[0].handler
    assert any("observer bug" in (r.exc_text or "") or r.exc_info for r in caplog.records)


async def test_tool_call_after_can_replace_the_response() -> None:
    @tool
    def ping() -> str:
        return "pong"

    def rewrite(ctx: EventContext) -> ToolCallAfter:
        payload: ToolCallAfter = ctx.payload
        payload.response = ToolResponse(
            tool_name="ping", tool_call_id=payload.call.id, response="PONG!"
        )
        return payload

    model = ScriptedModel([ScriptedModel.tool_call("ping"), "ok"])
    agent = Agent(model=model, tools=[ping])
    agent.events.on(AgentEvents.TOOL_CALL_AFTER, rewrite)
    await agent.call("x")
    assert model.requests[1].messages[-1].content == "PONG!"  # type: ignore[union-attr]


async def test_message_append_can_rewrite_messages() -> None:
    agent = Agent(model=ScriptedModel(["hello"]))

    def shout(ctx: EventContext) -> Any:
        if ctx.payload.role == "user":
            return ctx.payload.model_copy(update={"content": ctx.payload.content.upper()})
        return None

    agent.events.on(AgentEvents.MESSAGE_APPEND, shout)
    await agent.call("quiet please")
    assert agent.messages[0].content == "QUIET PLEASE"


async def test_llm_request_before_sees_and_can_change_the_request() -> None:
    model = ScriptedModel(["ok"])
    agent = Agent(model=model)

    def settings(ctx: EventContext) -> None:
        ctx.payload.settings["temperature"] = 0.0

    agent.events.on(AgentEvents.LLM_REQUEST_BEFORE, settings)
    await agent.call("x")
    assert model.requests[0].settings == {"temperature": 0.0}
