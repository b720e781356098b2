"""Running tool calls through validation, the adapter chain, events and the tool itself."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import anyio

from good_agent.adapters.plan import ToolPlan
from good_agent.core.errors import ToolArgumentsError, ToolError, UnknownToolError
from good_agent.core.events import AgentEvents
from good_agent.core.messages import ToolCall, ToolResponse
from good_agent.core.payloads import (
    SignaturePayload,
    ToolCallAfter,
    ToolCallBefore,
    ToolCallErrorPayload,
)
from good_agent.core.redaction import agent_secrets
from good_agent.providers.schema_validation import compile_schema

if TYPE_CHECKING:
    from good_agent.core.agent import Agent

logger = logging.getLogger("good_agent.tools")


async def current_plans(agent: Agent) -> dict[str, ToolPlan]:
    """The plan of every tool as the model will see it now, events applied."""
    plans = agent.adapter_chain.plans(agent.tools, agent.tools.version)
    if not agent.events.has_handlers(AgentEvents.TOOLS_GENERATE_SIGNATURE):
        return plans
    result: dict[str, ToolPlan] = {}
    for name, plan in plans.items():
        payload = SignaturePayload(plan.tool, plan.signature)
        payload = await agent.events.emit(AgentEvents.TOOLS_GENERATE_SIGNATURE, payload)
        if payload.signature is plan.signature:
            result[name] = plan
            continue
        parameters = payload.signature["function"].get("parameters") or {}
        result[name] = ToolPlan(
            tool=plan.tool,
            signature=payload.signature,
            steps=plan.steps,
            validator=compile_schema(parameters),
        )
    return result


def _answering(call: ToolCall, response: ToolResponse) -> ToolResponse:
    """``response`` addressed to ``call`` (an adapter's ``intercept`` does not see the call)."""
    if response.tool_call_id == call.id and response.tool_name == call.name:
        return response
    return response.model_copy(update={"tool_call_id": call.id, "tool_name": call.name})


def _failure(call: ToolCall, message: str) -> ToolResponse:
    return ToolResponse(tool_name=call.name, tool_call_id=call.id, success=False, error=message)


async def execute_call(agent: Agent, call: ToolCall, plans: dict[str, ToolPlan]) -> ToolResponse:
    """Run one call with the plans the model saw; failures become error responses.

    Errors meant for the model (unknown tool, invalid arguments, :class:`ToolError`
    raised by a tool or adapter, and, with ``tool_errors="report"``, any exception
    raised by the tool function) become error responses. Exceptions raised by
    adapters and event handlers propagate to the caller.
    """
    plan = plans.get(call.name)
    if plan is None:
        unknown = UnknownToolError(call.name, list(plans))
        await agent.events.emit(AgentEvents.TOOL_CALL_ERROR, ToolCallErrorPayload(call, unknown))
        return _failure(call, str(unknown))
    tool = plan.tool
    params: dict[str, Any] = {}
    try:
        if call.arguments_error is not None:
            prefix = f"invalid arguments for tool '{call.name}': "
            raise ToolArgumentsError(call.name, [call.arguments_error.removeprefix(prefix)])
        if plan.validator is not None:
            problems = plan.validator(call.arguments)
            if problems:
                raise ToolArgumentsError(call.name, problems)
        params = (
            await plan.unwrap(dict(call.arguments), agent) if plan.steps else dict(call.arguments)
        )
        arguments = tool.validate(params)
        response = await plan.intercept(params, agent) if plan.steps else None
        if response is not None:
            response = _answering(call, response)
        if agent.events.has_handlers(AgentEvents.TOOL_CALL_BEFORE):
            before = ToolCallBefore(call, tool, params, response)
            before = await agent.events.emit(AgentEvents.TOOL_CALL_BEFORE, before)
            if before.response is None and before.parameters is not params:
                params = before.parameters
                arguments = tool.validate(params)
            response = None if before.response is None else _answering(call, before.response)
        if response is None:
            value = await _run(agent, tool, arguments, call)
            response = ToolResponse(tool_name=call.name, tool_call_id=call.id, response=value)
    except ToolError as exc:
        await agent.events.emit(AgentEvents.TOOL_CALL_ERROR, ToolCallErrorPayload(call, exc))
        response = _failure(call, str(exc))
    except _ToolFunctionError as wrapped:
        error = wrapped.error
        logger.error("tool %s raised %s", call.name, type(error).__name__, exc_info=error)
        await agent.events.emit(AgentEvents.TOOL_CALL_ERROR, ToolCallErrorPayload(call, error))
        if agent.tool_errors == "raise":
            raise error from None
        response = _failure(call, f"{type(error).__name__}: {error}")
    if plan.steps:
        response = await plan.adapt_response(response, agent)
    if agent.events.has_handlers(AgentEvents.TOOL_CALL_AFTER):
        after = await agent.events.emit(
            AgentEvents.TOOL_CALL_AFTER, ToolCallAfter(call, tool, params, response)
        )
        response = after.response
    return response


class _ToolFunctionError(Exception):
    """Carries an exception raised by the tool function itself out of the pipeline."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


async def _run(agent: Agent, tool: Any, arguments: dict[str, Any], call: ToolCall) -> Any:
    try:
        return await call_tool(agent, tool, arguments, call)
    except ToolError:
        raise
    except Exception as exc:
        raise _ToolFunctionError(exc) from exc


async def call_tool(agent: Agent, tool: Any, arguments: dict[str, Any], call: ToolCall) -> Any:
    """Run the tool function. What it returns or raises leaves with the agent's secrets
    redacted (:func:`~good_agent.agent_secrets`), before any adapter, observer or log."""
    secrets = agent_secrets(agent)
    try:
        value = await tool.run(arguments, {"agent": agent, "call": call})
    except Exception as exc:
        error: BaseException = secrets.redact_error(exc) if secrets else exc
    else:
        return secrets.redact(value) if secrets else value
    raise error  # outside the handler: nothing unredacted is chained to it


async def execute_calls(
    agent: Agent, calls: list[ToolCall], plans: dict[str, ToolPlan]
) -> list[ToolResponse]:
    """Run ``calls`` concurrently; the responses come back in call order."""
    if len(calls) == 1:
        return [await execute_call(agent, calls[0], plans)]
    results: list[ToolResponse | None] = [None] * len(calls)

    async def run_one(index: int, call: ToolCall) -> None:
        results[index] = await execute_call(agent, call, plans)

    async with anyio.create_task_group() as group:
        for index, call in enumerate(calls):
            group.start_soon(run_one, index, call)
    return [r for r in results if r is not None]
