"""The run engine: ask the model, run its tool calls, repeat until it answers.

One loop serves `Agent.run`, `Agent.stream` and `Agent.call`. A
streamed run passes a ``sink`` that receives every
`run_events` event and asks the model for a stream; a plain
run passes none and asks for whole replies. Everything else (the adapter chain,
events, limits, typed output, approvals) is the same code. The run's state and
its tool calls live in `good_agent.core._run_state`.
"""

from __future__ import annotations

from typing import Any

import anyio

from good_agent.adapters import ToolPlan
from good_agent.core._execution import current_plans
from good_agent.core._run_state import (
    RunOptions,
    RunSetup,
    RunState,
    Sink,
    StepHook,
    result_message,
)
from good_agent.core._turns import request_model, stream_model
from good_agent.core.approvals import check_decisions, unanswered_calls
from good_agent.core.capture import note_taken_back
from good_agent.core.conversation import Conversation, _current
from good_agent.core.events import AgentEvents
from good_agent.core.instructions import with_system_text
from good_agent.core.output import OUTPUT_TOOL_NAME, OutputInvalid
from good_agent.core.output_validators import OutputRejected
from good_agent.core.payloads import RunEndPayload, RunStartPayload
from good_agent.core.results import RunResult
from good_agent.core.run_events import RunEndEvent, TurnEndEvent
from good_agent.core.steps import EndStep, ModelStep, ToolCallsStep, ToolResultsStep
from good_agent.models.base import ModelRequest
from good_agent.types.content import user_content
from good_agent.types.errors import (
    AgentRunError,
    MaxIterationsError,
    OutputValidationError,
    ToolDefinitionError,
)
from good_agent.types.messages import AssistantMessage, Message, ToolCall, ToolMessage, UserMessage
from good_agent.types.usage import Usage, UsageLimits

__all__ = ["RunOptions", "RunSetup", "Sink", "StepHook", "request_model", "run_engine"]


