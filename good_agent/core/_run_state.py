"""The state of one run and its tool calls: usage, limits, retries, approvals.

`RunState` holds what one run counts and does with the tool calls of a
model turn; `good_agent.core._loop` builds the loop (requests, answers,
typed output) on it.
"""

from __future__ import annotations

import logging
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio

from good_agent.adapters import ToolPlan
from good_agent.core._execution import current_plans, execute_call, execute_calls
from good_agent.core.approvals import (
    Approval,
    approves,
    call_digest,
    denial_text,
    hide_secrets,
    unanswered_calls,
)
from good_agent.core.capture import note_run
from good_agent.core.conversation import Conversation
from good_agent.core.events import EventBus
from good_agent.core.history_processors import HistoryProcessors
from good_agent.core.instructions import Instructions
from good_agent.core.output import EndStrategy, OutputSpec
from good_agent.core.output_validators import OutputValidators
from good_agent.core.results import DeferredCall, RunResult
from good_agent.core.run_context import RunContext
from good_agent.core.run_events import RunEvent, ToolExecuteEvent, ToolResultEvent
from good_agent.core.steps import RunStep
from good_agent.models.base import LanguageModel, ModelRequest, ModelResponse
from good_agent.providers.types import ToolChoice
from good_agent.tools.toolset import Toolset
from good_agent.types.content import UserPrompt
from good_agent.types.errors import AgentRunError, ToolRetriesExceededError
from good_agent.types.messages import (
    AssistantMessage,
    Message,
    ToolCall,
    ToolMessage,
    ToolResponse,
)
from good_agent.types.usage import RunUsage, UsageLimitExceeded, UsageLimits

Sink = Callable[[RunEvent], Awaitable[None]]
"""Receives the events of a streamed run."""

StepHook = Callable[[RunStep], Awaitable[None]]
"""Receives each step of a run driven by `iter`; the run
waits until it returns."""

ModelWrapper = Callable[
    [ModelRequest, Callable[[ModelRequest], Awaitable[ModelResponse]]], Awaitable[ModelResponse]
]
"""A component's ``around_model_request`` hook."""

__all__ = ["RunOptions", "RunSetup", "RunState", "Sink", "StepHook", "result_message"]


@dataclass(slots=True)
class RunSetup:
    """What the definition gives one run; the engine reads nothing else of the agent.

    ``agent`` is the definition as tools, adapters and event handlers receive it (the
    engine uses its public ``events``, ``tools`` and ``adapter_chain`` only).
    """

    agent: Any
    model: LanguageModel
    settings: dict[str, Any]
    events: EventBus
    logger: logging.Logger
    instructions: Instructions | None = None
    validators: OutputValidators | None = None
    processors: HistoryProcessors | None = None
    model_wrappers: Sequence[ModelWrapper] = field(default_factory=list)
    max_iterations: int = 10
    max_tool_retries: int = 3
    tool_choice: ToolChoice | None = None


@dataclass(slots=True)
class RunOptions:
    """What one run asks for, beyond the agent's own settings."""

    prompt: UserPrompt | None = None
    output: OutputSpec | None = None
    limits: UsageLimits | None = None
    approvals: Mapping[str, Approval] | None = None
    tool_choice: ToolChoice | None = None
    output_retries: int = 1
    tools: Toolset | None = None
    """Tools added for this run only."""
    deps: Any = None
    usage: RunUsage | None = None
    """Totals to count into (another run's, for a sub-agent) instead of new ones."""
    end_strategy: EndStrategy = "early"
    """What happens to the other calls of the turn that gave the final output."""


class _Deferred(Exception):
    """Stops a call that needs approval once its parameters are known."""

    def __init__(self, parameters: dict[str, Any]) -> None:
        super().__init__("deferred for approval")
        self.parameters = parameters


async def _defer(call: ToolCall, parameters: dict[str, Any]) -> None:
    raise _Deferred(parameters)


def result_message(call: ToolCall, text: str, *, error: bool) -> ToolMessage:
    content = f"Error: {text}" if error else text
    return ToolMessage(tool_call_id=call.id, tool_name=call.name, content=content, is_error=error)


