"""Streamed replies: neutral events relayed to the client as server-sent events.

The upstream stream is *primed* before the response starts (:func:`prime`), so a
refusal, a rate limit or a timeout on connect still gets its HTTP status. After
that, chunks are written as the upstream produces them; a failure ends the stream
with an error event, and a client that goes away cancels the upstream call (its
connection is closed in a shielded ``finally``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable

import anyio

from good_agent.core.errors import ModelError
from good_agent.providers.types import Usage
from good_agent.server.anthropic_api import MessageStreamWriter, event
from good_agent.server.errors import BridgeError, from_model_error
from good_agent.server.events import (
    CallDelta,
    Finish,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    UsageDelta,
)
from good_agent.server.openai_api import ChunkWriter, sse
from good_agent.server.route import BridgeRequest, ModelRoute, merge_usage

logger = logging.getLogger("good_agent.server")

AccessLog = Callable[[int, Usage], None]
"""Called once when a stream ends: final status and usage."""


async def prime(
    route: ModelRoute, request: BridgeRequest
) -> tuple[AsyncGenerator[StreamEvent, None], list[StreamEvent]]:
    """Start ``route``'s stream and wait for its first event (errors raise here)."""
    events = route.stream(request)
    try:
        first = await events.__anext__()
    except StopAsyncIteration:
        return events, []
    except BaseException:
        with anyio.CancelScope(shield=True):
            await events.aclose()
        raise
    return events, [first]


async def _chain(
    first: list[StreamEvent], events: AsyncIterator[StreamEvent]
) -> AsyncIterator[StreamEvent]:
    for item in first:
        yield item
    async for item in events:
        yield item


def _error(exc: Exception, route: ModelRoute) -> BridgeError:
    if isinstance(exc, BridgeError):
        return exc
    if isinstance(exc, ModelError):
        return from_model_error(exc, route.name)
    logger.error("stream from '%s' failed: %s", route.name, type(exc).__name__)
    return BridgeError(500, "the bridge failed while streaming", "server_error")


async def openai_stream(
    route: ModelRoute,
    events: AsyncGenerator[StreamEvent, None],
    first: list[StreamEvent],
    *,
    model: str,
    include_usage: bool,
    done: AccessLog,
) -> AsyncIterator[bytes]:
    """Chat Completions chunks for one reply, ``data: [DONE]`` last."""
    writer = ChunkWriter(model, include_usage=include_usage)
    usage = Usage()
    status = 499
    try:
        yield writer.role()
        async for item in _chain(first, events):
            if isinstance(item, TextDelta):
                yield writer.text(item.text)
            elif isinstance(item, ReasoningDelta):
                yield writer.reasoning(item.text)
            elif isinstance(item, CallDelta):
                yield writer.call(item)
            elif isinstance(item, UsageDelta):
                usage = merge_usage(usage, item)
            elif isinstance(item, Finish):
                yield writer.finish(item.reason or "stop")
        if include_usage:
            yield writer.usage(usage)
        yield sse("[DONE]")
        status = 200
    except Exception as exc:
        error = _error(exc, route)
        status = error.status
        yield sse(error.openai_body())
    finally:
        with anyio.CancelScope(shield=True):
            await events.aclose()
        done(status, usage)


async def anthropic_stream(
    route: ModelRoute,
    events: AsyncGenerator[StreamEvent, None],
    first: list[StreamEvent],
    *,
    model: str,
    done: AccessLog,
) -> AsyncIterator[bytes]:
    """Messages stream events for one reply, ``message_stop`` last."""
    writer = MessageStreamWriter(model)
    usage = Usage()
    status = 499
    reason = "stop"
    try:
        yield writer.start()
        async for item in _chain(first, events):
            if isinstance(item, TextDelta):
                yield writer.text(item.text)
            elif isinstance(item, CallDelta):
                yield writer.call(item)
            elif isinstance(item, UsageDelta):
                usage = merge_usage(usage, item)
            elif isinstance(item, Finish):
                reason = item.reason or reason
        yield writer.finish(reason, usage)
        status = 200
    except Exception as exc:
        error = _error(exc, route)
        status = error.status
        yield event("error", {"error": error.anthropic_body()["error"]})
    finally:
        with anyio.CancelScope(shield=True):
            await events.aclose()
        done(status, usage)


def timer() -> Callable[[], float]:
    """A function returning the milliseconds since it was made."""
    start = time.perf_counter()
    return lambda: round((time.perf_counter() - start) * 1000, 2)