class _Run(RunState):
    """One run: the loop, its requests and how each answer ends it or goes on."""

    async def loop(self, pending: list[ToolCall]) -> RunResult[Any]:
        """Resume the ``pending`` calls (checked against the approvals), then run."""
        agent, setup = self.agent, self.setup
        approvals = self.options.approvals
        if self.options.tools is not None:
            # A clash of this run's tools with the agent's is refused before the
            # prompt joins the history.
            await current_plans(agent, self.options.tools, self.context)
        if approvals is not None:
            await self.resume(pending, approvals)
        if self.options.prompt is not None:
            await self.conversation.append(UserMessage(content=user_content(self.options.prompt)))
        instructions = setup.instructions
        self.instructions = await instructions.render(self.context) if instructions else None
        processors = setup.processors if setup.processors else None
        for index in range(setup.max_iterations):
            if self.usage.limited:
                self.stop(self.usage.exceeded(UsageLimits.before_request))
            plans = await current_plans(agent, self.options.tools, self.context)
            messages = list(self.messages)
            if processors is not None:
                messages = await processors.apply(messages, self.context)
            request = self.request(plans, messages, first=index == 0)
            if self.sink is None:
                response = await request_model(setup, request)
            else:
                response = await stream_model(setup, self.conversation, request, self.send)
            self.usage.add_response(response.usage)
            message = await self.conversation.append(response.to_message())
            assert isinstance(message, AssistantMessage)
            if self.sink is not None:
                await self.sink(TurnEndEvent(message, message.usage or Usage()))
            if self.usage.limited:
                self.stop(self.usage.exceeded(UsageLimits.after_response))
            if self.on_step is not None:
                await self.on_step(ModelStep(request, message))
            result = await self.answer(message, plans)
            if result is not None:
                return result
        raise MaxIterationsError(
            f"the model was still calling tools after {setup.max_iterations} requests "
            "(max_iterations); the history is on this error's .messages",
            self.messages,
        )

    def request(
        self, plans: dict[str, ToolPlan], messages: list[Message], *, first: bool
    ) -> ModelRequest:
        """The request of one model turn, with ``messages`` (the history as processed)."""
        setup, output = self.setup, self.options.output
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
        choice = self.options.tool_choice or setup.tool_choice
        if not first and choice not in (None, "auto", "none"):
            # A forced choice holds for the first request only: the model must be
            # able to answer afterwards.
            choice = "auto"
        if (
            output_tool
            and choice in (None, "auto")
            and "thinking" not in setup.settings
            and not (output is not None and output.allows_text)
        ):
            # The output tool is the way to answer. (Anthropic refuses a forced tool
            # with extended thinking: then the choice stays "auto"; a union with str
            # may be answered in text.)
            choice = "required"
        if self.instructions is not None:
            messages = with_system_text(messages, self.instructions)
        if output is not None:
            messages = output.with_instructions(messages)
        return ModelRequest(
            messages=messages,
            tools=tools,
            tool_choice=choice if tools else None,
            settings=dict(setup.settings),
            response_format=output.response_format()
            if output is not None and output.mode == "native"
            else None,
            output_schema=output.schema if output is not None and output.mode != "tool" else None,
        )

    async def answer(
        self, message: AssistantMessage, plans: dict[str, ToolPlan]
    ) -> RunResult[Any] | None:
        """Handle one model turn; a result ends the run, ``None`` asks the model again."""
        if message.tool_calls and self.on_step is not None:
            message = await self.calls_step(message)
        output, calls = self.options.output, message.tool_calls
        if output is not None and output.mode == "tool":
            finals = [call for call in calls if call.name == OUTPUT_TOOL_NAME]
            if finals:
                return await self.final_call(message, finals, plans)
        if calls:
            start = len(self.messages)
            result = await self.run_calls(message, calls, plans)
            if result is None and self.on_step is not None:
                added = self.messages[start:]
                results = [m for m in added if isinstance(m, ToolMessage)]
                await self.on_step(ToolResultsStep(list(calls), results))
            return result
        try:
            if output is None:
                value: Any = message.content or ""
            else:
                value = output.from_text(message.content)
            return self.result(message, await self.validated(value))
        except OutputInvalid as invalid:
            self.count_output_failure(invalid)
            text = self.retry_text(invalid, in_text=True)
            await self.conversation.append(UserMessage(content=text))
            return None

    async def calls_step(self, message: AssistantMessage) -> AssistantMessage:
        """Show the calls of ``message`` as a `ToolCallsStep`; calls changed
        there replace the reply in the history. Returns the reply to go on with."""
        assert self.on_step is not None
        step = ToolCallsStep(message, list(message.tool_calls))
        await self.on_step(step)
        if step.calls == message.tool_calls:
            return message
        changed = message.model_copy(update={"tool_calls": list(step.calls)})
        history = self.messages
        index = next(i for i in range(len(history) - 1, -1, -1) if history[i] is message)
        history[index] = changed
        return changed

    async def validated(self, value: Any) -> Any:
        """``value`` through the output function, if any, and the agent's output
        validators (`OutputRejected`)."""
        context = self.context.with_retry(self.output_failures)
        if self.options.output is not None:
            value = await self.options.output.complete(value, context)
        validators = self.setup.validators
        if not validators:
            return value
        return await validators.validate(value, context)

    def retry_text(self, invalid: OutputInvalid, *, in_text: bool = False) -> str:
        """What sends the model back after ``invalid``, with the one instruction of the
        output mode (``in_text``: the answer came as text, not through the output tool)."""
        output = self.options.output
        if output is None:
            return str(invalid)
        if isinstance(invalid, OutputRejected):
            return f"{invalid}\n{output.how_to_retry(in_text=in_text)}"
        return output.retry_prompt(invalid.problems, in_text=in_text)

    async def final_call(
        self, message: AssistantMessage, finals: list[ToolCall], plans: dict[str, ToolPlan]
    ) -> RunResult[Any] | None:
        output = self.options.output
        assert output is not None
        final, others = finals[0], [c for c in message.tool_calls if c is not finals[0]]
        try:
            if final.arguments_error is not None:
                raise OutputInvalid([final.arguments_error])
            value = await self.validated(output.from_arguments(final.arguments))
        except OutputInvalid as invalid:
            await self.append_result(
                final, result_message(final, self.retry_text(invalid), error=True)
            )
            self.count_output_failure(invalid)
            for extra in finals[1:]:
                note = f"only one {OUTPUT_TOOL_NAME} call is read per turn"
                await self.append_result(extra, result_message(extra, note, error=True))
            users = [c for c in others if c.name != OUTPUT_TOOL_NAME]
            if users:
                return await self.run_calls(message, users, plans)
            return None
        await self.append_result(
            final, result_message(final, "Final answer received.", error=False)
        )
        runnable: list[ToolCall] = []
        if self.options.end_strategy == "exhaustive":
            runnable = [
                c
                for c in others
                if c.name != OUTPUT_TOOL_NAME
                and not (c.name in plans and plans[c.name].tool.requires_approval)
            ]
        responses = await self.run_tools(runnable, plans) if runnable else []
        ran = {call.id: response for call, response in zip(runnable, responses, strict=True)}
        for other in others:  # the results in call order
            if other.id in ran:
                await self.record([other], [ran[other.id]], plans)
            else:
                note = "Not run: the final answer was already given."
                await self.append_result(other, result_message(other, note, error=False))
        return self.result(message, value)

    def count_output_failure(self, invalid: OutputInvalid) -> None:
        self.output_failures += 1
        retries = self.options.output_retries
        if self.output_failures > retries:
            output = self.options.output
            tries = f"after {retries} retr{'y' if retries == 1 else 'ies'} (output_retries)"
            if isinstance(invalid, OutputRejected):
                what = f"{invalid.by} rejected the answer {tries}"
            else:
                assert output is not None
                what = f"the answer did not match {output.name} {tries}"
            raise OutputValidationError(f"{what}: {invalid}", self.messages, invalid.problems)


