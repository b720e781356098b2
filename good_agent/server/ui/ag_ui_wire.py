"""The AG-UI protocol: a ``RunAgentInput`` in, the ``ag_ui.core`` events out.

Input. ``messages`` is the conversation as the client knows it. Its trailing user and
tool messages (after the last assistant message) are what is new: the user's text is
the prompt, a tool message answers a call the frontend ran. The messages before them
are the history, used only when the server keeps no store. A user message whose id the
stored thread holds is not taken again; an input with nothing new is a 400. ``tools`` are frontend
tools: the agent may call them, and the run ends at such a call, which the frontend
answers in the next input. ``resume`` answers approvals:
``interruptId`` is the approval id of the call that was shown; status ``resolved`` with
payload ``{"approved": true}`` runs it, any other answer denies it (``payload.reason``
is told to the model). ``forwardedProps.model`` picks a model.

Output. Run started; reasoning start/message start/content/message end/end; text message
start/content/end; tool call start/args/end; a tool
call result per call the server ran (a call's start names its assistant message in
``parentMessageId``); a messages snapshot of the whole thread (the client's ids kept,
the system prompt left out); run
finished, whose outcome is an interrupt per call waiting for approval (``id`` = its
approval id, a keyed digest bound to the thread's owner, the thread and the call;
``toolCallId``, and ``metadata`` holding the tool name, arguments and the
parameters after the adapter chain, secrets hidden), or success naming the frontend
calls left to answer. A failed run ends with run error.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import aclosing
from typing import Any

from ag_ui import core as ag
from ag_ui.encoder import EventEncoder
from pydantic import ValidationError

from good_agent.core.approvals import call_digest, unanswered_calls
from good_agent.core.run_events import RunEvent
from good_agent.server.common.errors import bad_request
from good_agent.server.ui.run_steps import (
    ApprovalRequest,
    CallArgs,
    CallEnd,
    CallResult,
    CallStart,
    PartDelta,
    PartEnd,
    PartStart,
    RunError,
    RunFinish,
    RunSteps,
    Step,
    TurnEnd,
    run_steps,
)
from good_agent.server.ui.session import Decision, ToolResult, Turn, frontend_tool
from good_agent.server.ui.wire_common import field_path
from good_agent.types.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)

APPROVAL_REASON = "tool_approval"
"""The ``reason`` of the interrupt that asks for a tool call's approval."""


def parse_input(body: Any) -> ag.RunAgentInput:
    """The ``RunAgentInput`` in ``body``; a 400 naming the first wrong field otherwise."""
    try:
        return ag.RunAgentInput.model_validate(body)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        where = field_path(error["loc"])
        raise bad_request(f"{where}: {error['msg']}", where) from None


def to_turn(data: ag.RunAgentInput) -> Turn:
    """The protocol-neutral turn ``data`` asks for (a 400 naming a field it cannot take)."""
    messages = list(data.messages)
    start = len(messages)
    while start > 0 and messages[start - 1].role in ("user", "tool"):
        start -= 1
    prompts: list[tuple[str, str]] = []
    results: list[ToolResult] = []
    for index in range(start, len(messages)):
        message = messages[index]
        if isinstance(message, ag.ToolMessage):
            results.append(
                ToolResult(
                    message.tool_call_id,
                    message.error or _text(message.content, f"messages.{index}.content"),
                    is_error=message.error is not None,
                    field=f"messages.{index}.toolCallId",
                    message_id=message.id,
                )
            )
        elif isinstance(message, ag.UserMessage):
            prompts.append((message.id, _text(message.content, f"messages.{index}.content")))
    model = None
    props = data.forwarded_props
    if isinstance(props, dict) and props.get("model") is not None:
        model = str(props["model"])
    tools = []
    for index, tool in enumerate(data.tools or []):
        try:
            tools.append(frontend_tool(tool.name, tool.description, tool.parameters))
        except ValueError as exc:
            raise bad_request(str(exc), f"tools.{index}.parameters") from None
    decisions = _decisions(data.resume or [])
    if not prompts and not results and not decisions:
        raise bad_request(
            "the input has no new user or tool message after the last assistant message, "
            "and resumes nothing: there is nothing to run",
            "messages",
        )
    return Turn(
        thread_id=data.thread_id,
        history=_history(messages[:start]),
        prompt="\n\n".join(text for _, text in prompts) if prompts else None,
        client_prompts=prompts,
        prompt_id=prompts[-1][0] if prompts else None,
        results=results,
        decisions=decisions,
        frontend_tools=tools,
        model=model,
        model_field="forwardedProps.model",
    )


def _text(content: Any, where: str) -> str:
    if isinstance(content, str):
        return content
    texts = []
    for number, part in enumerate(content):
        if not isinstance(part, ag.TextPart):
            raise bad_request(f"{where}.{number}: only text parts are accepted", where)
        texts.append(part.text)
    return "".join(texts)