class RunState:
    """The state of one run: usage, failure counts, the events it emits, its tool calls."""

    def __init__(
        self,
        conversation: Conversation,
        setup: RunSetup,
        options: RunOptions,
        sink: Sink | None,
        on_step: StepHook | None = None,
    ) -> None:
        self.conversation = conversation
        self.setup = setup
        self.agent = agent = setup.agent
        self.messages: list[Message] = conversation.messages
        self.options = options
        self.sink = sink
        self.on_step = on_step
        self.usage = options.usage if options.usage is not None else RunUsage()
        self.failures: Counter[str] = Counter()
        self.output_failures = 0
        self.start = len(self.messages)
        self.saved_deferred = dict(conversation.deferred)
        note_run(self.messages, self.start)
        self.run_id = uuid.uuid4().hex
        self.context: RunContext[Any] = RunContext(
            deps=options.deps,
            agent=agent,
            usage=self.usage,
            messages=self.messages,
            run_id=self.run_id,
            prompt=options.prompt,
            conversation=conversation,
            run_model=setup.model,
        )
        self.instructions: str | None = None
        self.finished: dict[str, ToolResponse] = {}
        """The responses of the calls being run that have finished, by call id."""

    async def send(self, event: RunEvent) -> None:
        if self.sink is not None:
            await self.sink(event)

    def stop(self, reason: str | None) -> None:
        if reason is not None:
            raise UsageLimitExceeded(
                f"usage limit: {reason}; the usage and history are on this error",
                self.messages,
                self.usage,
            )

    def result(
        self, message: AssistantMessage, output: Any, deferred: list[DeferredCall] | None = None
    ) -> RunResult[Any]:
        return RunResult(
            output_or_none=output,
            message=message,
            new_messages=list(self.messages[self.start :]),
            usage=self.usage,
            deferred=deferred or [],
            history=list(self.messages),
        )

    # tool calls

    async def run_calls(
        self, message: AssistantMessage, calls: list[ToolCall], plans: dict[str, ToolPlan]
    ) -> RunResult[Any] | None:
        waiting = [c for c in calls if c.name in plans and plans[c.name].tool.requires_approval]
        if not waiting:
            await self.record(calls, await self.run_tools(calls, plans), plans)
            return None
        deferred: list[DeferredCall] = []
        for call in waiting:
            try:
                response = await execute_call(
                    self.agent,
                    call,
                    plans,
                    run=self.context,
                    attempt=self.failures[call.name] + 1,
                    on_execute=_defer,
                )
            except _Deferred as stop:
                arguments = hide_secrets(call.arguments)
                parameters = hide_secrets(stop.parameters)
                digest = call_digest(call)
                deferred.append(DeferredCall(call.id, call.name, arguments, parameters, digest))
            else:  # refused before it could run (invalid arguments): answer it now
                await self.record([call], [response], plans)
        now = [c for c in calls if c not in waiting]
        if now:
            await self.record(now, await self.run_tools(now, plans), plans)
        if deferred:
            # What this agent deferred: a bare True approves these exact calls only.
            self.conversation.deferred = {d.call_id: d.digest for d in deferred}
            return self.result(message, None, deferred)
        return None

    async def run_tools(
        self, calls: list[ToolCall], plans: dict[str, ToolPlan]
    ) -> list[ToolResponse]:
        """Run ``calls`` concurrently; each finished response is kept in `finished`
        at once, so a cancellation loses none of them."""
        if self.usage.limited:
            count = len(calls)
            self.stop(
                self.usage.exceeded(lambda limits, usage: limits.before_tool_calls(usage, count))
            )
        hook = self.executing if self.sink is not None else None
        self.finished = {}
        try:
            responses = await execute_calls(
                self.agent,
                calls,
                plans,
                self.failures,
                run=self.context,
                on_execute=hook,
                finished=self.finished,
            )
        except BaseExceptionGroup as group:
            # Parallel calls run in a task group: one tool's exception (with
            # tool_errors="raise") reaches the caller as itself, not in a group.
            if len(group.exceptions) == 1:
                raise group.exceptions[0] from None
            raise
        self.usage.tool_calls += len(calls)
        return responses

    async def executing(self, call: ToolCall, parameters: dict[str, Any]) -> None:
        await self.send(ToolExecuteEvent(call, hide_secrets(parameters)))

    async def record(
        self,
        calls: list[ToolCall],
        responses: list[ToolResponse],
        plans: dict[str, ToolPlan],
        uncounted: frozenset[str] = frozenset(),
    ) -> None:
        """Append the results in call order; count failures (but those of ``uncounted``
        call ids) against each tool's retry limit."""
        failed: list[tuple[ToolCall, ToolResponse]] = []
        for call, response in zip(calls, responses, strict=True):
            await self.append_result(call, ToolMessage.from_response(response))
            if not response.success and call.id not in uncounted:
                self.failures[call.name] += 1
                failed.append((call, response))
        for call, response in failed:
            plan = plans.get(call.name)
            custom = plan.tool.retries if plan is not None else None
            limit = self.setup.max_tool_retries if custom is None else custom
            if self.failures[call.name] > limit:
                raise ToolRetriesExceededError(
                    f"tool '{call.name}' failed {self.failures[call.name]} times in this run "
                    f"(its retry limit is {limit}); last error: {response.error}",
                    self.messages,
                )

    async def append_result(self, call: ToolCall, message: ToolMessage) -> None:
        appended = await self.conversation.append(message)
        if self.sink is not None:
            assert isinstance(appended, ToolMessage)
            await self.sink(ToolResultEvent(call, appended))

    async def resume(self, pending: list[ToolCall], approvals: Mapping[str, Approval]) -> None:
        """Apply the (checked) decisions on the calls that waited for approval; the
        results are appended in call order, denials among them."""
        self.conversation.deferred = {}
        plans = await current_plans(self.agent, self.options.tools, self.context)
        approved = [c for c in pending if approves(approvals[c.id])]
        ran = iter(await self.run_tools(approved, plans) if approved else [])
        responses = [
            next(ran)
            if call in approved
            else ToolResponse(
                tool_name=call.name,
                tool_call_id=call.id,
                success=False,
                error=denial_text(approvals[call.id]),
            )
            for call in pending
        ]
        denied = frozenset(c.id for c in pending if c not in approved)
        await self.record(pending, responses, plans, uncounted=denied)

    async def close_dangling(self, error: BaseException) -> None:
        """Answer every call the run leaves without a result, so the history stays valid."""
        if isinstance(error, anyio.get_cancelled_exc_class()):
            reason = "the run was cancelled before this call finished"
        else:
            reason = f"the run stopped before this call finished ({type(error).__name__})"
        for call in unanswered_calls(self.messages):
            # appended without an event: nobody may be reading the stream any more
            finished = self.finished.get(call.id)
            if finished is not None:  # it ran to the end: the model must not run it again
                await self.conversation.append(ToolMessage.from_response(finished))
            else:
                await self.conversation.append(result_message(call, reason, error=True))
        if isinstance(error, AgentRunError):
            error.messages = list(self.messages)
