"""The one transport protocol every provider implements: ``send(body)`` and ``stream(body)``.

A transport only moves bodies: the codec built ``body`` and decodes what comes
back. ``send`` returns the whole reply as a dict; ``stream`` yields the reply's
stream events as dicts (Server-Sent Event payloads, NDJSON lines or SDK events'
``model_dump()``) and is read to its end, so a pooled connection goes back to
its pool; closing it early cancels the request. Both raise typed
`ModelError`\\ s. A transport may also have
``stream_batches(body)``, yielding the events of one read of the connection
together in a list (the built-in HTTP transports do): a reader of the stream then
takes one step per read, not one per event.

A transport without ``stream`` (an older registered provider) is streamed as its
whole reply (`event_batches`).

Besides ``send`` and ``stream``, a transport may have the optional members declared
below, each its own small protocol (`Batching`, `Addressed`, `Retrying`, `Closing`,
`KeepsStreamTimeout`, `KnowsUnusable`). Callers never probe for them: they call the
functions here (`event_batches`, `transport_address`, `one_attempt`, `aclose`,
`limits_streams`, `unusable_reason`), which answer for a transport without the member
too.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any, Protocol, cast, runtime_checkable

JSONDict = dict[str, Any]
"""A JSON object as decoded by `json.loads`."""

DONE_EVENT: JSONDict = {"[DONE]": True}
"""What a transport yields for an SSE stream's ``data: [DONE]`` terminator (OpenAI
Chat Completions): the stream ended on purpose, even without a finish reason."""


@runtime_checkable
class Transport(Protocol):
    """Sends one provider request body, whole or streamed."""

    provider: str

    async def send(self, body: JSONDict) -> JSONDict:
        """Send ``body``; return the whole reply. Failures raise a ``ModelError``."""
        ...

    def stream(self, body: JSONDict) -> AsyncIterator[JSONDict]:
        """Send ``body`` for a streamed reply; yield its events as dicts, to the end."""
        ...


class SendOnly(Protocol):
    """A transport that can only send whole requests."""

    provider: str

    async def send(self, body: JSONDict) -> JSONDict:
        """Send ``body``; return the whole reply."""
        ...


AnyTransport = Transport | SendOnly
"""What a model accepts: a streaming transport, or one that only sends."""


@runtime_checkable
class _Streaming(Protocol):
    def stream(self, body: JSONDict) -> AsyncIterator[JSONDict]: ...


@runtime_checkable
class Batching(Protocol):
    """Optional: yields the events of one read of the connection together."""

    def stream_batches(self, body: JSONDict) -> AsyncIterator[list[JSONDict]]:
        """The streamed reply of ``body`` in lists of events."""
        ...


@runtime_checkable
class Addressed(Protocol):
    """Optional: says which server it sends to."""

    @property
    def base_url(self) -> str | None:
        """The endpoint root, or ``None`` for the provider's default."""
        ...


@runtime_checkable
class Retrying(Protocol):
    """Optional: retries failed attempts itself, and can give a copy that does not."""

    def one_attempt(self) -> Any:
        """A transport like this one that sends each request once."""
        ...


@runtime_checkable
class Closing(Protocol):
    """Optional: holds connections to close."""

    async def aclose(self) -> None:
        """Close the transport's connections."""
        ...


@runtime_checkable
class KeepsStreamTimeout(Protocol):
    """Optional: keeps a stream's time limit itself (the built-in HTTP transports)."""

    limits_streams: bool


@runtime_checkable
class KnowsUnusable(Protocol):
    """Optional: knows before sending that it cannot send (no key for its provider)."""

    unusable: Exception | None


def unusable_reason(transport: AnyTransport) -> Exception | None:
    """The error ``transport`` would raise on any request (no key), or ``None``."""
    return transport.unusable if isinstance(transport, KnowsUnusable) else None


def transport_address(transport: AnyTransport) -> str | None:
    """The server ``transport`` sends to (its ``base_url``), or ``None`` when it does not
    say (the provider's default endpoint)."""
    address = transport.base_url if isinstance(transport, Addressed) else None
    return str(address) if address else None


@functools.cache
def _class_declares(cls: type, member: str) -> bool:
    """Whether class ``cls`` has the method ``member`` (asked once per class: a
    protocol ``isinstance`` costs microseconds on every request)."""
    return callable(getattr(cls, member, None))


def streams(transport: AnyTransport) -> bool:
    """Whether ``transport`` streams replies itself."""
    return _class_declares(type(transport), "stream") or isinstance(transport, _Streaming)


def batches(transport: AnyTransport) -> bool:
    """Whether ``transport`` yields the events of one read together (`Batching`)."""
    return _class_declares(type(transport), "stream_batches") or isinstance(
        transport, Batching
    )


def one_attempt(transport: AnyTransport) -> AnyTransport:
    """``transport`` sending each request once: its ``one_attempt()``, else itself."""
    if isinstance(transport, Retrying):
        once: AnyTransport = transport.one_attempt()
        return once
    return transport


async def aclose(transport: AnyTransport) -> None:
    """Close ``transport``'s connections, when it holds any."""
    if isinstance(transport, Closing):
        await transport.aclose()


def limits_streams(transport: AnyTransport) -> bool:
    """Whether ``transport`` keeps a stream's time limit itself."""
    return isinstance(transport, KeepsStreamTimeout) and bool(transport.limits_streams)


def event_batches(transport: AnyTransport, body: JSONDict) -> AsyncGenerator[list[JSONDict], None]:
    """The stream of ``body`` in lists of events: the transport's own batches (the
    events of one read of the connection, from a transport with ``stream_batches``),
    its events one at a time, or its whole reply as the one event.

    Closing this generator closes the transport's stream at once (not when it is
    garbage collected), which cancels the upstream request. A transport whose
    ``stream_batches`` is an async generator is handed back as it is.
    """
    if not streams(transport):
        return _whole(transport, body)
    if batches(transport):
        inner = cast(Batching, transport).stream_batches(body)
        if isinstance(inner, AsyncGenerator):
            return inner
        return _closing(inner)
    return _closing(transport.stream(body), single=True)  # type: ignore[union-attr]


async def _whole(transport: AnyTransport, body: JSONDict) -> AsyncGenerator[list[JSONDict], None]:
    yield [await transport.send(body)]


async def _closing(
    inner: AsyncIterator[Any], *, single: bool = False
) -> AsyncGenerator[list[JSONDict], None]:
    try:
        async for item in inner:
            yield [item] if single else item
    finally:
        close = getattr(inner, "aclose", None)
        if close is not None:
            await close()