def _decisions(entries: list[ag.ResumeEntry]) -> dict[str, Decision]:
    decisions: dict[str, Decision] = {}
    for index, entry in enumerate(entries):
        payload = entry.payload
        approved = entry.status == "resolved" and (
            payload is True or (isinstance(payload, dict) and payload.get("approved") is True)
        )
        reason = payload.get("reason") if isinstance(payload, dict) else None
        decisions[entry.interrupt_id] = Decision(
            approved,
            str(reason) if reason and not approved else None,
            f"resume.{index}.interruptId",
        )
    return decisions


def _history(messages: list[Any]) -> list[Message]:
    """The client's earlier messages as a history (its system messages are not taken)."""
    history: list[Message] = []
    names: dict[str, str] = {}
    for index, message in enumerate(messages):
        if isinstance(message, ag.UserMessage):
            history.append(
                UserMessage(content=_text(message.content, f"messages.{index}"), id=message.id)
            )
        elif isinstance(message, ag.AssistantMessage):
            calls = []
            for call in message.tool_calls or []:
                names[call.id] = call.function.name
                calls.append(
                    ToolCall(
                        id=call.id,
                        name=call.function.name,
                        arguments=_arguments(call.function.arguments),
                    )
                )
            history.append(
                AssistantMessage(content=message.content, tool_calls=calls, id=message.id)
            )
        elif isinstance(message, ag.ToolMessage):
            history.append(
                ToolMessage(
                    tool_call_id=message.tool_call_id,
                    tool_name=names.get(message.tool_call_id, ""),
                    content=message.error or _text(message.content, f"messages.{index}.content"),
                    is_error=message.error is not None,
                    id=message.id,
                )
            )
    return history


