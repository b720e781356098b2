"""The event bus: a small, deliberate set of events on blinker signals, with priorities.

Interceptable events let a handler replace the payload (by returning a new one or
assigning ``ctx.payload``) or stop the chain (``ctx.stop()``); a handler's exception
propagates to the caller. Observe-only events report a handler's exception through
the log and `AgentEvents.EVENT_HANDLER_ERROR`, then carry on: the error is
never silently dropped.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from blinker import Signal

from good_agent._util.awaitable import is_awaitable

logger = logging.getLogger("good_agent.events")


class AgentEvents(StrEnum):
    """Every event the agent emits."""

    AGENT_INIT = "agent:init"
    AGENT_CLOSE = "agent:close"
    EXTENSION_INSTALL = "extension:install"
    EXTENSION_UNINSTALL = "extension:uninstall"
    RUN_START = "run:start"
    RUN_END = "run:end"
    MESSAGE_APPEND = "message:append"
    LLM_REQUEST_BEFORE = "llm:request:before"
    LLM_RESPONSE_AFTER = "llm:response:after"
    TOOLS_GENERATE_SIGNATURE = "tools:generate_signature"
    TOOL_CALL_BEFORE = "tool:call:before"
    TOOL_CALL_AFTER = "tool:call:after"
    TOOL_CALL_ERROR = "tool:call:error"
    EVENT_HANDLER_ERROR = "event:handler_error"


INTERCEPTABLE_EVENTS = frozenset(
    {
        AgentEvents.MESSAGE_APPEND,
        AgentEvents.LLM_REQUEST_BEFORE,
        AgentEvents.LLM_RESPONSE_AFTER,
        AgentEvents.TOOLS_GENERATE_SIGNATURE,
        AgentEvents.TOOL_CALL_BEFORE,
        AgentEvents.TOOL_CALL_AFTER,
    }
)
"""Events whose handlers may replace the payload or stop the chain."""


@dataclass(slots=True)
class EventContext:
    """What a handler receives: the event, its payload and the agent that emitted it."""

    event: AgentEvents
    payload: Any
    agent: Any = None
    stopped: bool = field(default=False)

    def stop(self) -> None:
        """Skip the remaining (lower-priority) handlers of an interceptable event."""
        self.stopped = True


Handler = Callable[[EventContext], Any]
"""A sync or async callable taking an `EventContext`."""


@dataclass(frozen=True, slots=True)
class HandlerErrorPayload:
    """Payload of `AgentEvents.EVENT_HANDLER_ERROR`."""

    event: AgentEvents
    handler: str
    error: BaseException


def _handler_name(handler: Handler) -> str:
    return str(getattr(handler, "__qualname__", None) or repr(handler))


class EventBus:
    """Per-agent event dispatch: one blinker `Signal` per event.

    Handlers run in descending ``priority``; equal priorities keep connection order.
    """

    def __init__(self, owner: Any = None) -> None:
        self.owner = owner
        self._signals: dict[AgentEvents, Signal] = {}
        self._order: dict[tuple[AgentEvents, int], tuple[int, int]] = {}
        self._sorted: dict[AgentEvents, list[Handler]] = {}
        self._sequence = itertools.count()

    def signal(self, event: AgentEvents) -> Signal:
        """Return the blinker signal behind ``event``."""
        sig = self._signals.get(event)
        if sig is None:
            sig = self._signals[event] = Signal(str(event))
        return sig

    def on(self, event: AgentEvents, handler: Handler, *, priority: int = 0) -> Handler:
        """Connect ``handler`` to ``event``; higher ``priority`` runs first."""
        self.signal(event).connect(handler, weak=False)
        self._order[(event, id(handler))] = (-priority, next(self._sequence))
        self._sorted.pop(event, None)
        return handler

    def off(self, event: AgentEvents, handler: Handler) -> None:
        """Disconnect ``handler`` from ``event``."""
        self.signal(event).disconnect(handler)
        self._order.pop((event, id(handler)), None)
        self._sorted.pop(event, None)

    def handlers(self, event: AgentEvents) -> list[Handler]:
        """The handlers of ``event`` in the order they run."""
        cached = self._sorted.get(event)
        if cached is None:
            sig = self._signals.get(event)
            receivers: list[Handler] = list(sig.receivers_for(None)) if sig else []
            receivers.sort(key=lambda h: self._order.get((event, id(h)), (0, 0)))
            cached = self._sorted[event] = receivers
        return cached

    def has_handlers(self, event: AgentEvents) -> bool:
        """Whether any handler is connected to ``event``."""
        sig = self._signals.get(event)
        return bool(sig and sig.receivers)

    async def emit(self, event: AgentEvents, payload: Any) -> Any:
        """Run the handlers of ``event`` and return the (possibly replaced) payload."""
        sig = self._signals.get(event)
        if not (sig and sig.receivers):
            return payload
        if event in INTERCEPTABLE_EVENTS:
            return await self._intercept(event, payload)
        await self._observe(event, payload)
        return payload

    async def _intercept(self, event: AgentEvents, payload: Any) -> Any:
        ctx = EventContext(event, payload, self.owner)
        handlers = self._sorted.get(event)
        for handler in handlers if handlers is not None else self.handlers(event):
            result = handler(ctx)
            if result is not None:
                if is_awaitable(result):
                    result = await result
                if result is not None:
                    ctx.payload = result
            if ctx.stopped:
                break
        return ctx.payload

    async def _observe(self, event: AgentEvents, payload: Any) -> None:
        for handler in self.handlers(event):
            ctx = EventContext(event, payload, self.owner)
            try:
                result = handler(ctx)
                if is_awaitable(result):
                    await result
            except Exception as exc:
                name = _handler_name(handler)
                logger.exception("handler %s of %s raised", name, event)
                if event is not AgentEvents.EVENT_HANDLER_ERROR:
                    await self._observe(
                        AgentEvents.EVENT_HANDLER_ERROR, HandlerErrorPayload(event, name, exc)
                    )
