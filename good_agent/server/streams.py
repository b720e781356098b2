"""Streamed replies: the model core's deltas relayed to the client as server-sent events.

The stream is *primed* before the response starts (`prime`), so a refusal, a
rate limit or a timeout on connect still gets its HTTP status. After that one walk,
`relay`, serves every client protocol: it reads the stream in batches (the
deltas of one read of the upstream together), has the protocol's writer (a
`ClientEvents`) encode each delta, and hands the bytes of a batch on as one
chunk. A failure (an upstream stream cut before its final event, ``stream_timeout``
passing...) ends the stream with the protocol's error event, never with a finish
reason, and a client that goes away cancels the upstream call (its stream is closed
in a shielded ``finally``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from typing import Protocol

from good_agent.providers.streaming import (
    ReasoningDelta,
    TextDelta,
    ToolCallArgs,
    ToolCallStart,
    UsageDelta,
)
from good_agent.server.common.closing import close_shielded
from good_agent.server.common.errors import BridgeError, from_model_error, internal_error
from good_agent.server.served import BridgeRequest, ServedModel, StreamBatch
from good_agent.types.errors import ModelError
from good_agent.types.messages import ModelResponse
from good_agent.types.usage import Usage

logger = logging.getLogger("good_agent.server")

AccessLog = Callable[[int, Usage], None]
"""Called once when a stream ends: final status and usage."""

Batches = AsyncGenerator[StreamBatch, None]
"""A served stream: lists of deltas, the final reply last."""


class ClientEvents(Protocol):
    """What one client protocol writes for a streamed reply; `relay` calls it.

    Each method returns the bytes to send (empty when the protocol sends nothing
    for it). ``usage`` is kept up to date by `relay` as the upstream reports it.
    """

    usage: Usage

    def opening(self) -> bytes:
        """Sent before the first delta."""
        ...

    def text(self, text: str) -> bytes:
        """A text delta."""
        ...

    def reasoning(self, text: str) -> bytes:
        """A reasoning delta."""
        ...

    def call(self, delta: ToolCallStart | ToolCallArgs) -> bytes:
        """A tool call's start or a fragment of its arguments."""
        ...

    async def reply(self, reply: ModelResponse) -> bytes:
        """The whole reply, once the upstream's stream has ended."""
        ...

    def ending(self) -> bytes:
        """Sent last, after the reply (raises when the stream held no reply and the
        protocol needs one)."""
        ...

    def failure(self, error: BridgeError, request_id: str) -> bytes:
        """The protocol's error event, ending a stream that failed."""
        ...


async def prime(served: ServedModel, request: BridgeRequest) -> tuple[Batches, list[StreamBatch]]:
    """Start ``served``'s stream and wait for its first batch (errors raise here)."""
    batches = served.stream(request)
    try:
        first = await anext(batches)
    except StopAsyncIteration:
        return batches, []
    except BaseException:
        await close_shielded(batches)
        raise
    return batches, [first]


class Primed(AsyncIterator[StreamBatch]):
    """A primed stream: the batches of ``first`` (read by `prime`), then those of
    ``batches``, each step of which is ``batches``' own (no generator between them).

    Args:
        first: The batches already read.
        batches: The rest of the stream.
    """

    __slots__ = ("batches", "first")

    def __init__(self, first: list[StreamBatch], batches: AsyncIterator[StreamBatch]) -> None:
        self.first = first[::-1]
        self.batches = batches

    def __anext__(self) -> Awaitable[StreamBatch]:
        if self.first:
            return _now(self.first.pop())
        return self.batches.__anext__()


async def _now(batch: StreamBatch) -> StreamBatch:
    return batch


def merge_usage(usage: Usage, delta: UsageDelta) -> Usage:
    """``usage`` with the counts ``delta`` reports."""
    return Usage(
        usage.input_tokens if delta.input_tokens is None else delta.input_tokens,
        usage.output_tokens if delta.output_tokens is None else delta.output_tokens,
        usage.cache_read_tokens if delta.cache_read_tokens is None else delta.cache_read_tokens,
        usage.cache_write_tokens if delta.cache_write_tokens is None else delta.cache_write_tokens,
        usage.cache_write_1h_tokens
        if delta.cache_write_1h_tokens is None
        else delta.cache_write_1h_tokens,
    )


def stream_error(exc: Exception, served: ServedModel, request_id: str) -> BridgeError:
    """``exc``, raised while a reply streamed from ``served``, as the client's error: a
    `ModelError` mapped, anything unexpected logged once and a 500 with the request id."""
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


async def relay(
    served: ServedModel,
    batches: Batches,
    first: list[StreamBatch],
    writer: ClientEvents,
    *,
    done: AccessLog,
    request_id: str = "-",
) -> AsyncIterator[bytes]:
    """The client's events for one reply, written by ``writer``: one chunk of bytes
    per batch of deltas; ``done`` gets the final status and usage."""
    status = 499
    out = [writer.opening()]
    try:
        async for batch in Primed(first, batches):
            for item in batch:
                if type(item) is TextDelta:
                    out.append(writer.text(item.text))
                elif type(item) is ToolCallArgs or type(item) is ToolCallStart:
                    out.append(writer.call(item))
                elif type(item) is ReasoningDelta:
                    out.append(writer.reasoning(item.text))
                elif type(item) is UsageDelta:
                    writer.usage = merge_usage(writer.usage, item)
                elif type(item) is ModelResponse:
                    writer.usage = item.usage
                    out.append(await writer.reply(item))
            data = b"".join(out)
            out.clear()
            if data:
                yield data
        out.append(writer.ending())
        yield b"".join(out)
        status = 200
    except Exception as exc:
        error = stream_error(exc, served, request_id)
        status = error.status
        out.append(writer.failure(error, request_id))
        yield b"".join(out)
    finally:
        await close_shielded(batches)
        done(status, writer.usage)


def timer() -> Callable[[], float]:
    """A function returning the milliseconds since it was made."""
    start = time.perf_counter()
    return lambda: round((time.perf_counter() - start) * 1000, 2)
