"""A run's events as the small sequence of steps every UI protocol writes.

[`RunSteps`][good_agent.server.ui.run_steps.RunSteps] turns the run events of
`Agent.stream` into steps: a turn begins (`TurnStart`); text and reasoning come as
parts, one open at a time (`PartStart`, `PartDelta`, `PartEnd`); a tool call is
started, gets its arguments and ends (`CallStart`, `CallArgs`, `CallEnd`); the turn
ends (`TurnEnd`); a tool's result (`CallResult`); a call waiting for approval
(`ApprovalRequest`); the run finishes (`RunFinish`) or fails (`RunError`). A reply or a
call the model did not stream is told at its turn's end, its start and arguments
marked ``late``. Each protocol (`good_agent.server.ui.ag_ui_wire`,
`good_agent.server.ui.vercel_wire`) only renders these steps in its own events.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any, Literal

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
from good_agent.server.ui.wire_common import run_failure
from good_agent.types.messages import AssistantMessage

PartKind = Literal["text", "reasoning"]
"""What a part holds: the reply's text, or the model's reasoning."""


@dataclass(frozen=True, slots=True)
class TurnStart:
    """A model turn begins (before its first output)."""


@dataclass(frozen=True, slots=True)
class PartStart:
    """A text or reasoning part begins.

    Attributes:
        kind: ``"text"`` or ``"reasoning"``.
        id: The part's id (for text, the id of the turn's assistant message).
    """

    kind: PartKind
    id: str


@dataclass(frozen=True, slots=True)
class PartDelta:
    """More text of the open part."""

    kind: PartKind
    id: str
    text: str


@dataclass(frozen=True, slots=True)
class PartEnd:
    """The open part ends."""

    kind: PartKind
    id: str


@dataclass(frozen=True, slots=True)
class CallStart:
    """A tool call begins.

    Attributes:
        id: The call's id.
        name: The tool's name.
        message_id: The id of the assistant message that makes the call.
        late: Told at the turn's end (the model did not stream it).
    """

    id: str
    name: str
    message_id: str
    late: bool = False


@dataclass(frozen=True, slots=True)
class CallArgs:
    """A piece of a call's arguments (JSON text)."""

    id: str
    delta: str
    late: bool = False


@dataclass(frozen=True, slots=True)
class CallEnd:
    """A call's arguments are complete (``arguments`` holds them, parsed)."""

    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True, slots=True)
class TurnEnd:
    """A model turn ends with ``message``, streamed under ``message_id`` (if any)."""

    message: AssistantMessage
    message_id: str | None


@dataclass(frozen=True, slots=True)
class CallResult:
    """A tool call's result, told to the model."""

    call_id: str
    content: str
    is_error: bool


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """A call that waits for approval (a server tool; the browser's own are left out).

    Attributes:
        approval_id: The id the client answers with.
        call_id: The call's id.
        tool_name: The tool's name.
        arguments: The call's arguments, as the model wrote them.
        parameters: The parameters the tool would get (after the adapter chain).
    """

    approval_id: str
    call_id: str
    tool_name: str
    arguments: dict[str, Any]
    parameters: dict[str, Any]


@dataclass(frozen=True, slots=True)
class RunFinish:
    """The run ended: ``result``, and the calls the client's own tools are to answer."""

    result: RunResult[Any]
    frontend_calls: list[str]


@dataclass(frozen=True, slots=True)
class RunError:
    """The run failed: what the client is told (secrets redacted), and a code."""

    message: str
    code: str


Step = (
    TurnStart
    | PartStart
    | PartDelta
    | PartEnd
    | CallStart
    | CallArgs
    | CallEnd
    | TurnEnd
    | CallResult
    | ApprovalRequest
    | RunFinish
    | RunError
)
"""One step of a run, as the UI protocols write it."""


