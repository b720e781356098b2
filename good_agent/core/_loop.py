"""The run engine: ask the model, run its tool calls, repeat until it answers.

One loop serves :meth:`Agent.run`, :meth:`Agent.stream` and :meth:`Agent.call`. A
streamed run passes a ``sink`` that receives every
:mod:`~good_agent.core.run_events` event and asks the model for a stream; a plain
run passes none and asks for whole replies. Everything else (the adapter chain,
events, limits, typed output, approvals) is the same code.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio

from good_agent.adapters import ToolPlan
from good_agent.core._execution import current_plans, execute_call, execute_calls
from good_agent.core._turns import request_model, stream_model
from good_agent.core.approvals import (
    Approval,
    check_decisions,
    denial_text,
    hide_secrets,
    unanswered_calls,
)
from good_agent.core.errors import (
    AgentRunError,
    MaxIterationsError,
    OutputValidationError,
    ToolDefinitionError,
    ToolRetriesExceededError,
)
from good_agent.core.events import AgentEvents
from good_agent.core.messages import (
    AssistantMessage,
    ToolCall,
    ToolMessage,
    ToolResponse,
    Usage,
    UserMessage,
)
from good_agent.core.output import OUTPUT_TOOL_NAME, OutputInvalid, OutputSpec
from good_agent.core.payloads import RunEndPayload, RunStartPayload
from good_agent.core.results import DeferredCall, RunResult
from good_agent.core.run_events import (
    RunEndEvent,
    RunEvent,
    ToolExecuteEvent,
    ToolResultEvent,
    TurnEndEvent,
)
from good_agent.core.usage import RunUsage, UsageLimitExceeded, UsageLimits
from good_agent.models.base import ModelRequest
from good_agent.providers.types import ToolChoice

if TYPE_CHECKING:
    from good_agent.core.agent import Agent

Sink = Callable[[RunEvent], Awaitable[None]]
"""Receives the events of a streamed run."""

__all__ = ["RunOptions", "Sink", "request_model", "run_engine"]


@dataclass(slots=True)
class RunOptions:
    """What one run asks for, beyond the agent's own settings."""

    prompt: str | None = None
    output: OutputSpec | None = None
    limits: UsageLimits | None = None
    approvals: Mapping[str, Approval] | None = None
    tool_choice: ToolChoice | None = None
    output_retries: int = 1


class _Deferred(Exception):
    """Stops a call that needs approval once its parameters are known."""

    def __init__(self, parameters: dict[str, Any]) -> None:
        super().__init__("deferred for approval")
        self.parameters = parameters


async def _defer(call: ToolCall, parameters: dict[str, Any]) -> None:
    raise _Deferred(parameters)


def _result_message(call: ToolCall, text: str, *, error: bool) -> ToolMessage:
    content = f"Error: {text}" if error else text
    return ToolMessage(tool_call_id=call.id, tool_name=call.name, content=content, is_error=error)


