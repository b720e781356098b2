"""A `Wire` of our own: HTTP/1.1 on asyncio,
replies parsed by ``httptools``.

The bridge sends one POST per call to a handful of upstreams; what it needs of an HTTP
client is little (keep-alive pools, Content-Length, chunked and close-delimited
bodies, TLS, timeouts), and ``aiohttp`` spends about five times the CPU of this module
per request on it (``docs/performance.md``). `Http1Wire` is one
`asyncio.Protocol` per connection feeding an ``httptools`` response parser,
an idle list per ``(scheme, host, port)``, and the request head and body written
in one ``transport.write``.

What it does not do: HTTP/2, proxies (the bridge takes `AiohttpWire` when the
environment names a proxy), redirects, retries (a POST is sent once), ``Expect:
100-continue``. It sends no ``Accept-Encoding``; a reply compressed anyway with
``gzip`` or ``deflate`` is decoded, any other content coding is refused.
"""

from __future__ import annotations

import asyncio
import re
import ssl
import zlib
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager
from typing import Any, cast
from urllib.parse import urlsplit

try:
    import httptools
except ModuleNotFoundError:  # the server extra is not installed
    httptools = None  # type: ignore[assignment]

from good_agent._extras import missing_extra
from good_agent.http.wire import WireReply, line_batches
from good_agent.http.wire_errors import connection_error, stream_cut
from good_agent.types.errors import (
    ModelBadRequestError,
    ModelError,
    ModelResponseError,
    ModelTimeoutError,
)

IDLE_SECONDS = 4.0
"""An idle connection older than this is closed instead of reused (servers close
theirs after a few seconds: uvicorn after 5)."""

PAUSE_BYTES = 1 << 20
"""A streamed reply buffered beyond this many unread bytes pauses reading from the socket."""

_DEFAULT_PORTS = {"http": 80, "https": 443}
_FORBIDDEN = frozenset(("host", "content-length", "transfer-encoding", "connection"))
_USER_AGENT = "good-agent"


class _Dropped(Exception):
    """The connection ended or failed (``reason`` says how) before the reply did."""

    def __init__(self, reason: str, *, began: bool) -> None:
        super().__init__(reason)
        self.began = began
        """Whether the reply's head had arrived (the body was cut) or not."""


class _ReadTimeout(Exception):
    """Nothing arrived for ``read_timeout`` seconds while a reply was awaited."""


class ReplyHeaders(Mapping[str, str]):
    """A reply's headers, looked up case-insensitively (repeated ones joined by ``, ``)."""

    __slots__ = ("_items",)

    def __init__(self, items: dict[str, str]) -> None:
        self._items = items

    def __getitem__(self, name: str) -> str:
        return self._items[name.lower()]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"ReplyHeaders({self._items!r})"


