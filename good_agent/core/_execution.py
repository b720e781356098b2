"""Running tool calls through validation, the adapter chain, events and the tool itself."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

import anyio

from good_agent.adapters._context import CallContext, make_context
from good_agent.adapters._plan import ToolPlan
from good_agent.core.debug_log import log_tool_call, tool_clock
from good_agent.core.events import AgentEvents
from good_agent.core.payloads import (
    SignaturePayload,
    ToolCallAfter,
    ToolCallBefore,
    ToolCallErrorPayload,
)
from good_agent.core.redaction import agent_secrets
from good_agent.core.run_context import RunContext
from good_agent.tools.tool import Tool
from good_agent.tools.toolset import Toolset
from good_agent.types.errors import (
    GoodAgentError,
    ToolArgumentsError,
    ToolError,
    ToolTimeoutError,
    UnknownToolError,
)
from good_agent.types.messages import ToolCall, ToolResponse
from good_agent.types.usage import RunUsage, UsageLimitExceeded

if TYPE_CHECKING:
    from good_agent.core.definition import AgentDefinition

logger = logging.getLogger("good_agent.tools")

OnExecute = Callable[[ToolCall, dict[str, Any]], Awaitable[None]]
"""Called with a call and its parameters after the adapter chain, before it runs."""


async def current_plans(
    agent: AgentDefinition, run_tools: Toolset | None = None, run: RunContext[Any] | None = None
) -> dict[str, ToolPlan]:
    """The plan of every tool as the model will see it now, by the name it sees,
    events applied; ``run_tools`` are the tools added for one run, ``run`` the run's
    context for the toolsets' filters (outside a run: one with ``deps=None``)."""
    registry = agent.tools
    if run_tools is None and not registry.toolsets and not agent.adapter_chain.renames:
        # The usual case, decided here: the agent's own tools, no renaming.
        plans = agent.adapter_chain.plans(registry, registry.version)
    else:
        plans = _chain_plans(agent, run_tools, run)
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
        from good_agent.providers.schema_validation import compile_schema

        result[name] = ToolPlan(
            tool=plan.tool,
            signature=payload.signature,
            steps=plan.steps,
            validator=compile_schema(parameters),
        )
    return result


def _chain_plans(
    agent: AgentDefinition, run_tools: Toolset | None, run: RunContext[Any] | None
) -> dict[str, ToolPlan]:
    registry, chain = agent.tools, agent.adapter_chain
    if run_tools is None and not registry.toolsets:
        if not chain.renames:
            return chain.plans(registry, registry.version)
        with chain.naming().use_names([]):
            return chain.plans(registry, registry.version)
    if run is None:
        run = RunContext(None, agent, RunUsage(), agent.messages, "")
    entries = registry.entries(agent, run)
    if run_tools is not None:
        entries += run_tools.entries(agent, run=run)
    tools = [tool for _, tool in entries]
    version = (registry.version, tuple(id(tool) for tool in tools))
    if not chain.renames and all(name == tool.name for name, tool in entries):
        return chain.plans(tools, version)
    # This planning's names, in this context only: another conversation planning at
    # once (another task or thread) keeps its own.
    with chain.naming().use_names(entries):
        return chain.plans(tools, version)


def _failure(call: ToolCall, message: str) -> ToolResponse:
    return ToolResponse(tool_name=call.name, tool_call_id=call.id, success=False, error=message)


async def execute_call(
    agent: AgentDefinition,
    call: ToolCall,
    plans: dict[str, ToolPlan],
    *,
    run: RunContext[Any],
    attempt: int = 1,
    on_execute: OnExecute | None = None,
) -> ToolResponse:
    """Run one call (see `_execute_call`), logged at DEBUG with its duration."""
    started = tool_clock()
    response = await _execute_call(
        agent, call, plans, run=run, attempt=attempt, on_execute=on_execute
    )
    log_tool_call(call, response, started)
    return response


