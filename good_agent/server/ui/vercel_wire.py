"""The Vercel AI SDK's UI message stream: ``useChat``'s request in, its SSE chunks out.

Request: ``{"id": chat id, "messages": [UIMessage...], "model"?: name}``; a UI message
has ``id``, ``role`` and ``parts`` (``text``, ``step-start``, and tool parts typed
``tool-<name>`` or ``dynamic-tool`` with ``toolCallId``, ``state``, ``input``,
``output``, ``errorText`` and ``approval``). A last message from the user is the prompt;
a last assistant message carries the user's answers to approval requests
(``approval: {"id": approval id, "approved", "reason"}``, state ``approval-responded``) or
results of calls the client ran. The messages before are the history, used only when the
server keeps no store.

A ``file`` part of a user message becomes a media part of the prompt (a ``data:`` URL
decoded); ``trigger: "regenerate-message"`` replaces the thread's last answer.

Response: the ``x-vercel-ai-ui-message-stream: v1`` stream of JSON chunks (``start``,
whose ``messageId`` is the request's last assistant message when the request answers its
calls, ``start-step``, ``text-*``, ``reasoning-*``, ``tool-input-*``, ``tool-output-*``
(``tool-output-denied`` for a denial), ``tool-approval-request`` whose ``approvalId`` is
the call's approval id (a keyed digest bound to the thread's owner, the thread and the
call; for ai 5 a ``data-tool-approval`` part instead), ``finish-step``, ``finish`` with
the usage and the model's name as ``messageMetadata``, ``error``), ended by
``data: [DONE]``. No maintained Python package defines
these shapes, so the pydantic models here do (`Chunk` parses any of them).
"""

from __future__ import annotations

import base64
import binascii
import json
import uuid
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from pydantic.alias_generators import to_camel

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
    TurnStart,
    run_steps,
)
from good_agent.server.ui.session import Decision, PreparedRun, ToolResult, Turn
from good_agent.server.ui.wire_common import field_path
from good_agent.types.content import (
    AudioUrl,
    BinaryContent,
    DocumentUrl,
    ImageUrl,
    UserContent,
    kind_of_media,
)
from good_agent.types.messages import (
    AssistantMessage,
    Message,
    ToolCall,
    ToolMessage,
    UserMessage,
)

HEADERS = {"x-vercel-ai-ui-message-stream": "v1"}
"""The header that marks a UI message stream."""


