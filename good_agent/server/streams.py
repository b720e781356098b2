"""Streamed replies: the model core's deltas relayed to the client as server-sent events.

The stream is *primed* before the response starts (:func:`prime`), so a refusal, a
rate limit or a timeout on connect still gets its HTTP status. After that, chunks
are written as the deltas arrive; a failure (an upstream stream cut before its
final event, ``stream_timeout`` passing...) ends the stream with an error event,
never with a finish reason, and a client that goes away cancels the upstream call
(its stream is closed in a shielded ``finally``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable

from good_agent.providers.streaming import (
    ReasoningDelta,
    TextDelta,
    ToolCallArgs,
    ToolCallStart,
    UsageDelta,
)
from good_agent.server.anthropic_api import MessageStreamWriter, event
from good_agent.server.closing import close_shielded
from good_agent.server.errors import BridgeError, from_model_error, internal_error
from good_agent.server.openai_api import ChunkWriter, sse
from good_agent.server.served import BridgeRequest, ServedModel, StreamItem, finish_of
from good_agent.types.errors import ModelError
from good_agent.types.messages import ModelResponse
from good_agent.types.usage import Usage

logger = logging.getLogger("good_agent.server")

AccessLog = Callable[[int, Usage], None]
"""Called once when a stream ends: final status and usage."""

Items = AsyncGenerator[StreamItem, None]


async def prime(served: ServedModel, request: BridgeRequest) -> tuple[Items, list[StreamItem]]:
    """Start ``served``'s stream and wait for its first item (errors raise here)."""
    items = served.stream(request)
    try:
        first = await anext(items)
    except StopAsyncIteration:
        return items, []
    except BaseException:
        await close_shielded(items)
        raise
    return items, [first]


class Primed(AsyncIterator[StreamItem]):
    """A primed stream: the items of ``first`` (read by :func:`prime`), then those of
    ``items``, each step of which is ``items``' own (no generator between them).

    Args:
        first: The items already read.
        items: The rest of the stream.
    """

    __slots__ = ("first", "items")

    def __init__(self, first: list[StreamItem], items: AsyncIterator[StreamItem]) -> None:
        self.first = first[::-1]
        self.items = items

    def __anext__(self) -> Awaitable[StreamItem]:
        if self.first:
            return _now(self.first.pop())
        return self.items.__anext__()


async def _now(item: StreamItem) -> StreamItem:
    return item


def merge_usage(usage: Usage, delta: UsageDelta) -> Usage:
    """``usage`` with the counts ``delta`` reports."""
    return Usage(
        usage.input_tokens if delta.input_tokens is None else delta.input_tokens,
        usage.output_tokens if delta.output_tokens is None else delta.output_tokens,
    )


def _error(exc: Exception, served: ServedModel, request_id: str) -> BridgeError:
    if isinstance(exc, BridgeError):
        return exc
    if isinstance(exc, ModelError):
        return from_model_error(exc, served.name)
    logger.error(
        "request %s: the stream from '%s' failed: %s",
        request_id,
        served.name,
        type(exc).__name__,
        exc_info=exc,
    )
    return internal_error(request_id)


async def openai_stream(
    served: ServedModel,
    items: Items,
    first: list[StreamItem],
    *,
    model: str,
    include_usage: bool,
    done: AccessLog,
    request_id: str = "-",
) -> AsyncIterator[bytes]:
    """Chat Completions chunks for one reply, ``data: [DONE]`` last."""
    writer = ChunkWriter(model, include_usage=include_usage)
    usage = Usage()
    status = 499
    try:
        yield writer.role()
        async for item in Primed(first, items):
            if isinstance(item, TextDelta):
                yield writer.text(item.text)
            elif isinstance(item, ReasoningDelta):
                yield writer.reasoning(item.text)
            elif isinstance(item, ToolCallStart | ToolCallArgs):
                yield writer.call(item)
            elif isinstance(item, UsageDelta):
                usage = merge_usage(usage, item)
            elif isinstance(item, ModelResponse):
                usage = item.usage
                yield writer.finish(finish_of(item))
        if include_usage:
            yield writer.usage(usage)
        yield sse("[DONE]")
        status = 200
    except Exception as exc:
        error = _error(exc, served, request_id)
        status = error.status
        yield sse(error.openai_body())
    finally:
        await close_shielded(items)
        done(status, usage)


async def anthropic_stream(
    served: ServedModel,
    items: Items,
    first: list[StreamItem],
    *,
    model: str,
    done: AccessLog,
    request_id: str = "-",
) -> AsyncIterator[bytes]:
    """Messages stream events for one reply, ``message_stop`` last.

    ``message_start`` is written just before the first content, so it carries the
    input tokens whenever the upstream reports them first (as Anthropic does).
    """
    writer = MessageStreamWriter(model)
    usage = Usage()
    status = 499
    started = False
    try:
        async for item in Primed(first, items):
            if isinstance(item, UsageDelta):
                usage = merge_usage(usage, item)
                continue
            if isinstance(item, ModelResponse):
                usage = item.usage
            if not started:
                started = True
                yield writer.start(usage)
            if isinstance(item, TextDelta):
                yield writer.text(item.text)
            elif isinstance(item, ToolCallStart | ToolCallArgs):
                yield writer.call(item)
            elif isinstance(item, ModelResponse):
                yield writer.finish(finish_of(item), usage)
        status = 200
    except Exception as exc:
        error = _error(exc, served, request_id)
        status = error.status
        if not started:
            yield writer.start(usage)
        yield event("error", {"error": error.anthropic_body()["error"], "request_id": request_id})
    finally:
        await close_shielded(items)
        done(status, usage)


def timer() -> Callable[[], float]:
    """A function returning the milliseconds since it was made."""
    start = time.perf_counter()
    return lambda: round((time.perf_counter() - start) * 1000, 2)