async def _execute_call(
    agent: AgentDefinition,
    call: ToolCall,
    plans: dict[str, ToolPlan],
    *,
    run: RunContext[Any],
    attempt: int = 1,
    on_execute: OnExecute | None = None,
) -> ToolResponse:
    """Run one call with the plans the model saw; failures become error responses.

    ``on_execute`` sees the parameters the tool will receive (after ``adapt_parameters``
    and the tool's validation, before ``around_call``); an exception it raises
    propagates.

    The order: argument problems and the adapted schema; ``adapt_parameters``
    (lowest priority first); the tool's own validation; ``around_call`` (highest
    priority outermost) around ``TOOL_CALL_BEFORE`` and the tool; ``adapt_response``
    (highest priority first); ``TOOL_CALL_AFTER``.

    Errors meant for the model (unknown tool, invalid arguments, `ToolError`
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
    params: dict[str, Any] = call.arguments
    ctx: CallContext | None = None
    try:
        if call.arguments_error is not None:
            raise ToolArgumentsError(call.name, call.arguments_problems or [call.arguments_error])
        if plan.validator is not None:
            problems = plan.validator(call.arguments)
            if problems:
                raise ToolArgumentsError(call.name, problems)
        params = dict(call.arguments)
        if plan.unwrappers:
            if plan.unwrappers_take_ctx:
                ctx = make_context(agent, call, tool, call.arguments, attempt, call.arguments, run)
            unwrapped = plan.unwrap(params, ctx, agent)
            params = unwrapped if isinstance(unwrapped, dict) else await unwrapped
        arguments = tool.validate(params)
        if on_execute is not None:
            await on_execute(call, params)
        innermost = _Innermost(agent, call, tool, params, arguments, run, attempt)
        if plan.wrappers:
            ctx = make_context(agent, call, tool, call.arguments, attempt, params, run)
            response = await plan.around(ctx, innermost)
        else:
            response = await innermost.run(params, arguments)
    except ToolError as exc:
        await agent.events.emit(AgentEvents.TOOL_CALL_ERROR, ToolCallErrorPayload(call, exc))
        response = _failure(call, str(exc))
    if plan.responders:
        if plan.responders_take_ctx and (ctx is None or ctx.parameters is not params):
            ctx = make_context(agent, call, tool, call.arguments, attempt, params, run)
        adapted = plan.adapt_response(response, ctx, agent)
        response = adapted if isinstance(adapted, ToolResponse) else await adapted
    if agent.events.has_handlers(AgentEvents.TOOL_CALL_AFTER):
        after = await agent.events.emit(
            AgentEvents.TOOL_CALL_AFTER, ToolCallAfter(call, tool, params, response)
        )
        response = after.response
    return response


class _Innermost:
    """The bottom of the ``around_call`` chain: ``TOOL_CALL_BEFORE``, then the tool."""

    __slots__ = ("agent", "arguments", "attempt", "call", "params", "run_context", "tool")

    def __init__(
        self,
        agent: AgentDefinition,
        call: ToolCall,
        tool: Tool,
        params: dict[str, Any],
        arguments: dict[str, Any],
        run: RunContext[Any],
        attempt: int,
    ) -> None:
        self.agent, self.call, self.tool = agent, call, tool
        self.params, self.arguments = params, arguments
        self.run_context, self.attempt = run, attempt

    def __call__(self, ctx: CallContext) -> Awaitable[ToolResponse]:
        params = ctx.parameters
        if params is self.params:
            return self.run(self.params, self.arguments)
        # An around_call changed the parameters: the tool validates them again.
        changed = dict(params)
        return self.run(changed, self.tool.validate(changed))

    async def run(self, params: dict[str, Any], arguments: dict[str, Any]) -> ToolResponse:
        """Emit ``TOOL_CALL_BEFORE`` (a handler may answer) and run the tool."""
        agent, call, tool = self.agent, self.call, self.tool
        if agent.events.has_handlers(AgentEvents.TOOL_CALL_BEFORE):
            before = ToolCallBefore(call, tool, params)
            before = await agent.events.emit(AgentEvents.TOOL_CALL_BEFORE, before)
            if before.response is not None:
                return _addressed(call, before.response)
            if before.parameters is not params:
                arguments = tool.validate(before.parameters)
        try:
            injections = None
            if tool.injected:
                run = self.run_context
                if "run" in tool.injected.values():
                    run = run.for_call(call, self.attempt)
                injections = {"agent": agent, "call": call, "run": run}
            value = await call_tool(agent, tool, arguments, call, injections)
        except ToolError as exc:
            await agent.events.emit(AgentEvents.TOOL_CALL_ERROR, ToolCallErrorPayload(call, exc))
            return _failure(call, str(exc))
        except UsageLimitExceeded:
            # A sub-agent counting into this run's usage went past a limit: the
            # limits cover the whole run, so it ends here too.
            raise
        except Exception as error:
            logger.error("tool %s raised %s", call.name, type(error).__name__, exc_info=error)
            await agent.events.emit(AgentEvents.TOOL_CALL_ERROR, ToolCallErrorPayload(call, error))
            if agent.tool_errors == "raise":
                raise
            return _failure(call, f"{type(error).__name__}: {error}")
        return ToolResponse(tool_name=call.name, tool_call_id=call.id, response=value)


def _addressed(call: ToolCall, response: ToolResponse) -> ToolResponse:
    if response.tool_call_id != call.id:
        raise GoodAgentError(
            f"a TOOL_CALL_BEFORE handler answered call '{call.id}' with a response to "
            f"call '{response.tool_call_id}'; build it with payload.answer(...)"
        )
    return response


async def call_tool(
    agent: AgentDefinition,
    tool: Any,
    arguments: dict[str, Any],
    call: ToolCall,
    injections: dict[str, Any] | None,
) -> Any:
    """Run the tool function with ``injections`` (see `Tool.run`). What it returns
    or raises leaves with the agent's secrets redacted (`agent_secrets`),
    before any adapter, observer or log.

    Past its time limit (the tool's ``timeout``, else the agent's ``tool_timeout``)
    the function is cancelled and `ToolTimeoutError` raised.
    """
    secrets = agent_secrets(agent)
    timeout = tool.timeout if tool.timeout is not None else agent.tool_timeout
    try:
        if timeout is None:
            value = await tool.run(arguments, injections)
        else:
            with anyio.move_on_after(timeout) as scope:
                value = await tool.run(arguments, injections, abandon_on_cancel=True)
            if scope.cancelled_caught:
                raise ToolTimeoutError(call.name, timeout)
    except ToolTimeoutError:
        raise
    except Exception as exc:
        error: BaseException = secrets.redact_error(exc) if secrets else exc
    else:
        return secrets.redact(value) if secrets else value
    raise error  # outside the handler: nothing unredacted is chained to it


async def execute_calls(
    agent: AgentDefinition,
    calls: list[ToolCall],
    plans: dict[str, ToolPlan],
    failures: Mapping[str, int] | None = None,
    *,
    run: RunContext[Any],
    on_execute: OnExecute | None = None,
    finished: dict[str, ToolResponse] | None = None,
) -> list[ToolResponse]:
    """Run ``calls`` concurrently; the responses come back in call order.

    At most ``agent.max_concurrency`` calls run at a time. A call of a
    ``sequential`` tool runs alone: the calls before it finish first, the calls
    after it start when it has finished.

    ``failures`` counts the failed calls of each tool so far in the run: a call's
    `CallContext.attempt` is that count plus one. ``finished`` receives each
    response by call id as soon as its call ends, so a caller that is cancelled
    while other calls still run knows which ones completed.
    """
    failed = failures or {}
    if len(calls) == 1:  # the usual turn: one call, no task group
        call = calls[0]
        attempt = failed.get(call.name, 0) + 1
        response = await execute_call(
            agent, call, plans, run=run, attempt=attempt, on_execute=on_execute
        )
        if finished is not None:
            finished[call.id] = response
        return [response]
    results: list[ToolResponse | None] = [None] * len(calls)

    async def run_one(index: int, call: ToolCall, limiter: anyio.CapacityLimiter | None) -> None:
        attempt = failed.get(call.name, 0) + 1
        if limiter is None:
            response = await execute_call(
                agent, call, plans, run=run, attempt=attempt, on_execute=on_execute
            )
        else:
            async with limiter:
                response = await execute_call(
                    agent, call, plans, run=run, attempt=attempt, on_execute=on_execute
                )
        results[index] = response
        if finished is not None:
            finished[call.id] = response

    for batch in _batches(calls, plans):
        if len(batch) == 1:
            await run_one(*batch[0], None)
            continue
        limit = agent.max_concurrency
        limiter = anyio.CapacityLimiter(limit) if limit is not None and limit < len(batch) else None
        async with anyio.create_task_group() as group:
            for index, call in batch:
                group.start_soon(run_one, index, call, limiter)
    return [r for r in results if r is not None]


def _batches(calls: list[ToolCall], plans: dict[str, ToolPlan]) -> list[list[tuple[int, ToolCall]]]:
    """``calls`` (with their index) cut into groups that may run at the same time:
    each call of a ``sequential`` tool is a group of its own, in call order."""
    batches: list[list[tuple[int, ToolCall]]] = []
    current: list[tuple[int, ToolCall]] = []
    for index, call in enumerate(calls):
        plan = plans.get(call.name)
        if plan is not None and plan.tool.sequential:
            if current:
                batches.append(current)
                current = []
            batches.append([(index, call)])
        else:
            current.append((index, call))
    if current:
        batches.append(current)
    return batches