async def run_engine(
    conversation: Conversation,
    setup: RunSetup,
    options: RunOptions,
    sink: Sink | None = None,
    on_step: StepHook | None = None,
) -> RunResult[Any]:
    """Run the loop once on ``conversation``: emits ``RUN_START`` / ``RUN_END`` around it.

    ``setup`` is what the definition gives the run (model, tools, instructions,
    limits, events). ``sink`` receives the events of a streamed run, ``on_step`` the
    steps of a run driven by `iter` (the run waits for it at
    each step). A run that fails (raises) before the model answered anything leaves
    the conversation as it was (its prompt is taken back, so a retry sends it once); a
    cancelled run keeps what it had, as a run that fails later does, with a result for
    every call.
    """
    messages = conversation.messages
    if conversation.running:
        raise AgentRunError(
            "another run of this agent is in progress on this conversation: runs of one "
            "conversation go one after the other (run others at the same time with "
            "agent.conversation() or agent.run(..., message_history=[...]))",
            messages,
        )
    pending = unanswered_calls(messages)
    if options.approvals is not None:
        check_decisions(pending, options.approvals, conversation.deferred)
    elif pending:
        ids = ", ".join(call.id for call in pending)
        raise AgentRunError(
            f"the history ends with tool calls that have no result ({ids}): resume them "
            "with agent.run(approvals={call_id: pending.approve() | False | 'reason'})",
            messages,
        )
    run = _Run(conversation, setup, options, sink, on_step)
    run_id = run.run_id
    output_type = options.output.type if options.output is not None else None
    start = RunStartPayload(
        run_id, options.prompt, output_type, sink is not None, options.approvals is not None
    )
    events, logger = setup.events, setup.logger
    conversation.running = True
    token = _current.set(conversation)
    before = _counts(run.usage)
    release = run.usage.enforce(options.limits)
    logger.debug("run %s started", run_id)
    try:
        await events.emit(AgentEvents.RUN_START, start)
        result = await run.loop(pending)
    except BaseException as error:
        logger.debug("run %s stopped: %s", run_id, type(error).__name__)
        with anyio.CancelScope(shield=True):
            if isinstance(error, Exception) and not _answered(messages, run.start):
                _take_back(run, error)
            else:
                await run.close_dangling(error)
            await events.emit(AgentEvents.RUN_END, RunEndPayload(run_id, None, error, run.usage))
        raise
    finally:
        _count_into(conversation, run, before)
        conversation.running = False
        _current.reset(token)
        release()
    logger.debug(
        "run %s ended: %d requests, %d tool calls%s",
        run_id,
        run.usage.requests,
        run.usage.tool_calls,
        ", waiting for approvals" if result.is_deferred else "",
    )
    token = _current.set(conversation)
    try:
        await events.emit(AgentEvents.RUN_END, RunEndPayload(run_id, result, None, run.usage))
    finally:
        _current.reset(token)
    await run.send(RunEndEvent(result))
    if on_step is not None:
        await on_step(EndStep(result))
    return result


def _answered(messages: list[Message], start: int) -> bool:
    """Whether the model answered anything since ``start`` (text, reasoning or a call)."""
    return any(
        isinstance(m, AssistantMessage) and (m.content or m.tool_calls or m.reasoning)
        for m in messages[start:]
    )


def _take_back(run: _Run, error: BaseException) -> None:
    """Leave the conversation as it was before a run the model never answered."""
    note_taken_back(run.messages)
    del run.messages[run.start :]
    run.conversation.deferred = run.saved_deferred
    if isinstance(error, AgentRunError):
        error.messages = list(run.messages)


def _counts(usage: Any) -> tuple[int, int, int, int]:
    return usage.requests, usage.input_tokens, usage.output_tokens, usage.tool_calls


def _count_into(conversation: Conversation, run: _Run, before: tuple[int, int, int, int]) -> None:
    """Add what this run counted to the conversation's usage."""
    after = _counts(run.usage)
    total = conversation.usage
    total.requests += after[0] - before[0]
    total.input_tokens += after[1] - before[1]
    total.output_tokens += after[2] - before[2]
    total.tool_calls += after[3] - before[3]
