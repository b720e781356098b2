"""The HTTP clients under the HTTP transports: ``httpx2`` or ``aiohttp``, one interface.

A `Wire` posts a request body and hands back the status, headers and body,
whole (`Wire.post`) or as lines while they arrive (`Wire.stream`). Its
failures are already typed: `ModelTimeoutError` for a timeout,
`ModelConnectionError` (naming the URL) when the server cannot be
reached or drops the connection before the reply, and
`ModelIncompleteStreamError` when a streamed reply that had begun
is cut (the connection reset or closed mid-body).

`HttpxWire` is the default (``httpx2`` is a core dependency).
`AiohttpWire` spends well under half the CPU of ``httpx2`` per request
(``benchmarks/bridge.py``); the bridge uses it when the environment names a proxy.
Otherwise the bridge uses `Http1Wire`, its
own HTTP/1.1 client, at about a fifth of the CPU of ``aiohttp``.
"""

from __future__ import annotations

import asyncio
import urllib.request
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import httpx2

from good_agent._extras import missing_extra
from good_agent.http.wire_errors import aiohttp_error, map_http_error, stream_cut
from good_agent.types.errors import ModelTimeoutError

if TYPE_CHECKING:
    import aiohttp


@dataclass(slots=True)
class WireReply:
    """A whole HTTP reply."""

    status: int
    headers: Mapping[str, str]
    body: bytes


class WireStream(Protocol):
    """A reply being received: status and headers now, the body as it arrives."""

    status: int
    headers: Mapping[str, str]

    def line_batches(self) -> AsyncIterator[list[str]]:
        """The body's lines (without their line ends), read to the end, in lists: the
        complete lines of one read together (one step of the reader for many small
        events), a last line without a line end alone at the end."""
        ...

    def chunks(self) -> AsyncIterator[bytes]:
        """The body's bytes as they arrive, read to the end (the bridge's pass-through
        path relays them as they are)."""
        ...

    async def read(self) -> bytes:
        """The rest of the body (for an error reply)."""
        ...


class Wire(Protocol):
    """Posts request bodies to HTTP endpoints (see the module docstring).

    ``limits_streams`` says whether `stream` honours ``total``: a time limit for
    the whole reply, kept with one timer instead of one check per read.
    """

    limits_streams: bool

    async def post(
        self, url: str, body: bytes, headers: Mapping[str, str], *, provider: str
    ) -> WireReply:
        """Post ``body``; return the whole reply."""
        ...

    def stream(
        self,
        url: str,
        body: bytes,
        headers: Mapping[str, str],
        *,
        provider: str,
        total: float | None = None,
    ) -> Any:
        """An async context manager giving a `WireStream` (``total``: seconds
        for the whole reply, when `limits_streams`)."""
        ...

    async def aclose(self) -> None:
        """Close the pooled connections."""
        ...


async def line_batches(chunks: AsyncIterator[bytes]) -> AsyncIterator[list[str]]:
    """The lines of a body read in ``chunks`` (UTF-8, without their line ends), the
    lines each chunk completes together in one list; a last line without a line end
    comes last. A line may be longer than any chunk."""
    held: list[bytes] = []
    async for chunk in chunks:
        if b"\n" not in chunk:
            if chunk:
                held.append(chunk)
            continue
        held.append(chunk)
        *complete, rest = b"".join(held).split(b"\n")
        held = [rest] if rest else []
        yield [line.decode("utf-8", "replace").rstrip("\r") for line in complete]
    if held:
        yield [b"".join(held).decode("utf-8", "replace").rstrip("\r")]


class _HttpxStream:
    def __init__(self, response: httpx2.Response) -> None:
        self.response = response
        self.status = response.status_code
        self.headers: Mapping[str, str] = response.headers

    def line_batches(self) -> AsyncIterator[list[str]]:
        return line_batches(self.response.aiter_bytes())

    def chunks(self) -> AsyncIterator[bytes]:
        return self.response.aiter_bytes()

    async def read(self) -> bytes:
        return await self.response.aread()


class HttpxWire:
    """A `Wire` on an ``httpx2.AsyncClient`` (shared with the caller when given)."""

    limits_streams = False

    def __init__(self, client: httpx2.AsyncClient, timeout: httpx2.Timeout) -> None:
        self.client = client
        self.timeout = timeout

    async def post(
        self, url: str, body: bytes, headers: Mapping[str, str], *, provider: str
    ) -> WireReply:
        """Post ``body``; return the whole reply."""
        try:
            response = await self.client.post(
                url, content=body, headers=_json_headers(headers), timeout=self.timeout
            )
        except httpx2.HTTPError as exc:
            raise map_http_error(exc, provider=provider) from exc
        return WireReply(response.status_code, response.headers, response.content)

    @asynccontextmanager
    async def stream(
        self,
        url: str,
        body: bytes,
        headers: Mapping[str, str],
        *,
        provider: str,
        total: float | None = None,
    ) -> AsyncIterator[_HttpxStream]:
        """The reply of a streamed request, read while it arrives (``httpx2`` has no
        limit for a whole reply: ``total`` must be ``None``)."""
        if total is not None:
            raise ValueError("HttpxWire cannot limit a whole streamed reply")
        try:
            async with self.client.stream(
                "POST", url, content=body, headers=_json_headers(headers), timeout=self.timeout
            ) as response:
                try:
                    yield _HttpxStream(response)
                except httpx2.TransportError as exc:
                    if isinstance(exc, httpx2.TimeoutException):
                        raise
                    raise stream_cut(provider, exc) from exc
        except httpx2.HTTPError as exc:
            raise map_http_error(exc, provider=provider) from exc

    async def aclose(self) -> None:
        """Close the client."""
        await self.client.aclose()