class RunSteps:
    """Turns one run's events into steps.

    Args:
        approval_id: The id shown for a waiting call, from its digest.
        frontend: The names of the tools the client runs itself.
    """

    def __init__(
        self, approval_id: Callable[[str], str] = str, frontend: frozenset[str] = frozenset()
    ) -> None:
        self.approval_id = approval_id
        self.frontend = frontend
        self.in_turn = False
        self.turn_id: str | None = None
        """The id of the assistant message of the turn under way (text and calls)."""
        self.turn_text = False
        self.part: tuple[PartKind, str] | None = None
        self.open_calls: set[str] = set()
        self.seen_calls: set[str] = set()

    def _turn(self) -> list[Step]:
        if self.in_turn:
            return []
        self.in_turn = True
        return [TurnStart()]

    def _message_id(self) -> str:
        if self.turn_id is None:
            self.turn_id = f"msg_{uuid.uuid4().hex[:16]}"
        return self.turn_id

    def _close_part(self) -> list[Step]:
        if self.part is None:
            return []
        kind, pid = self.part
        self.part = None
        return [PartEnd(kind, pid)]

    def _delta(self, kind: PartKind, text: str) -> list[Step]:
        steps = self._turn()
        if self.part is None or self.part[0] != kind:
            steps += self._close_part()
            pid = self._message_id() if kind == "text" else f"rsn_{uuid.uuid4().hex[:16]}"
            self.part = (kind, pid)
            steps.append(PartStart(kind, pid))
        steps.append(PartDelta(kind, self.part[1], text))
        if kind == "text":
            self.turn_text = True
        return steps

    def steps(self, event: RunEvent) -> list[Step]:
        """The steps of one run event."""
        if isinstance(event, TextDeltaEvent):
            return self._delta("text", event.text) if event.text else []
        if isinstance(event, ReasoningDeltaEvent):
            return self._delta("reasoning", event.text) if event.text else []
        if isinstance(event, ToolCallStartEvent):
            self.open_calls.add(event.id)
            self.seen_calls.add(event.id)
            return [
                *self._turn(),
                *self._close_part(),
                CallStart(event.id, event.name, self._message_id()),
            ]
        if isinstance(event, ToolCallArgsEvent):
            return [CallArgs(event.id, event.arguments)] if event.arguments else []
        if isinstance(event, TurnEndEvent):
            return self._turn_end(event.message)
        if isinstance(event, ToolResultEvent):
            message = event.message
            return [CallResult(event.call.id, message.content, message.is_error)]
        if isinstance(event, RunEndEvent):
            return self._finish(event.result)
        return []

    def _turn_end(self, message: AssistantMessage) -> list[Step]:
        steps = self._turn()
        if message.content and not self.turn_text:
            steps += self._delta("text", message.content)  # a reply that was not streamed
        steps += self._close_part()
        for call in message.tool_calls:
            if call.id not in self.seen_calls:
                steps.append(CallStart(call.id, call.name, self._message_id(), late=True))
                steps.append(CallArgs(call.id, json.dumps(call.arguments), late=True))
                self.open_calls.add(call.id)
            if call.id in self.open_calls:
                steps.append(CallEnd(call.id, call.name, call.arguments))
                self.open_calls.discard(call.id)
        steps.append(TurnEnd(message, self.turn_id))
        self.in_turn = False
        self.turn_id = None
        self.seen_calls.clear()
        self.turn_text = False
        return steps

    def _finish(self, result: RunResult[Any]) -> list[Step]:
        steps = self._close_part()
        frontend: list[str] = []
        for d in result.deferred:
            if d.tool_name in self.frontend:
                frontend.append(d.call_id)  # the client runs it and answers next time
                continue
            steps.append(
                ApprovalRequest(
                    self.approval_id(d.digest), d.call_id, d.tool_name, d.arguments, d.parameters
                )
            )
        steps.append(RunFinish(result, frontend))
        return steps


async def run_steps(
    events: AsyncGenerator[RunEvent, None], translator: RunSteps, request_id: str
) -> AsyncGenerator[Step, None]:
    """The steps of a run's ``events``; a failure ends them with `RunError` (told as
    `run_failure` tells it, logged under ``request_id``)."""
    try:
        async with aclosing(events):
            async for event in events:
                for step in translator.steps(event):
                    yield step
    except Exception as exc:
        message, code = run_failure(exc, request_id)
        yield RunError(message, code)