class _Connection(asyncio.Protocol):
    """One connection: parses the reply to the request in flight, keeps its body until read."""

    def __init__(self, wire: Http1Wire, key: tuple[str, str, int]) -> None:
        self.wire = wire
        self.key = key
        self.loop = asyncio.get_running_loop()
        self.parser = httptools.HttpResponseParser(self)
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.idle_since = 0.0
        self.busy = False
        self.counted = True
        """Whether the wire counts this connection as open."""
        self._waiter: asyncio.Future[None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._last_read = 0.0
        self._paused = False
        self._reset_reply()

    def _reset_reply(self) -> None:
        self.status = 0
        self.raw_headers: list[tuple[bytes, bytes]] = []
        self.headers: ReplyHeaders | None = None
        self.chunks: list[bytes] = []
        self.buffered = 0
        self.complete = False
        self.error: BaseException | None = None
        self.delimited = False  # a Content-Length or chunked body (else: until EOF)
        self.decoder: Any = None
        self.keep_alive = False
        self.interim = False
        self.streaming = False  # read while it arrives: the socket pauses for a slow reader

    # -- asyncio.Protocol ------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not subclasses of asyncio's: no isinstance check.
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        if not self.busy or self.complete:  # bytes nobody asked for: not trusted again
            self.close()
            return
        self._last_read = self.loop.time()
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError as exc:
            inner = exc.__context__  # what a callback of ours raised
            if isinstance(inner, ModelError):
                self._fail(inner)
            elif isinstance(inner, zlib.error):
                self._fail(_Dropped(f"the compressed body is corrupt ({inner})", began=True))
            else:
                began = self.headers is not None
                self._fail(_Dropped(f"the reply is not valid HTTP/1.1 ({exc})", began=began))

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._stop_timer()
        if not self.busy:
            self.wire._forget(self)
            return
        if self.complete or self.error is not None:
            return
        if self.headers is not None and not self.delimited and exc is None:
            self._finish()  # a body without a length ends with the connection
            return
        began = self.headers is not None
        reason = "the server closed the connection"
        if began:
            reason = "the reply ended before it was complete"
        if exc is not None:
            reason = f"{reason} ({exc})"
        self._fail(_Dropped(reason, began=began))

    # -- httptools callbacks --------------------------------------------------------

    def on_header(self, name: bytes, value: bytes) -> None:
        self.raw_headers.append((name, value))

    def on_headers_complete(self) -> None:
        status = self.parser.get_status_code()
        if 100 <= status < 200:  # an interim reply (103 Early Hints): the real one follows
            self.raw_headers = []
            self.interim = True
            return
        items: dict[str, str] = {}
        for raw_name, raw_value in self.raw_headers:
            name = raw_name.decode("latin-1").lower()
            value = raw_value.decode("latin-1")
            items[name] = f"{items[name]}, {value}" if name in items else value
        self.status = status
        self.delimited = "content-length" in items or "chunked" in items.get(
            "transfer-encoding", ""
        )
        coding = items.get("content-encoding", "identity").strip().lower()
        if coding == "gzip":
            self.decoder = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif coding == "deflate":
            self.decoder = zlib.decompressobj(zlib.MAX_WBITS)
        elif coding not in ("identity", ""):
            raise ModelResponseError(
                f"the reply's content encoding {coding!r} is not supported (gzip and deflate are)",
                status_code=self.status,
            )
        self.headers = ReplyHeaders(items)
        self._wake()

    def on_body(self, body: bytes) -> None:
        if self.decoder is not None:
            body = self.decoder.decompress(body)
            if not body:
                return
        self.chunks.append(body)
        self.buffered += len(body)
        if self.buffered > PAUSE_BYTES and self.streaming and not self._paused:
            assert self.transport is not None
            self._paused = True
            self.transport.pause_reading()
        self._wake()

    def on_message_complete(self) -> None:
        if self.interim:
            self.interim = False
            return
        # Asked here: once the callback returns, the parser has moved on to the next reply.
        self.keep_alive = self.parser.should_keep_alive()
        self._finish()

    # -- the request's side -----------------------------------------------------------

    def _finish(self) -> None:
        if self.decoder is not None:
            rest = self.decoder.flush()
            if rest:
                self.chunks.append(rest)
                self.buffered += len(rest)
        self.complete = True
        self._stop_timer()
        self._wake()

    def _fail(self, exc: BaseException) -> None:
        if self.error is None:
            self.error = exc
        self.close()
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def start(self, data: bytes, *, streaming: bool = False) -> None:
        """Send one request (head and body together) and start its read timer."""
        assert self.transport is not None
        self.busy = True
        self._reset_reply()
        self.streaming = streaming
        self._last_read = self.loop.time()
        self._timer = self.loop.call_later(self.wire.read_timeout, self._check_reads)
        self.transport.write(data)

    def _check_reads(self) -> None:
        self._timer = None
        if self.complete or self.error is not None:
            return
        quiet = self.loop.time() - self._last_read
        if quiet >= self.wire.read_timeout and not self.chunks and not self._paused:
            self._fail(_ReadTimeout())
            return
        wait = max(self.wire.read_timeout - quiet, 0.05)
        self._timer = self.loop.call_later(wait, self._check_reads)

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    async def wait(self) -> None:
        """Wait for the reply to move on (head, body, end or failure)."""
        waiter = self.loop.create_future()
        self._waiter = waiter
        try:
            await waiter
        finally:
            self._waiter = None

    async def head(self) -> None:
        """Wait for the reply's head; raise what ended the connection before it."""
        while self.headers is None and self.error is None:
            await self.wait()
        if self.headers is None:
            assert self.error is not None
            raise self.error

    async def whole(self) -> bytes:
        """Wait for the whole reply; its body."""
        while not self.complete and self.error is None:
            await self.wait()
        if not self.complete:
            assert self.error is not None
            raise self.error
        return self.take() or b""

    def take(self) -> bytes | None:
        """The body bytes received and not yet taken; ``None`` when none are."""
        if not self.chunks:
            return None
        data = self.chunks[0] if len(self.chunks) == 1 else b"".join(self.chunks)
        self.chunks = []
        self.buffered = 0
        if self._paused and self.transport is not None:
            self._paused = False
            self.transport.resume_reading()
        return data

    async def chunk(self) -> bytes | None:
        """The next body bytes as they arrive (all received so far together); ``None``
        at the end of the body."""
        while True:
            data = self.take()
            if data is not None:
                return data
            if self.complete:
                return None
            if self.error is not None:
                raise self.error
            await self.wait()

    @property
    def reusable(self) -> bool:
        """Whether the reply was read to its end and the server keeps the connection."""
        return (
            self.complete
            and self.error is None
            and not self.closed
            and not self.chunks
            and self.keep_alive
        )

    def close(self) -> None:
        """Close the socket (the pool forgets the connection when it is lost)."""
        self._stop_timer()
        if self.transport is not None and not self.closed:
            self.closed = True
            self.transport.close()


class _Target:
    """What a URL means to the wire: its pool key, Host header and request target."""

    __slots__ = ("host", "key", "port", "prefix", "shown", "tls")

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in _DEFAULT_PORTS or not parts.hostname:
            raise ModelBadRequestError(f"Http1Wire cannot send to {url.split('?')[0]!r}")
        self.host = parts.hostname
        self.port = parts.port or _DEFAULT_PORTS[scheme]
        self.tls = scheme == "https"
        self.key = (scheme, self.host, self.port)
        host = f"[{self.host}]" if ":" in self.host else self.host
        if self.port != _DEFAULT_PORTS[scheme]:
            host = f"{host}:{self.port}"
        path = parts.path or "/"
        if parts.query:
            path = f"{path}?{parts.query}"
        _check_text("the URL", path)
        self.prefix = f"POST {path} HTTP/1.1\r\nHost: {host}\r\n"
        self.shown = url


def _check_text(what: str, text: str) -> None:
    if "\r" in text or "\n" in text or "\0" in text:
        raise ModelBadRequestError(
            f"{what} holds a line break or NUL; refused (it would split the request head)"
        )


_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")


def _head(target: _Target, body: bytes, headers: Mapping[str, str], names: set[str]) -> bytes:
    """The request head (``names``: header names already found valid, added to)."""
    lines = [target.prefix, f"Content-Length: {len(body)}\r\n"]
    typed = agent = False
    for name, value in headers.items():
        lower = name.lower()
        if lower in _FORBIDDEN:
            continue
        if name not in names:
            if not _TOKEN.fullmatch(name):
                raise ModelBadRequestError(f"the header name {name!r} is not a valid name; refused")
            if len(names) < 1024:
                names.add(name)
        if "\r" in value or "\n" in value or "\0" in value:
            _check_text(f"the value of header {name!r}", value)
        typed = typed or lower == "content-type"
        agent = agent or lower == "user-agent"
        lines.append(f"{name}: {value}\r\n")
    if not typed:
        lines.append("Content-Type: application/json\r\n")
    if not agent:
        lines.append(f"User-Agent: {_USER_AGENT}\r\n")
    lines.append("\r\n")
    return "".join(lines).encode()


class _Http1Stream:
    """A `WireStream` on one connection."""

    def __init__(self, conn: _Connection, provider: str) -> None:
        self.conn = conn
        self.provider = provider
        self.status = conn.status
        assert conn.headers is not None
        self.headers: Mapping[str, str] = conn.headers

    async def _chunks(self) -> AsyncIterator[bytes]:
        while True:
            try:
                data = await self.conn.chunk()
            except _Dropped as exc:
                raise stream_cut(self.provider, exc) from None
            except _ReadTimeout:
                raise ModelTimeoutError(
                    f"{self.provider} request timed out", provider=self.provider
                ) from None
            if data is None:
                return
            yield data

    def line_batches(self) -> AsyncIterator[list[str]]:
        """The complete lines of each read together; a last line without a line end
        comes alone at the end."""
        return line_batches(self._chunks())

    def chunks(self) -> AsyncIterator[bytes]:
        """The body's bytes as they arrive."""
        return self._chunks()

    async def read(self) -> bytes:
        """The rest of the body."""
        return b"".join([chunk async for chunk in self._chunks()])


class Http1Wire:
    """A `Wire` speaking HTTP/1.1 itself (see the
    module docstring); pools are made in the running event loop, on first use.

    Args:
        max_connections: Connections open at once, over all hosts.
        connect_timeout: Seconds to open a connection (TLS handshake included).
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
        if not http1_available():
            raise missing_extra("server", "Http1Wire", ModuleNotFoundError("httptools"))
        self.max_connections = max_connections
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self._loop: asyncio.AbstractEventLoop | None = None
        self._idle: dict[tuple[str, str, int], list[_Connection]] = {}
        self._open = 0
        self._waiting: list[asyncio.Future[None]] = []
        self._targets: dict[str, _Target] = {}
        self._tls: ssl.SSLContext | None = None
        self._names: set[str] = set()

    @property
    def open_connections(self) -> int:
        """Connections open now (in use, idle or being opened)."""
        return self._open

    def _target(self, url: str) -> _Target:
        target = self._targets.get(url)
        if target is None:
            target = _Target(url)
            if len(self._targets) >= 256:
                self._targets.clear()
            self._targets[url] = target
        return target

    def _check_loop(self) -> asyncio.AbstractEventLoop:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # connections of another loop cannot be used here
            self._loop = loop
            self._idle = {}
            self._open = 0
            self._waiting = []
        return loop

    async def _acquire(self, target: _Target, provider: str) -> _Connection:
        loop = self._check_loop()
        while True:
            idle = self._idle.get(target.key)
            while idle:
                conn = idle.pop()
                if not conn.closed and loop.time() - conn.idle_since < IDLE_SECONDS:
                    return conn
                conn.close()
                self._discard(conn)
            if self._open < self.max_connections:
                break
            if not self._close_idle():
                await self._wait_for_room(loop, provider)
        self._open += 1
        try:
            return await self._connect(loop, target, provider)
        except BaseException:
            self._open -= 1
            self._room()
            raise

    async def _connect(
        self, loop: asyncio.AbstractEventLoop, target: _Target, provider: str
    ) -> _Connection:
        tls = None
        if target.tls:
            if self._tls is None:
                self._tls = ssl.create_default_context()
            tls = self._tls
        try:
            async with asyncio.timeout(self.connect_timeout):
                transport, conn = await loop.create_connection(
                    lambda: _Connection(self, target.key),
                    target.host,
                    target.port,
                    ssl=tls,
                    server_hostname=target.host if tls else None,
                )
        except TimeoutError:
            raise ModelTimeoutError(
                f"{provider} request timed out (connecting)", provider=provider
            ) from None
        except OSError as exc:
            raise connection_error(provider, target.shown, exc) from None
        if conn.transport is None:  # uvloop may tell the protocol after it returns
            conn.transport = transport
        return conn

    def _close_idle(self) -> bool:
        """Close the longest-idle connection of any pool; whether there was one."""
        oldest: _Connection | None = None
        for conns in self._idle.values():
            if conns and (oldest is None or conns[0].idle_since < oldest.idle_since):
                oldest = conns[0]
        if oldest is None:
            return False
        self._idle[oldest.key].remove(oldest)
        oldest.close()
        self._discard(oldest)
        return True

    async def _wait_for_room(self, loop: asyncio.AbstractEventLoop, provider: str) -> None:
        waiter: asyncio.Future[None] = loop.create_future()
        self._waiting.append(waiter)
        try:
            async with asyncio.timeout(self.read_timeout):
                await waiter
        except BaseException as exc:
            if waiter in self._waiting:
                self._waiting.remove(waiter)
            elif waiter.done() and not waiter.cancelled():
                self._room()  # woken, but not going on: pass the wake-up on
            if isinstance(exc, TimeoutError):
                raise ModelTimeoutError(
                    f"{provider} request timed out (waiting for a free connection)",
                    provider=provider,
                ) from None
            raise

    def _room(self) -> None:
        while self._waiting:
            waiter = self._waiting.pop(0)
            if not waiter.done():
                waiter.set_result(None)
                return

    def _discard(self, conn: _Connection) -> None:
        """Count ``conn`` closed (once)."""
        if conn.counted:
            conn.counted = False
            if conn.wire is self and conn.loop is self._loop:
                self._open -= 1
                self._room()

    def _forget(self, conn: _Connection) -> None:
        """An idle connection was lost: drop it from its pool."""
        idle = self._idle.get(conn.key)
        if idle and conn in idle:
            idle.remove(conn)
        self._discard(conn)

    def _release(self, conn: _Connection) -> None:
        conn.busy = False
        if conn.reusable and conn.loop is self._loop:
            conn.idle_since = conn.loop.time()
            self._idle.setdefault(conn.key, []).append(conn)
            self._room()
            return
        conn.close()
        self._discard(conn)

    def _error(self, exc: BaseException, target: _Target, provider: str) -> ModelError:
        if isinstance(exc, _ReadTimeout):
            return ModelTimeoutError(f"{provider} request timed out", provider=provider)
        return connection_error(provider, target.shown, ConnectionError(str(exc)))

    async def post(
        self, url: str, body: bytes, headers: Mapping[str, str], *, provider: str
    ) -> WireReply:
        """Post ``body``; return the whole reply."""
        target = self._target(url)
        data = _head(target, body, headers, self._names) + body
        conn = await self._acquire(target, provider)
        try:
            conn.start(data)
            try:
                content = await conn.whole()
            except (_Dropped, _ReadTimeout) as exc:
                raise self._error(exc, target, provider) from None
            except ModelError as exc:
                exc.provider = exc.provider or provider
                raise
            assert conn.headers is not None
            return WireReply(conn.status, conn.headers, content)
        finally:
            self._release(conn)

    @asynccontextmanager
    async def stream(
        self,
        url: str,
        body: bytes,
        headers: Mapping[str, str],
        *,
        provider: str,
        total: float | None = None,
    ) -> AsyncIterator[_Http1Stream]:
        """The reply of a streamed request, read while it arrives; with ``total``, a
        reply not finished in that many seconds is a `ModelTimeoutError`."""
        target = self._target(url)
        data = _head(target, body, headers, self._names) + body
        try:
            async with asyncio.timeout(total):
                conn = await self._acquire(target, provider)
                try:
                    conn.start(data, streaming=True)
                    try:
                        await conn.head()
                    except (_Dropped, _ReadTimeout) as exc:
                        raise self._error(exc, target, provider) from None
                    except ModelError as exc:
                        exc.provider = exc.provider or provider
                        raise
                    yield _Http1Stream(conn, provider)
                finally:
                    self._release(conn)
        except TimeoutError:
            if total is None:
                raise
            raise ModelTimeoutError(
                f"the streamed reply took longer than {total:g} s", provider=provider
            ) from None

    async def aclose(self) -> None:
        """Close the idle connections (one in use closes when its request ends)."""
        for conns in self._idle.values():
            for conn in conns:
                conn.close()
                self._discard(conn)
        self._idle = {}


def http1_available() -> bool:
    """Whether ``httptools`` can be imported (the ``server`` extra installs it)."""
    return httptools is not None