def _arguments(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def snapshot(messages: list[Message]) -> list[Any]:
    """A thread's history as AG-UI messages: each keeps the id the client gave it (one
    the server made, its own); the system prompt is the server's and is left out."""
    out: list[Any] = []
    for index, message in enumerate(messages):
        mid = getattr(message, "id", None) or f"m{index}"
        if isinstance(message, SystemMessage):
            continue
        if isinstance(message, UserMessage):
            content = message.content if isinstance(message.content, str) else message.text
            out.append(ag.UserMessage(id=mid, content=content))
        elif isinstance(message, AssistantMessage):
            calls = [
                ag.ToolCall(
                    id=call.id,
                    function=ag.FunctionCall(name=call.name, arguments=json.dumps(call.arguments)),
                )
                for call in message.tool_calls
            ]
            out.append(
                ag.AssistantMessage(id=mid, content=message.content, tool_calls=calls or None)
            )
        elif isinstance(message, ToolMessage):
            out.append(
                ag.ToolMessage(
                    id=message.id or f"res_{message.tool_call_id}",
                    tool_call_id=message.tool_call_id,
                    content=message.content,
                    error=message.content if message.is_error else None,
                )
            )
    return out


def thread_view(
    thread_id: str,
    history: list[Message],
    own_tools: frozenset[str],
    approval_id: Callable[[str], str],
) -> dict[str, Any]:
    """What ``GET /threads/{id}`` answers: the thread's messages as AG-UI messages (as the
    snapshot sends them), the interrupts of the calls waiting for approval (as the run
    that stopped at them sent them, ``metadata.parameters`` aside) and the ids of the
    frontend calls waiting for a result."""
    interrupts: list[dict[str, Any]] = []
    frontend: list[str] = []
    for call in unanswered_calls(history):
        if call.name not in own_tools:
            frontend.append(call.id)
            continue
        interrupt = ag.Interrupt(
            id=approval_id(call_digest(call)),
            reason=APPROVAL_REASON,
            message=f"Run {call.name}?",
            tool_call_id=call.id,
            metadata={"toolName": call.name, "arguments": call.arguments},
            response_schema=APPROVAL_SCHEMA,
        )
        interrupts.append(interrupt.model_dump(by_alias=True, exclude_none=True, mode="json"))
    messages = [
        m.model_dump(by_alias=True, exclude_none=True, mode="json") for m in snapshot(history)
    ]
    return {
        "threadId": thread_id,
        "messages": messages,
        "interrupts": interrupts,
        "pendingToolCallIds": frontend,
    }


class EventTranslator:
    """Writes a run's steps (`good_agent.server.ui.run_steps`) as AG-UI events: text and
    reasoning messages and tool calls framed start...end, the snapshot and the outcome
    at the end."""

    def __init__(
        self,
        thread_id: str,
        run_id: str,
        frontend: set[str],
        approval_id: Callable[[str], str] = str,
    ) -> None:
        self.thread_id, self.run_id = thread_id, run_id
        self.frontend = frontend
        self.approval_id = approval_id
        """The id shown for a waiting call, from its digest."""
        self.approvals: list[ApprovalRequest] = []

    def steps(self) -> RunSteps:
        """The translator of run events into steps, for this run."""
        return RunSteps(self.approval_id, frozenset(self.frontend))

    def started(self) -> ag.RunStartedEvent:
        """The first event."""
        return ag.RunStartedEvent(thread_id=self.thread_id, run_id=self.run_id)

    def render(self, step: Step, history: Callable[[], list[Message]]) -> list[ag.BaseEvent]:
        """The AG-UI events of one step (``history`` gives the thread's history, for the
        snapshot when the run finishes)."""
        if isinstance(step, PartDelta):
            if step.kind == "text":
                return [ag.TextMessageContentEvent(message_id=step.id, delta=step.text)]
            return [ag.ReasoningMessageContentEvent(message_id=step.id, delta=step.text)]
        if isinstance(step, PartStart):
            if step.kind == "text":
                return [ag.TextMessageStartEvent(message_id=step.id, role="assistant")]
            return [
                ag.ReasoningStartEvent(message_id=step.id),
                ag.ReasoningMessageStartEvent(message_id=step.id),
            ]
        if isinstance(step, PartEnd):
            if step.kind == "text":
                return [ag.TextMessageEndEvent(message_id=step.id)]
            return [
                ag.ReasoningMessageEndEvent(message_id=step.id),
                ag.ReasoningEndEvent(message_id=step.id),
            ]
        if isinstance(step, CallStart):
            return [
                ag.ToolCallStartEvent(
                    tool_call_id=step.id,
                    tool_call_name=step.name,
                    parent_message_id=step.message_id,
                )
            ]
        if isinstance(step, CallArgs):
            return [ag.ToolCallArgsEvent(tool_call_id=step.id, delta=step.delta)]
        if isinstance(step, CallEnd):
            return [ag.ToolCallEndEvent(tool_call_id=step.id)]
        if isinstance(step, TurnEnd):
            if step.message.id is None and step.message_id is not None:
                step.message.id = step.message_id  # the snapshot names it as it was streamed
            return []
        if isinstance(step, CallResult):
            return [
                ag.ToolCallResultEvent(
                    message_id=f"res_{step.call_id}",
                    tool_call_id=step.call_id,
                    content=step.content,
                    role="tool",
                    metadata={"error": True} if step.is_error else None,
                )
            ]
        if isinstance(step, ApprovalRequest):
            self.approvals.append(step)
            return []
        if isinstance(step, RunFinish):
            return self.finished(step, history())
        if isinstance(step, RunError):
            return [ag.RunErrorEvent(message=step.message, code=step.code)]
        return []

    def finished(self, step: RunFinish, messages: list[Message]) -> list[ag.BaseEvent]:
        """The snapshot of the thread and the run-finished event, with its outcome."""
        events: list[ag.BaseEvent] = [ag.MessagesSnapshotEvent(messages=snapshot(messages))]
        outcome: Any
        if self.approvals:
            outcome = ag.RunFinishedInterruptOutcome(
                interrupts=[
                    ag.Interrupt(
                        id=a.approval_id,
                        reason=APPROVAL_REASON,
                        message=f"Run {a.tool_name}?",
                        tool_call_id=a.call_id,
                        metadata={
                            "toolName": a.tool_name,
                            "arguments": a.arguments,
                            "parameters": a.parameters,
                        },
                        response_schema=APPROVAL_SCHEMA,
                    )
                    for a in self.approvals
                ]
            )
        else:
            pending = step.frontend_calls or None
            outcome = ag.RunFinishedSuccessOutcome(pending_tool_call_ids=pending)
        output = step.result.output_or_none
        plain = output if isinstance(output, str | int | float | bool) or output is None else None
        events.append(
            ag.RunFinishedEvent(
                thread_id=self.thread_id, run_id=self.run_id, outcome=outcome, result=plain
            )
        )
        return events


APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"approved": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["approved"],
}
"""The answer an approval interrupt expects, in ``resume[i].payload``."""


async def encode_run(
    events: AsyncGenerator[RunEvent, None],
    translator: EventTranslator,
    history: Callable[[], list[Message]],
    request_id: str,
) -> AsyncIterator[bytes]:
    """The SSE text (UTF-8) of a run: ``events`` as steps, written as AG-UI events and
    encoded with ``ag_ui``'s encoder.

    ``history`` gives the thread's history when the run ends, for the snapshot.
    """
    encoder = EventEncoder()
    yield encoder.encode(translator.started()).encode()
    async with aclosing(run_steps(events, translator.steps(), request_id)) as steps:
        async for step in steps:
            for out in translator.render(step, history):
                yield encoder.encode(out).encode()