class _AiohttpStream:
    def __init__(self, response: aiohttp.ClientResponse) -> None:
        self.response = response
        self.status = response.status
        self.headers: Mapping[str, str] = response.headers

    def line_batches(self) -> AsyncIterator[list[str]]:
        # Split here: aiohttp's own line reader refuses lines over its buffer limit
        # (a few MiB), and one event of a big tool call can be longer than that.
        return line_batches(self.response.content.iter_any())

    def chunks(self) -> AsyncIterator[bytes]:
        return self.response.content.iter_any()

    async def read(self) -> bytes:
        return await self.response.read()


class AiohttpWire:
    """A `Wire` on one pooled ``aiohttp.ClientSession``, made on first use
    (inside the running event loop, as aiohttp requires).

    Args:
        max_connections: Pool size (connections open at once).
        connect_timeout: Seconds to open a connection.
        read_timeout: Seconds between two reads; also the longest wait for a free
            connection from the pool.
    """

    limits_streams = True

    def __init__(
        self,
        *,
        max_connections: int = 100,
        connect_timeout: float = 10.0,
        read_timeout: float = 300.0,
    ) -> None:
        self.max_connections = max_connections
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        try:
            import aiohttp  # noqa: F401
        except ModuleNotFoundError as exc:
            raise missing_extra("server", "AiohttpWire", exc) from None

    @property
    def session(self) -> aiohttp.ClientSession:
        """The session of the running event loop (made on first use in it)."""
        loop = asyncio.get_running_loop()
        if self._session is None or self._session.closed or self._loop is not loop:
            import aiohttp

            self._loop = loop

            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self.max_connections),
                timeout=aiohttp.ClientTimeout(
                    total=None,
                    connect=self.read_timeout,
                    sock_connect=self.connect_timeout,
                    sock_read=self.read_timeout,
                ),
                # Proxies from the environment, as httpx2 takes them; only when some
                # are set, since aiohttp then reads the environment (and netrc, in a
                # worker thread) on every request.
                trust_env=bool(urllib.request.getproxies()),
            )
        return self._session

    async def post(
        self, url: str, body: bytes, headers: Mapping[str, str], *, provider: str
    ) -> WireReply:
        """Post ``body``; return the whole reply."""
        import aiohttp

        try:
            async with self.session.post(url, data=body, headers=_json_headers(headers)) as reply:
                data = await reply.read()
                return WireReply(reply.status, reply.headers, data)
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise _aiohttp_error(exc, url, provider) from exc

    @asynccontextmanager
    async def stream(
        self,
        url: str,
        body: bytes,
        headers: Mapping[str, str],
        *,
        provider: str,
        total: float | None = None,
    ) -> AsyncIterator[_AiohttpStream]:
        """The reply of a streamed request, read while it arrives; with ``total``, a
        reply not finished in that many seconds is a `ModelTimeoutError`."""
        import aiohttp

        timeout = None
        if total is not None:
            timeout = aiohttp.ClientTimeout(
                total=total,
                connect=self.read_timeout,
                sock_connect=self.connect_timeout,
                sock_read=self.read_timeout,
            )
        try:
            async with self.session.post(
                url, data=body, headers=_json_headers(headers), timeout=timeout
            ) as reply:
                try:
                    yield _AiohttpStream(reply)
                except (aiohttp.ClientError, ConnectionError) as exc:
                    if isinstance(exc, TimeoutError):
                        raise
                    raise stream_cut(provider, exc) from exc
        except aiohttp.ServerTimeoutError as exc:  # no data for read_timeout seconds
            raise _aiohttp_error(exc, url, provider) from exc
        except TimeoutError as exc:  # the whole reply took longer than ``total``
            if total is None:
                raise _aiohttp_error(exc, url, provider) from exc
            raise ModelTimeoutError(
                f"the streamed reply took longer than {total:g} s", provider=provider
            ) from None
        except aiohttp.ClientError as exc:
            raise _aiohttp_error(exc, url, provider) from exc

    async def aclose(self) -> None:
        """Close the session and its connections."""
        session, self._session = self._session, None
        if session is not None:
            await session.close()


def aiohttp_available() -> bool:
    """Whether ``aiohttp`` can be imported (the ``server`` extra installs it)."""
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        return False
    return True


def _json_headers(headers: Mapping[str, str]) -> dict[str, str]:
    return {"Content-Type": "application/json", **headers}


def _aiohttp_error(exc: BaseException, url: str, provider: str) -> Exception:
    return aiohttp_error(exc, provider=provider, url=url)
