"""The shared base of every vendor's HTTP transport: one pooled ``httpx2.AsyncClient``.

`HttpTransport` is the base of each vendor's HTTP transport
(``providers/<vendor>/http_transport.py``), which says only what is the vendor's own:
its endpoint, its headers and how a body asks for a stream. It posts the codec's body
to that endpoint, whole (`HttpTransport.send`) or streamed
(`HttpTransport.stream`: Server-Sent Events, or NDJSON for Ollama). The agent's
models (`HttpTransport.for_model`) and the bridge's routes build the same classes.
A failed attempt is sent again by the transport's
`Retries` (a stream only until its response began).
A stream is read to the end of the response even after the provider's final event
(``[DONE]``, ``message_stop``), so the connection returns to the pool. Keys travel in
headers, never in URLs. Every failure is a typed
`ModelError`; status errors name the URL.
"""

from __future__ import annotations

import copy
import json
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AsyncExitStack
from typing import Any, ClassVar, Self

import anyio
import httpx2
import pydantic_core

from good_agent.http.endpoint import (
    checked_base_url,
    is_vendor_host,
    missing_key,
    resolve_endpoint,
)
from good_agent.http.retries import NO_RETRIES, Retries
from good_agent.http.transport import DONE_EVENT, JSONDict
from good_agent.http.wire import HttpxWire, Wire, WireReply, WireStream
from good_agent.http.wire_errors import error_for_status, preview, server_wait
from good_agent.types.errors import (
    ModelConfigError,
    ModelError,
    ModelResponseError,
    ModelTimeoutError,
)

_SCAN: Callable[[str, int], tuple[Any, int]] = getattr(json.JSONDecoder(), "scan_once")  # noqa: B009
"""The JSON decoder's scanner (C): a value from a position, and where it ends."""
_FROM_JSON = pydantic_core.from_json
"""pydantic-core's JSON parser (Rust), the fast path of `_sse_payload`."""
_BODY_TEXT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
"""A request body's JSON text (the encoder made once, not per request)."""


def _sse_payload(data: str) -> Any:
    """One event's data: `DONE_EVENT` for ``[DONE]``, ``None`` when empty, else
    its JSON value (an object, if the provider keeps to its format)."""
    if data == "[DONE]":
        return DONE_EVENT
    if not data:
        return None
    # pydantic-core's parser first: on valid JSON it gives what ``json.loads`` gives,
    # in about 0.6x the time (keys cached, values not: no reply text is kept). What it
    # refuses (a lone surrogate escape, nesting past its limit, invalid JSON) goes on
    # to the standard library, which decides as before.
    try:
        return _FROM_JSON(data, cache_strings="keys")
    except (ValueError, TypeError):
        pass
    # The decoder's scanner (``json.loads`` without its two whitespace matches and two
    # calls); anything it does not take whole goes to ``json.loads``, which accepts
    # surrounding whitespace and raises the usual error.
    try:
        value, end = _SCAN(data, 0)
    except StopIteration:
        return json.loads(data)
    return value if end == len(data) else json.loads(data)