class _Wire(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")


class UIApproval(_Wire):
    """The approval state of a tool part: requested (``id``), then answered."""

    id: str
    approved: bool | None = None
    reason: str | None = None


class UIPart(_Wire):
    """One part of a UI message (the fields of text and tool parts; others are kept)."""

    type: str
    text: str | None = None
    tool_call_id: str | None = None
    tool_name: str | None = None
    state: str | None = None
    input: Any = None
    output: Any = None
    error_text: str | None = None
    approval: UIApproval | None = None
    url: str | None = None
    media_type: str | None = None
    filename: str | None = None
    data: Any = None


class UIMessage(_Wire):
    """A message of the chat as the client holds it."""

    id: str
    role: Literal["system", "user", "assistant"]
    parts: list[UIPart]


class ChatRequest(_Wire):
    """The body ``useChat`` sends (``model`` picks one of the server's models)."""

    id: str
    messages: list[UIMessage] = Field(min_length=1)
    trigger: str | None = None
    message_id: str | None = None
    model: str | None = None


class _Chunk(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    def sse(self) -> str:
        """The chunk as one server-sent event."""
        return f"data: {self.model_dump_json(by_alias=True, exclude_none=True)}\n\n"


class StartChunk(_Chunk):
    """The stream's assistant message begins."""

    type: Literal["start"] = "start"
    message_id: str | None = None


class StepChunk(_Chunk):
    """A model step begins or ends."""

    type: Literal["start-step", "finish-step"]


class TextChunk(_Chunk):
    """A text or reasoning part begins, grows by ``delta`` or ends."""

    type: Literal[
        "text-start",
        "text-delta",
        "text-end",
        "reasoning-start",
        "reasoning-delta",
        "reasoning-end",
    ]
    id: str
    delta: str | None = None


class ToolInputStartChunk(_Chunk):
    """The model began a tool call."""

    type: Literal["tool-input-start"] = "tool-input-start"
    tool_call_id: str
    tool_name: str


class ToolInputDeltaChunk(_Chunk):
    """A fragment of the call's JSON arguments."""

    type: Literal["tool-input-delta"] = "tool-input-delta"
    tool_call_id: str
    input_text_delta: str


class ToolInputAvailableChunk(_Chunk):
    """The call's whole arguments."""

    type: Literal["tool-input-available"] = "tool-input-available"
    tool_call_id: str
    tool_name: str
    input: Any


class ToolApprovalRequestChunk(_Chunk):
    """The call waits for the user's approval; ``approval_id`` answers it."""

    type: Literal["tool-approval-request"] = "tool-approval-request"
    approval_id: str
    tool_call_id: str


class ToolOutputAvailableChunk(_Chunk):
    """The call's result."""

    type: Literal["tool-output-available"] = "tool-output-available"
    tool_call_id: str
    output: Any


class ToolOutputDeniedChunk(_Chunk):
    """The user denied the call (ai 6 and later)."""

    type: Literal["tool-output-denied"] = "tool-output-denied"
    tool_call_id: str


class DataChunk(_Chunk):
    """A data part (``data-<name>``): here ``data-tool-approval``, a call waiting for
    approval told to a client of ai 5, which has no approval chunk."""

    type: Literal["data-tool-approval"] = "data-tool-approval"
    id: str
    data: Any


class ToolOutputErrorChunk(_Chunk):
    """The call failed (or was denied); ``error_text`` is what the model was told."""

    type: Literal["tool-output-error"] = "tool-output-error"
    tool_call_id: str
    error_text: str


class FinishChunk(_Chunk):
    """The stream's assistant message is complete."""

    type: Literal["finish"] = "finish"
    finish_reason: (
        Literal["stop", "length", "content-filter", "tool-calls", "error", "other"] | None
    ) = None
    message_metadata: Any = None


class ErrorChunk(_Chunk):
    """The run failed."""

    type: Literal["error"] = "error"
    error_text: str


Chunk = Annotated[
    StartChunk
    | StepChunk
    | TextChunk
    | ToolInputStartChunk
    | ToolInputDeltaChunk
    | ToolInputAvailableChunk
    | ToolApprovalRequestChunk
    | ToolOutputAvailableChunk
    | ToolOutputDeniedChunk
    | ToolOutputErrorChunk
    | DataChunk
    | FinishChunk
    | ErrorChunk,
    Field(discriminator="type"),
]
"""Any chunk of the stream."""

CHUNK: TypeAdapter[Any] = TypeAdapter(Chunk)
"""Validates one chunk (``CHUNK.validate_json(line)``)."""


APPROVAL_DATA = "data-tool-approval"
"""The data part that tells a client of ai 5 about a call waiting for approval (its
``data``: ``approvalId``, ``toolCallId``, ``toolName``, ``input``); the client answers by
sending it back with ``data.approved`` (and ``data.reason``) set."""


def parse_request(body: Any) -> tuple[ChatRequest, Turn]:
    """The request in ``body`` and the turn it asks for; a 400 naming the field otherwise."""
    try:
        data = ChatRequest.model_validate(body)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        where = field_path(error["loc"])
        raise bad_request(f"{where}: {error['msg']}", where) from None
    last = data.messages[-1]
    turn = Turn(thread_id=data.id, model=data.model, model_field="model")
    turn.regenerate = data.trigger == "regenerate-message"
    index = len(data.messages) - 1
    if last.role == "user":
        turn.prompt = _content(last, f"messages.{index}")
        turn.history = _history(data.messages[:-1])
        return data, turn
    if turn.regenerate:
        raise bad_request(
            "a regenerate request ends with the user message whose answer is regenerated",
            f"messages.{index}.role",
        )
    turn.reply_id = last.id if last.role == "assistant" else None
    turn.history = _history(data.messages)
    where = f"messages.{index}.parts"
    for number, part in enumerate(last.parts):
        if part.type == APPROVAL_DATA and isinstance(part.data, dict):
            answer = part.data
            if isinstance(answer.get("approvalId"), str) and isinstance(
                answer.get("approved"), bool
            ):
                reason = answer.get("reason")
                turn.decisions[answer["approvalId"]] = Decision(
                    answer["approved"],
                    str(reason) if reason else None,
                    f"{where}.{number}.data.approvalId",
                )
            continue
        if part.tool_call_id is None:
            continue
        if part.approval is not None and part.approval.approved is not None:
            turn.decisions[part.approval.id] = Decision(
                part.approval.approved, part.approval.reason, f"{where}.{number}.approval.id"
            )
        elif part.state in ("output-available", "output-error"):
            turn.results.append(
                ToolResult(
                    part.tool_call_id,
                    part.error_text or _render(part.output),
                    is_error=part.state == "output-error",
                    field=f"{where}.{number}.toolCallId",
                )
            )
    return data, turn


def _content(message: UIMessage, where: str) -> str | list[UserContent]:
    """A user message's text and files as the agent's prompt (a 400 naming a part it
    cannot take)."""
    items: list[UserContent] = []
    for number, part in enumerate(message.parts):
        if part.type == "text":
            if part.text:
                items.append(part.text)
        elif part.type == "file":
            items.append(_file(part, f"{where}.parts.{number}"))
    if all(isinstance(item, str) for item in items):
        return "".join(item for item in items if isinstance(item, str))
    return items


def _file(part: UIPart, where: str) -> UserContent:
    """A ``file`` part as a media part: a ``data:`` URL decoded, an ``http(s)`` URL kept."""
    url, media_type = part.url, part.media_type
    if not url:
        raise bad_request(f"{where}.url: a file part needs a url", f"{where}.url")
    if not media_type:
        raise bad_request(
            f"{where}.mediaType: a file part needs a media type", f"{where}.mediaType"
        )
    if url.startswith("data:"):
        header, sep, payload = url[5:].partition(",")
        if not sep or not header.endswith(";base64"):
            raise bad_request(
                f"{where}.url: a data URL must be base64 (data:<type>;base64,...)",
                f"{where}.url",
            )
        try:
            raw = base64.b64decode(payload, validate=True)
        except (binascii.Error, ValueError):
            message = f"{where}.url: the data URL is not valid base64"
            raise bad_request(message, f"{where}.url") from None
        return BinaryContent(raw, media_type)
    if not url.startswith(("https://", "http://")):
        raise bad_request(
            f"{where}.url: a file part's url must be a data: or http(s) URL", f"{where}.url"
        )
    kind = kind_of_media(media_type)
    if kind == "image":
        return ImageUrl(url=url, media_type=media_type)
    if kind == "audio":
        return AudioUrl(url=url, media_type=media_type)
    return DocumentUrl(url=url, media_type=media_type)


def _render(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _tool_name(part: UIPart) -> str:
    return part.tool_name or part.type.removeprefix("tool-")


def _history(messages: list[UIMessage]) -> list[Message]:
    """The client's messages as a history (its system messages are not taken)."""
    history: list[Message] = []
    for index, message in enumerate(messages):
        if message.role == "user":
            history.append(UserMessage(content=_content(message, f"messages.{index}")))
        elif message.role == "assistant":
            steps: list[list[UIPart]] = [[]]
            for part in message.parts:
                if part.type == "step-start" and steps[-1]:
                    steps.append([])
                steps[-1].append(part)
            for step in steps:
                history += _step(step)
    return history


def _step(parts: list[UIPart]) -> list[Message]:
    text = "".join(part.text or "" for part in parts if part.type == "text")
    tools = [p for p in parts if p.tool_call_id and (p.type.startswith("tool-") or p.tool_name)]
    if not text and not tools:
        return []
    calls = [
        ToolCall(
            id=p.tool_call_id or "",
            name=_tool_name(p),
            arguments=p.input if isinstance(p.input, dict) else {},
        )
        for p in tools
    ]
    out: list[Message] = [AssistantMessage(content=text or None, tool_calls=calls)]
    for part in tools:
        if part.state in ("output-available", "output-error", "output-denied"):
            out.append(
                ToolMessage(
                    tool_call_id=part.tool_call_id or "",
                    tool_name=_tool_name(part),
                    content=part.error_text or _render(part.output)
                    if part.state != "output-denied"
                    else "The user denied this tool call.",
                    is_error=part.state != "output-available",
                )
            )
    return out


class _Encoder:
    """Writes a run's steps (`good_agent.server.ui.run_steps`) as UI message stream
    chunks."""

    def __init__(
        self,
        *,
        denied: frozenset[str] = frozenset(),
        approvals: bool = True,
        model_name: str | None = None,
    ) -> None:
        self.denied = denied
        self.approvals = approvals
        self.model_name = model_name
        self.step_open = False

    def chunks(self, step: Step) -> list[_Chunk]:
        """The chunks of one step."""
        if isinstance(step, PartDelta):
            return [TextChunk(type=f"{step.kind}-delta", id=step.id, delta=step.text)]
        if isinstance(step, PartStart):
            return [TextChunk(type=f"{step.kind}-start", id=step.id)]
        if isinstance(step, PartEnd):
            return [TextChunk(type=f"{step.kind}-end", id=step.id)]
        if isinstance(step, TurnStart):
            # A step lasts until the next turn begins, so a call's output lands in it.
            chunks: list[_Chunk] = [StepChunk(type="finish-step")] if self.step_open else []
            self.step_open = True
            return [*chunks, StepChunk(type="start-step")]
        if isinstance(step, CallStart):
            if step.late:
                return []  # told whole by its tool-input-available
            return [ToolInputStartChunk(tool_call_id=step.id, tool_name=step.name)]
        if isinstance(step, CallArgs):
            if step.late:
                return []
            return [ToolInputDeltaChunk(tool_call_id=step.id, input_text_delta=step.delta)]
        if isinstance(step, CallEnd):
            return [
                ToolInputAvailableChunk(
                    tool_call_id=step.id, tool_name=step.name, input=step.arguments
                )
            ]
        if isinstance(step, CallResult):
            if step.call_id in self.denied and self.approvals:
                return [ToolOutputDeniedChunk(tool_call_id=step.call_id)]
            if step.is_error:
                return [ToolOutputErrorChunk(tool_call_id=step.call_id, error_text=step.content)]
            return [ToolOutputAvailableChunk(tool_call_id=step.call_id, output=step.content)]
        if isinstance(step, ApprovalRequest):
            if self.approvals:
                shown = step.approval_id
                return [ToolApprovalRequestChunk(approval_id=shown, tool_call_id=step.call_id)]
            data = {
                "approvalId": step.approval_id,
                "toolCallId": step.call_id,
                "toolName": step.tool_name,
                "input": step.arguments,
            }
            return [DataChunk(id=step.approval_id, data=data)]
        if isinstance(step, RunFinish):
            return self._finish(step)
        if isinstance(step, RunError):
            return [ErrorChunk(error_text=step.message)]
        return []

    def _finish(self, step: RunFinish) -> list[_Chunk]:
        chunks: list[_Chunk] = []
        if self.step_open:
            chunks.append(StepChunk(type="finish-step"))
            self.step_open = False
        result = step.result
        usage = result.usage
        metadata: dict[str, Any] = {
            "usage": {
                "inputTokens": usage.input_tokens,
                "outputTokens": usage.output_tokens,
                "totalTokens": usage.input_tokens + usage.output_tokens,
            }
        }
        if self.model_name:
            metadata["model"] = self.model_name
        reason = "tool-calls" if result.deferred else "stop"
        chunks.append(FinishChunk(finish_reason=reason, message_metadata=metadata))
        return chunks


async def encode_run(
    events: AsyncGenerator[RunEvent, None],
    request_id: str,
    prepared: PreparedRun,
    *,
    frontend: frozenset[str] = frozenset(),
    approvals: bool = True,
) -> AsyncIterator[bytes]:
    """The SSE text (UTF-8) of a run, from ``start`` to ``data: [DONE]``: ``events`` as
    steps (`good_agent.server.ui.run_steps`), written as UI message stream chunks.

    The ``start`` chunk continues the request's last assistant message (its id) when the
    request answers its calls, so the client keeps one message; calls to ``frontend``
    tools are left to the client; ``approvals`` off tells a waiting call as a
    ``data-tool-approval`` part (ai 5) instead of a ``tool-approval-request``.
    """
    encoder = _Encoder(
        denied=prepared.denied, approvals=approvals, model_name=prepared.model_name
    )
    translator = RunSteps(prepared.approval_id, frontend)
    message_id = prepared.turn.reply_id or f"msg_{uuid.uuid4().hex[:16]}"
    yield StartChunk(message_id=message_id).sse().encode()
    async with aclosing(run_steps(events, translator, request_id)) as steps:
        async for step in steps:
            for chunk in encoder.chunks(step):
                yield chunk.sse().encode()
    yield b"data: [DONE]\n\n"