class _Run:
    """The state of one run: usage, failure counts, and the events it emits."""

    def __init__(self, agent: Agent, options: RunOptions, sink: Sink | None) -> None:
        self.agent = agent
        self.options = options
        self.sink = sink
        self.limits = options.limits or UsageLimits()
        self.usage = RunUsage()
        self.failures: Counter[str] = Counter()
        self.output_failures = 0
        self.start = len(agent.messages)

    async def send(self, event: RunEvent) -> None:
        if self.sink is not None:
            await self.sink(event)

    def stop(self, reason: str | None) -> None:
        if reason is not None:
            raise UsageLimitExceeded(
                f"usage limit: {reason}; the usage and history are on this error",
                self.agent.messages,
                self.usage,
            )

    def result(
        self, message: AssistantMessage, output: Any, deferred: list[DeferredCall] | None = None
    ) -> RunResult[Any]:
        return RunResult(
            output=output,
            message=message,
            new_messages=list(self.agent.messages[self.start :]),
            usage=self.usage,
            deferred=deferred or [],
        )

    # the loop

    async def loop(self) -> RunResult[Any]:
        agent = self.agent
        approvals = self.options.approvals
        if approvals is not None:
            await self.resume(unanswered_calls(agent.messages), approvals)
        if self.options.prompt is not None:
            await agent.append(UserMessage(content=self.options.prompt))
        for index in range(agent.max_iterations):
            self.stop(self.limits.before_request(self.usage))
            plans = await current_plans(agent)
            request = self.request(plans, first=index == 0)
            if self.sink is None:
                response = await request_model(agent, request)
            else:
                response = await stream_model(agent, request, self.send)
            self.usage.add_response(response.usage)
            message = await agent.append(response.to_message())
            assert isinstance(message, AssistantMessage)
            await self.send(TurnEndEvent(message, message.usage or Usage()))
            self.stop(self.limits.after_response(self.usage))
            result = await self.answer(message, plans)
            if result is not None:
                return result
        raise MaxIterationsError(
            f"the model was still calling tools after {agent.max_iterations} requests "
            "(max_iterations); the history is on this error's .messages",
            agent.messages,
        )

    def request(self, plans: dict[str, ToolPlan], *, first: bool) -> ModelRequest:
        agent, output = self.agent, self.options.output
        tools = [plan.signature for plan in plans.values()]
        output_tool = output is not None and output.mode == "tool"
        if output_tool:
            assert output is not None
            if OUTPUT_TOOL_NAME in plans:
                raise ToolDefinitionError(
                    f"the agent has a tool named '{OUTPUT_TOOL_NAME}', the name of the output "
                    "tool of a typed run: rename it, or use output_mode='prompted' or 'native'"
                )
            tools.append(output.tool_signature())
        choice = self.options.tool_choice or agent.tool_choice
        if not first and choice not in (None, "auto", "none"):
            # A forced choice holds for the first request only: the model must be
            # able to answer afterwards.
            choice = "auto"
        if output_tool and choice in (None, "auto") and "thinking" not in agent.model_settings:
            # The output tool is the way to answer. (Anthropic refuses a forced tool
            # with extended thinking: then the choice stays "auto".)
            choice = "required"
        messages = list(agent.messages)
        if output is not None:
            messages = output.with_instructions(messages)
        return ModelRequest(
            messages=messages,
            tools=tools,
            tool_choice=choice if tools else None,
            settings=dict(agent.model_settings),
            response_format=output.response_format()
            if output is not None and output.mode == "native"
            else None,
        )

    async def answer(
        self, message: AssistantMessage, plans: dict[str, ToolPlan]
    ) -> RunResult[Any] | None:
        """Handle one model turn; a result ends the run, ``None`` asks the model again."""
        output, calls = self.options.output, message.tool_calls
        if output is not None and output.mode == "tool":
            finals = [call for call in calls if call.name == OUTPUT_TOOL_NAME]
            if finals:
                return await self.final_call(message, finals, plans)
        if calls:
            return await self.run_calls(message, calls, plans)
        if output is None:
            return self.result(message, message.content or "")
        try:
            return self.result(message, output.from_text(message.content))
        except OutputInvalid as invalid:
            self.count_output_failure(invalid)
            if output.mode == "tool":
                text = f"Call the {OUTPUT_TOOL_NAME} tool to give your final answer."
                text = f"{output.retry_prompt(invalid.problems)}\n{text}"
            else:
                text = output.retry_prompt(invalid.problems)
            await self.agent.append(UserMessage(content=text))
            return None

    async def final_call(
        self, message: AssistantMessage, finals: list[ToolCall], plans: dict[str, ToolPlan]
    ) -> RunResult[Any] | None:
        output = self.options.output
        assert output is not None
        final, others = finals[0], [c for c in message.tool_calls if c is not finals[0]]
        try:
            if final.arguments_error is not None:
                raise OutputInvalid([final.arguments_error])
            value = output.from_arguments(final.arguments)
        except OutputInvalid as invalid:
            await self.append_result(
                final, _result_message(final, output.retry_prompt(invalid.problems), error=True)
            )
            self.count_output_failure(invalid)
            for extra in finals[1:]:
                note = f"only one {OUTPUT_TOOL_NAME} call is read per turn"
                await self.append_result(extra, _result_message(extra, note, error=True))
            users = [c for c in others if c.name != OUTPUT_TOOL_NAME]
            if users:
                return await self.run_calls(message, users, plans)
            return None
        await self.append_result(
            final, _result_message(final, "Final answer received.", error=False)
        )
        for other in others:
            note = "Not run: the final answer was already given."
            await self.append_result(other, _result_message(other, note, error=False))
        return self.result(message, value)

    def count_output_failure(self, invalid: OutputInvalid) -> None:
        self.output_failures += 1
        retries = self.options.output_retries
        if self.output_failures > retries:
            output = self.options.output
            assert output is not None
            raise OutputValidationError(
                f"the answer did not match {output.name} after {retries} retr"
                f"{'y' if retries == 1 else 'ies'} (output_retries): {invalid}",
                self.agent.messages,
                invalid.problems,
            )

    # tool calls

    async def run_calls(
        self, message: AssistantMessage, calls: list[ToolCall], plans: dict[str, ToolPlan]
    ) -> RunResult[Any] | None:
        waiting = [c for c in calls if c.name in plans and plans[c.name].tool.requires_approval]
        deferred: list[DeferredCall] = []
        for call in waiting:
            try:
                response = await execute_call(self.agent, call, plans, on_execute=_defer)
            except _Deferred as stop:
                arguments = hide_secrets(call.arguments)
                parameters = hide_secrets(stop.parameters)
                deferred.append(DeferredCall(call.id, call.name, arguments, parameters))
            else:  # refused before it could run (invalid arguments): answer it now
                await self.record([call], [response], plans)
        now = [c for c in calls if c not in waiting]
        if now:
            await self.execute(now, plans)
        if deferred:
            return self.result(message, None, deferred)
        return None

    async def execute(self, calls: list[ToolCall], plans: dict[str, ToolPlan]) -> None:
        self.stop(self.limits.before_tool_calls(self.usage, len(calls)))
        hook = self.executing if self.sink is not None else None
        try:
            responses = await execute_calls(self.agent, calls, plans, on_execute=hook)
        except BaseExceptionGroup as group:
            # Parallel calls run in a task group: one tool's exception (with
            # tool_errors="raise") reaches the caller as itself, not in a group.
            if len(group.exceptions) == 1:
                raise group.exceptions[0] from None
            raise
        self.usage.tool_calls += len(calls)
        await self.record(calls, responses, plans)

    async def executing(self, call: ToolCall, parameters: dict[str, Any]) -> None:
        await self.send(ToolExecuteEvent(call, hide_secrets(parameters)))

    async def record(
        self, calls: list[ToolCall], responses: list[ToolResponse], plans: dict[str, ToolPlan]
    ) -> None:
        for call, response in zip(calls, responses, strict=True):
            await self.append_result(call, ToolMessage.from_response(response))
            if not response.success:
                self.failures[call.name] += 1
        for call, response in zip(calls, responses, strict=True):
            plan = plans.get(call.name)
            custom = plan.tool.retries if plan is not None else None
            limit = self.agent.max_tool_retries if custom is None else custom
            if self.failures[call.name] > limit:
                raise ToolRetriesExceededError(
                    f"tool '{call.name}' failed {self.failures[call.name]} times in this run "
                    f"(its retry limit is {limit}); last error: {response.error}",
                    self.agent.messages,
                )

    async def append_result(self, call: ToolCall, message: ToolMessage) -> None:
        appended = await self.agent.append(message)
        assert isinstance(appended, ToolMessage)
        await self.send(ToolResultEvent(call, appended))

    async def resume(self, pending: list[ToolCall], approvals: Mapping[str, Approval]) -> None:
        """Apply the decisions on the calls that waited for approval."""
        plans = await current_plans(self.agent)
        approved = [call for call in pending if approvals[call.id] is True]
        for call in pending:
            decision = approvals[call.id]
            if decision is not True:
                await self.append_result(
                    call, _result_message(call, denial_text(decision), error=True)
                )
        if approved:
            await self.execute(approved, plans)

    async def close_dangling(self, error: BaseException) -> None:
        """Answer every call the run leaves without a result, so the history stays valid."""
        if isinstance(error, anyio.get_cancelled_exc_class()):
            reason = "the run was cancelled before this call finished"
        else:
            reason = f"the run stopped before this call finished ({type(error).__name__})"
        for call in unanswered_calls(self.agent.messages):
            # appended without an event: nobody may be reading the stream any more
            await self.agent.append(_result_message(call, reason, error=True))
        if isinstance(error, AgentRunError):
            error.messages = list(self.agent.messages)