class HttpTransport(ABC):
    """The base of every vendor's HTTP transport: pooling, sending, streaming, errors.

    A vendor's subclass sets ``provider`` (the upstream's name in errors),
    ``profile_provider`` (the provider whose profiles and codec apply) and
    ``default_base_url``, and says its endpoint (`url`), and where they differ
    from the defaults here, its headers (`headers`: a bearer token) and the body as sent
    (`wire_body`: ``stream: true`` for a streamed reply). A built-in vendor also
    names its environment variables (``url_env``, ``key_env``) for `for_model`.

    Args:
        model: The upstream model id (Gemini puts it in the URL).
        base_url: Endpoint root (the provider's public API by default).
        api_key: Key sent in the provider's header (none when not given).
        client: A shared ``httpx2.AsyncClient`` (one is made on first use otherwise).
        wire: The HTTP client to send with instead (an `AiohttpWire`, say);
            a given wire is the caller's to close.
        connect_timeout: Seconds to connect.
        read_timeout: Seconds between two reads of a reply.
        request_timeout: Seconds for a whole non-streamed call (``None``: no limit).
        stream_timeout: Seconds for a whole streamed reply, kept by the wire when it
            can (`limits_streams`); ``None``: no limit here.
        max_retries: How many times a failed attempt is sent again (see
            `good_agent.http.retries`), or a whole `Retries` policy.
    """

    provider: str
    profile_provider: ClassVar[str]
    default_base_url: ClassVar[str]
    url_env: ClassVar[str | None] = None
    """The environment variable naming the vendor's endpoint (read by `for_model`)."""
    key_env: ClassVar[tuple[str, ...]] = ()
    """The environment variables holding the vendor's key, in order (for `for_model`)."""
    vendor_hosts: ClassVar[Mapping[str, str]] = {}
    """The host of the vendor's own API, by ``provider``: the only host the environment
    key is sent to. A subclass with a ``provider`` of its own (an OpenAI-compatible
    service) is not the vendor's, so it takes no key from the vendor's environment."""

    def __init__(
        self,
        model: str = "",
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        client: httpx2.AsyncClient | None = None,
        wire: Wire | None = None,
        connect_timeout: float = 10.0,
        read_timeout: float = 300.0,
        request_timeout: float | None = None,
        stream_timeout: float | None = None,
        max_retries: int | Retries = 2,
    ) -> None:
        self.model = model
        self.base_url = (checked_base_url(base_url) or self.default_base_url).rstrip("/")
        self.api_key = api_key
        self._client = client
        self._owns_client = client is None and wire is None
        self._wire = wire
        self.timeout = httpx2.Timeout(read_timeout, connect=connect_timeout, pool=read_timeout)
        self.request_timeout = request_timeout
        self.stream_timeout = stream_timeout
        self.retries = max_retries if isinstance(max_retries, Retries) else Retries(max_retries)
        self.unusable: ModelConfigError | None = None
        """Why this transport cannot send (no key for the vendor's own endpoint), raised
        by the first request rather than when the model is built."""

    @classmethod
    def for_model(
        cls,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        client: httpx2.AsyncClient | None = None,
        max_retries: int | Retries = 2,
        **options: Any,
    ) -> Self:
        """The transport of a model built in code: endpoint and key follow the rules of
        `good_agent.http.endpoint` (the vendor's environment key only to the
        vendor). Bound for the vendor's own endpoint with no key, its first request
        raises a `ModelConfigError` naming the variables to set. ``options``
        are the subclass's own arguments."""
        host = cls.vendor_hosts.get(cls.provider)
        if not cls.key_env or host is None:
            return cls(
                model,
                base_url=base_url,
                api_key=api_key,
                client=client,
                max_retries=max_retries,
                **options,
            )
        endpoint = resolve_endpoint(
            host,
            base_url=base_url,
            api_key=api_key,
            url_env=cls.url_env or "",
            key_env=cls.key_env,
        )
        transport = cls(
            model,
            base_url=endpoint.base_url,
            api_key=endpoint.api_key,
            client=client,
            max_retries=max_retries,
            **options,
        )
        if endpoint.api_key is None and (
            endpoint.base_url is None or is_vendor_host(host, endpoint.base_url)
        ):
            transport.unusable = missing_key(model, cls.key_env)
        return transport

    def one_attempt(self) -> Self:
        """A transport like this one that sends each request once (no retries); a
        client this transport made is not shared with the copy."""
        clone = copy.copy(self)
        clone.retries = NO_RETRIES
        if self._owns_client:
            clone._client = None
            clone._wire = None
        return clone

    @property
    def client(self) -> httpx2.AsyncClient:
        """The HTTP client, made on first use when none was given."""
        if self._client is None:
            self._client = httpx2.AsyncClient(timeout=self.timeout)
        return self._client

    def headers(self) -> dict[str, str]:
        """The request headers: the key as a bearer token when one is set (a vendor
        with a header of its own overrides this)."""
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    @abstractmethod
    def url(self, body: JSONDict, *, stream: bool) -> str:
        """The endpoint for ``body``."""

    def wire_body(self, body: JSONDict, *, stream: bool) -> JSONDict:
        """``body`` as sent: ``stream: true`` for a streamed reply."""
        return {**body, "stream": True} if stream else body

    @property
    def wire(self) -> Wire:
        """The HTTP client requests go through (an `HttpxWire` on `client`
        unless one was given)."""
        if self._wire is None:
            self._wire = HttpxWire(self.client, self.timeout)
        return self._wire

    @property
    def limits_streams(self) -> bool:
        """Whether this transport ends a streamed reply after `stream_timeout`
        (its wire keeps that limit with one timer)."""
        return self.stream_timeout is not None and self.wire.limits_streams

    def encode(self, body: JSONDict, *, stream: bool) -> bytes:
        """The request body as sent (compact UTF-8 JSON)."""
        wire_body = self.wire_body(body, stream=stream)
        return _BODY_TEXT(wire_body).encode()

    async def send(self, body: JSONDict) -> JSONDict:
        """Send ``body`` and return the whole reply (``request_timeout`` bounds the
        attempts together)."""
        if self.unusable is not None:
            raise self.unusable
        url = self.url(body, stream=False)
        data = self.encode(body, stream=False)
        headers = self.headers()

        async def attempt() -> WireReply:
            reply = await self.wire.post(url, data, headers, provider=self.provider)
            if reply.status >= 400:
                raise self.status_error(reply.status, reply.headers, reply.body, url=url)
            return reply

        try:
            if self.request_timeout is None:
                reply = await self.retries.call(attempt)
            else:
                with anyio.fail_after(self.request_timeout):
                    reply = await self.retries.call(attempt)
            result = json.loads(reply.body)
        except TimeoutError:
            raise ModelTimeoutError(
                f"{self.provider} request timed out", provider=self.provider
            ) from None
        except ValueError as exc:
            raise self.transport_error(exc) from exc
        if not isinstance(result, dict):
            raise ModelResponseError(
                f"{self.provider} sent a JSON {type(result).__name__} where an object was due",
                provider=self.provider,
                status_code=reply.status,
            )
        return result

    async def stream(self, body: JSONDict) -> AsyncIterator[JSONDict]:
        """Send ``body`` for a streamed reply; yield each event's JSON, to the end
        (`stream_batches`, one event at a time)."""
        async for batch in self.stream_batches(body):
            for event in batch:
                yield event

    async def stream_batches(self, body: JSONDict) -> AsyncIterator[list[JSONDict]]:
        """Send ``body`` for a streamed reply; yield its events' JSON in lists, the
        events of one read of the connection together (never an empty list).

        A failed attempt is retried until the response began (its status is a
        success); from then on nothing is sent again."""
        if self.unusable is not None:
            raise self.unusable
        url = self.url(body, stream=True)
        data = self.encode(body, stream=True)
        headers = self.headers()
        total = self.stream_timeout if self.limits_streams else None

        async def attempt() -> tuple[AsyncExitStack, WireStream]:
            opened = AsyncExitStack()
            try:
                reply = await opened.enter_async_context(
                    self.wire.stream(url, data, headers, provider=self.provider, total=total)
                )
                if reply.status >= 400:
                    content = await reply.read()
                    raise self.status_error(reply.status, reply.headers, content, url=url)
            except BaseException:
                await opened.aclose()
                raise
            return opened, reply

        opened, reply = await self.retries.call(attempt)
        try:
            async with opened:
                async for batch in self.event_batches(reply):
                    yield batch
        except ValueError as exc:
            raise self.transport_error(exc) from exc

    async def event_batches(self, reply: WireStream) -> AsyncIterator[list[JSONDict]]:
        """The JSON payloads of a Server-Sent Event stream, read to its end, those
        completed by one read together.

        ``data: [DONE]`` is passed on as `DONE_EVENT`; a reply that is not an
        event stream (by its content type), or an event whose data is JSON but not an
        object (``data: 42``), is a `ModelResponseError`.
        """
        kind = reply.headers.get("content-type", "")
        if "text/event-stream" not in kind.lower():
            raise ModelResponseError(
                f"{self.provider} did not answer with an event stream (content type "
                f"{kind or 'missing'!r})",
                provider=self.provider,
            )
        data: list[str] = []
        async for lines in reply.line_batches():
            batch: list[JSONDict] = []
            try:
                for line in lines:
                    if not line:  # an event ends
                        if data:
                            value = _sse_payload(data[0] if len(data) == 1 else "\n".join(data))
                            data = []
                            if type(value) is dict:
                                batch.append(value)
                            elif value is not None:
                                batch.append(self.event_object(value))
                    elif line.startswith("data: "):
                        data.append(line[6:])
                    elif line.startswith("data:"):
                        data.append(line[5:])
            except BaseException:
                if batch:  # the events before a malformed one are still passed on
                    yield batch
                raise
            if batch:
                yield batch
        # An event not ended by a blank line is discarded, as the SSE standard says.

    def event_object(self, value: Any) -> JSONDict:
        """``value`` if it is a JSON object; a `ModelResponseError` otherwise
        (an event the provider's format has no place for is not skipped)."""
        if isinstance(value, dict):
            return value
        raise ModelResponseError(
            f"{self.provider} sent a malformed stream event: a JSON {type(value).__name__} "
            f"({preview(json.dumps(value))}) where an object was due",
            provider=self.provider,
            body=value,
        )

    def status_error(
        self, status: int, headers: Mapping[str, str], content: bytes, *, url: str = ""
    ) -> ModelError:
        """The typed error for an HTTP error status at ``url``, with the wait the server
        asked for (``retry-after-ms`` or ``Retry-After``)."""
        text = content.decode("utf-8", "replace")
        try:
            body: Any = json.loads(text)
        except ValueError:
            body = text[:500]
        message: Any = body.get("error", body) if isinstance(body, dict) else body
        if isinstance(message, dict):
            message = message.get("message", message)
        return error_for_status(
            status,
            str(message),
            provider=self.provider,
            body=body,
            retry_after=server_wait(headers),
            url=url,
        )

    def transport_error(self, exc: Exception) -> Exception:
        """Map a decoding failure to a `ModelError`."""
        if isinstance(exc, ModelError):
            return exc
        return ModelResponseError(
            f"{self.provider} sent a reply that is not valid JSON", provider=self.provider
        )

    async def aclose(self) -> None:
        """Close the HTTP client if this transport made it (a given client is the caller's)."""
        client, self._client = self._client, None
        if client is not None and self._owns_client:
            self._wire = None
            await client.aclose()
