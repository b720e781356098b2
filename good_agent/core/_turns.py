"""One model turn, whole or streamed, through the LLM request/response events."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING

import anyio

from good_agent.core.components import ModelCall
from good_agent.core.conversation import Conversation
from good_agent.core.debug_log import log_model_request
from good_agent.core.events import AgentEvents
from good_agent.core.run_events import RunEvent, ToolCallArgsEvent
from good_agent.core.valid_unicode import valid_reply, valid_text
from good_agent.models.base import ModelRequest, ModelResponse, stream_of
from good_agent.providers.streaming.deltas import (
    ModelDelta,
    ReasoningDelta,
    TextDelta,
    ToolCallArgs,
    ToolCallStart,
)
from good_agent.types.errors import ModelError
from good_agent.types.messages import AssistantMessage

if TYPE_CHECKING:
    from good_agent.core._run_state import RunSetup

CLOSE_TIMEOUT = 10.0
"""Seconds allowed to close an abandoned model stream (shielded from cancellation)."""


async def request_model(setup: RunSetup, request: ModelRequest) -> ModelResponse:
    """Send ``request`` through the LLM request/response events to the run's model."""
    request = await setup.events.emit(AgentEvents.LLM_REQUEST_BEFORE, request)
    log_model_request(setup.model, request, streamed=False)
    if setup.model_wrappers:
        response = await _wrapped(setup, request, partial(_whole_reply, setup))
    else:  # the usual case: no frame more
        response = valid_reply(await setup.model.request(request))
    result: ModelResponse = await setup.events.emit(AgentEvents.LLM_RESPONSE_AFTER, response)
    return result


async def _whole_reply(setup: RunSetup, request: ModelRequest) -> ModelResponse:
    return valid_reply(await setup.model.request(request))


def _wrapped(setup: RunSetup, request: ModelRequest, send: ModelCall) -> Awaitable[ModelResponse]:
    """``send(request)`` inside the components' ``around_model_request`` hooks."""
    call = send
    for wrapper in reversed(setup.model_wrappers):
        call = _around(wrapper, call)
    return call(request)


def _around(
    wrapper: Callable[[ModelRequest, ModelCall], Awaitable[ModelResponse]], call_next: ModelCall
) -> ModelCall:
    return lambda request: wrapper(request, call_next)


def _event(delta: ModelDelta, ids: dict[int, str]) -> RunEvent | None:
    """The run event of ``delta``: the delta itself (its text made valid Unicode), an
    argument fragment with its call's id, or ``None`` for what a run does not yield."""
    if isinstance(delta, TextDelta | ReasoningDelta):
        if not delta.text:
            return None
        text = valid_text(delta.text)
        return delta if text is delta.text else type(delta)(text)
    if isinstance(delta, ToolCallStart):
        ids[delta.index] = delta.id
        return delta
    if isinstance(delta, ToolCallArgs):
        return ToolCallArgsEvent(delta.index, delta.arguments, ids.get(delta.index, ""))
    return None


def _partial_turn(seen: list[RunEvent]) -> AssistantMessage:
    """The assistant turn of a reply cut short: its text (and reasoning) so far."""
    text = "".join(e.text for e in seen if isinstance(e, TextDelta))
    reasoning = "".join(e.text for e in seen if isinstance(e, ReasoningDelta))
    return AssistantMessage(content=text, reasoning=reasoning or None, incomplete=True)


async def stream_model(
    setup: RunSetup,
    conversation: Conversation,
    request: ModelRequest,
    send: Callable[[RunEvent], Awaitable[None]],
) -> ModelResponse:
    """Stream one reply: each delta goes to ``send`` as an event; return the reply.

    The model's stream is closed however this ends (an early exit or a
    cancellation closes the upstream request). A reply cut short leaves what had
    been streamed in the history as an ``incomplete`` assistant turn.
    """
    request = await setup.events.emit(AgentEvents.LLM_REQUEST_BEFORE, request)
    log_model_request(setup.model, request, streamed=True)
    reply = partial(_streamed_reply, setup, conversation, send=send)
    if setup.model_wrappers:
        response = await _wrapped(setup, request, reply)
    else:
        response = await reply(request)
    result: ModelResponse = await setup.events.emit(AgentEvents.LLM_RESPONSE_AFTER, response)
    return result


async def _streamed_reply(
    setup: RunSetup,
    conversation: Conversation,
    request: ModelRequest,
    *,
    send: Callable[[RunEvent], Awaitable[None]],
) -> ModelResponse:
    """The reply to ``request``, its deltas sent to ``send`` as they come."""
    stream = stream_of(setup.model, request)
    response: ModelResponse | None = None
    ids: dict[int, str] = {}
    seen: list[RunEvent] = []
    try:
        try:
            async for item in stream:
                if isinstance(item, ModelResponse):
                    response = item
                    continue
                event = _event(item, ids)
                if event is not None:
                    await send(event)
                    seen.append(event)  # only what was delivered
        finally:
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                with anyio.move_on_after(CLOSE_TIMEOUT, shield=True):
                    await aclose()
    except BaseException:
        if response is None:
            # appended without an event: nobody may be reading the stream any more
            with anyio.CancelScope(shield=True):
                await conversation.append(_partial_turn(seen))
        raise
    if response is None:
        raise ModelError(f"the stream of {setup.model.model_name} ended without its reply")
    return valid_reply(response)
