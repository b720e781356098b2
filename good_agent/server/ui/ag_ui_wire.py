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
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import aclosing
from typing import Any

from ag_ui import core as ag
from ag_ui.encoder import EventEncoder
from pydantic import ValidationError

from good_agent.core.approvals import call_digest, unanswered_calls
from good_agent.core.results import RunResult
from good_agent.core.run_events import (
    ReasoningDeltaEvent,
    RunEndEvent,
    RunEvent,
    TextDeltaEvent,
    ToolCallArgsEvent,
    ToolCallStartEvent,
    ToolResultEvent,
    TurnEndEvent,
)
from good_agent.server.common.errors import bad_request
from good_agent.server.ui.session import Decision, ToolResult, Turn, frontend_tool
from good_agent.server.ui.wire_common import field_path, run_failure
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
    """Turns a run's events into AG-UI events (text and tool calls framed start...end)."""

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
        self.text_id: str | None = None
        self.turn_id: str | None = None
        """The id of the assistant message of the turn under way (text and calls)."""
        self.reasoning_id: str | None = None
        self.turn_text = False
        self.open_calls: set[str] = set()
        self.seen_calls: set[str] = set()

    def started(self) -> ag.RunStartedEvent:
        """The first event."""
        return ag.RunStartedEvent(thread_id=self.thread_id, run_id=self.run_id)

    def _close_text(self) -> list[ag.BaseEvent]:
        events: list[ag.BaseEvent] = self._close_reasoning()
        if self.text_id is not None:
            events.append(ag.TextMessageEndEvent(message_id=self.text_id))
            self.text_id = None
        return events

    def _close_reasoning(self) -> list[ag.BaseEvent]:
        if self.reasoning_id is None:
            return []
        rid, self.reasoning_id = self.reasoning_id, None
        return [ag.ReasoningMessageEndEvent(message_id=rid), ag.ReasoningEndEvent(message_id=rid)]

    def _reasoning(self, text: str) -> list[ag.BaseEvent]:
        events: list[ag.BaseEvent] = []
        if self.reasoning_id is None:
            events += self._close_text()
            self.reasoning_id = f"rsn_{uuid.uuid4().hex[:16]}"
            events.append(ag.ReasoningStartEvent(message_id=self.reasoning_id))
            events.append(ag.ReasoningMessageStartEvent(message_id=self.reasoning_id))
        events.append(ag.ReasoningMessageContentEvent(message_id=self.reasoning_id, delta=text))
        return events

    def _message_id(self) -> str:
        if self.turn_id is None:
            self.turn_id = f"msg_{uuid.uuid4().hex[:16]}"
        return self.turn_id

    def _text(self, text: str) -> list[ag.BaseEvent]:
        events: list[ag.BaseEvent] = self._close_reasoning()
        if self.text_id is None:
            self.text_id = self._message_id()
            events.append(ag.TextMessageStartEvent(message_id=self.text_id, role="assistant"))
        events.append(ag.TextMessageContentEvent(message_id=self.text_id, delta=text))
        self.turn_text = True
        return events

    def translate(self, event: RunEvent) -> list[ag.BaseEvent]:
        """The AG-UI events for one run event (run end excepted: see `finished`)."""
        if isinstance(event, TextDeltaEvent):
            return self._text(event.text) if event.text else []
        if isinstance(event, ReasoningDeltaEvent):
            return self._reasoning(event.text) if event.text else []
        if isinstance(event, ToolCallStartEvent):
            self.open_calls.add(event.id)
            self.seen_calls.add(event.id)
            return [
                *self._close_text(),
                ag.ToolCallStartEvent(
                    tool_call_id=event.id,
                    tool_call_name=event.name,
                    parent_message_id=self._message_id(),
                ),
            ]
        if isinstance(event, ToolCallArgsEvent):
            if not event.arguments:
                return []
            return [ag.ToolCallArgsEvent(tool_call_id=event.id, delta=event.arguments)]
        if isinstance(event, TurnEndEvent):
            return self._turn_end(event.message)
        if isinstance(event, ToolResultEvent):
            return [
                ag.ToolCallResultEvent(
                    message_id=f"res_{event.call.id}",
                    tool_call_id=event.call.id,
                    content=event.message.content,
                    role="tool",
                    metadata={"error": True} if event.message.is_error else None,
                )
            ]
        return []

    def _turn_end(self, message: AssistantMessage) -> list[ag.BaseEvent]:
        events: list[ag.BaseEvent] = []
        if message.content and not self.turn_text:
            events += self._text(message.content)  # a reply that was not streamed
        events += self._close_text()
        for call in message.tool_calls:
            if call.id not in self.seen_calls:
                events.append(
                    ag.ToolCallStartEvent(
                        tool_call_id=call.id,
                        tool_call_name=call.name,
                        parent_message_id=self._message_id(),
                    )
                )
                events.append(
                    ag.ToolCallArgsEvent(tool_call_id=call.id, delta=json.dumps(call.arguments))
                )
                self.open_calls.add(call.id)
            if call.id in self.open_calls:
                events.append(ag.ToolCallEndEvent(tool_call_id=call.id))
                self.open_calls.discard(call.id)
        if message.id is None and self.turn_id is not None:
            message.id = self.turn_id  # the snapshot names the message as it was streamed
        self.turn_id = None
        self.seen_calls.clear()
        self.turn_text = False
        return events

    def finished(self, result: RunResult[Any], messages: list[Message]) -> list[ag.BaseEvent]:
        """The snapshot of the thread and the run-finished event, with its outcome."""
        events: list[ag.BaseEvent] = [ag.MessagesSnapshotEvent(messages=snapshot(messages))]
        approvals = [d for d in result.deferred if d.tool_name not in self.frontend]
        frontend = [d.call_id for d in result.deferred if d.tool_name in self.frontend]
        outcome: Any
        if approvals:
            outcome = ag.RunFinishedInterruptOutcome(
                interrupts=[
                    ag.Interrupt(
                        id=self.approval_id(d.digest),
                        reason=APPROVAL_REASON,
                        message=f"Run {d.tool_name}?",
                        tool_call_id=d.call_id,
                        metadata={
                            "toolName": d.tool_name,
                            "arguments": d.arguments,
                            "parameters": d.parameters,
                        },
                        response_schema=APPROVAL_SCHEMA,
                    )
                    for d in approvals
                ]
            )
        else:
            outcome = ag.RunFinishedSuccessOutcome(pending_tool_call_ids=frontend or None)
        output = result.output_or_none
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
    """The SSE text (UTF-8) of a run: ``events`` translated and encoded with ``ag_ui``'s
    encoder.

    ``history`` gives the thread's history when the run ends, for the snapshot.
    """
    encoder = EventEncoder()
    yield encoder.encode(translator.started()).encode()
    try:
        async with aclosing(events):
            async for event in events:
                if isinstance(event, RunEndEvent):
                    outs = translator.finished(event.result, history())
                else:
                    outs = translator.translate(event)
                for out in outs:
                    yield encoder.encode(out).encode()
    except Exception as exc:
        message, code = run_failure(exc, request_id)
        yield encoder.encode(ag.RunErrorEvent(message=message, code=code)).encode()