async def run_engine(agent: Agent, options: RunOptions, sink: Sink | None = None) -> RunResult[Any]:
    """Run the agent loop once: emits ``RUN_START`` / ``RUN_END`` around it."""
    if agent._running:
        raise AgentRunError(
            "another run of this agent is in progress: its history is one conversation, "
            "so runs of one agent go one after the other (use one agent per conversation)",
            agent.messages,
        )
    pending = unanswered_calls(agent.messages)
    if options.approvals is not None:
        check_decisions(pending, options.approvals)
    elif pending:
        ids = ", ".join(call.id for call in pending)
        raise AgentRunError(
            f"the history ends with tool calls that have no result ({ids}): resume them "
            "with agent.run(approvals={call_id: True | False | 'reason'})",
            agent.messages,
        )
    run = _Run(agent, options, sink)
    run_id = uuid.uuid4().hex
    output_type = options.output.type if options.output is not None else None
    start = RunStartPayload(
        run_id, options.prompt, output_type, sink is not None, options.approvals is not None
    )
    agent._running = True
    try:
        await agent.events.emit(AgentEvents.RUN_START, start)
        result = await run.loop()
    except BaseException as error:
        with anyio.CancelScope(shield=True):
            await run.close_dangling(error)
            await agent.events.emit(
                AgentEvents.RUN_END, RunEndPayload(run_id, None, error, run.usage)
            )
        raise
    finally:
        agent._running = False
    await agent.events.emit(AgentEvents.RUN_END, RunEndPayload(run_id, result, None, run.usage))
    await run.send(RunEndEvent(result))
    return result
