"""Http1Wire against raw HTTP/1.1 servers on loopback: bodies, pooling, TLS, refusals.

Each upstream here is an ``asyncio`` socket server whose replies are written by hand,
so a test controls exactly what comes over the wire (a chunked body, a body ended by
closing the connection, a reply cut half way) and counts the connections it accepts.
"""

from __future__ import annotations

import asyncio
import datetime
import gzip
import ipaddress
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from good_agent.http import http1_wire
from good_agent.http.http1_wire import PAUSE_BYTES, Http1Wire
from good_agent.server.bridge import upstream_wire
from good_agent.server.config import ServerConfig
from good_agent.types.errors import (
    ModelBadRequestError,
    ModelConnectionError,
    ModelIncompleteStreamError,
    ModelResponseError,
    ModelTimeoutError,
)

pytestmark = pytest.mark.anyio

Request = tuple[bytes, bytes]  # the request head and body
Answer = Callable[[Request, asyncio.StreamWriter], Awaitable[bool]]
"""Writes the reply to one request; returns whether to keep the connection open."""
Serve = Callable[..., Awaitable["RawUpstream"]]


class RawUpstream:
    """An HTTP/1.1 server answering each request with :attr:`answer`."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.connections = 0
        self.open_now = 0
        self.most_open = 0
        self.requests: list[Request] = []
        self.writers: list[asyncio.StreamWriter] = []
        self.url = ""
        self.server: asyncio.Server | None = None

    async def start(self, tls: ssl.SSLContext | None = None, host: str = "127.0.0.1") -> str:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=tls)
        port = self.server.sockets[0].getsockname()[1]
        self.url = f"{'https' if tls else 'http'}://{host}:{port}"
        return self.url

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self.open_now += 1
        self.most_open = max(self.most_open, self.open_now)
        self.writers.append(writer)
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":", 1)[1])
                body = await reader.readexactly(length)
                self.requests.append((head, body))
                if not await self.answer((head, body), writer):
                    return
        except asyncio.CancelledError:
            return  # the test's loop is ending
        finally:
            self.open_now -= 1
            writer.close()

    async def stop(self) -> None:
        for writer in self.writers:
            writer.close()
        if self.server is not None:
            self.server.close()


def reply(body: bytes, *extra: str, status: str = "200 OK") -> bytes:
    head = [f"HTTP/1.1 {status}", f"content-length: {len(body)}", *extra]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


async def echo(request: Request, writer: asyncio.StreamWriter) -> bool:
    """A keep-alive reply holding the request body."""
    writer.write(reply(b"echo:" + request[1], "content-type: application/json"))
    await writer.drain()
    return True


@pytest.fixture
async def serve() -> AsyncIterator[Serve]:
    running: list[RawUpstream] = []

    async def start(answer: Answer, **options: object) -> RawUpstream:
        upstream = RawUpstream(answer)
        await upstream.start(**options)  # type: ignore[arg-type]
        running.append(upstream)
        return upstream

    yield start
    for upstream in running:
        await upstream.stop()


async def until(check: Callable[[], bool]) -> None:
    """Wait (at most 5 s) for ``check`` to hold."""
    for _ in range(500):
        if check():
            return
        await asyncio.sleep(0.01)


def wire(**options: float) -> Http1Wire:
    return Http1Wire(connect_timeout=2.0, read_timeout=options.pop("read_timeout", 5.0))


async def test_a_keep_alive_connection_carries_every_request(serve: Serve) -> None:
    upstream = await serve(echo)
    client = wire()
    try:
        for number in range(8):
            got = await client.post(f"{upstream.url}/v1/x", b"%d" % number, {}, provider="t")
            assert got.body == b"echo:%d" % number
            async with client.stream(f"{upstream.url}/v1/x", b"s", {}, provider="t") as reply:
                assert await reply.read() == b"echo:s"
    finally:
        await client.aclose()
    assert upstream.connections == 1
    assert len(upstream.requests) == 16


async def test_the_request_head_says_host_length_and_json(serve: Serve) -> None:
    upstream = await serve(echo)
    client = wire()
    try:
        port = upstream.url.rsplit(":", 1)[1]
        await client.post(
            f"{upstream.url}/v1/chat?api-version=2",
            b"{}",
            {"Authorization": "Bearer k"},
            provider="t",
        )
    finally:
        await client.aclose()
    head = upstream.requests[0][0].decode()
    lines = head.split("\r\n")
    assert lines[0] == "POST /v1/chat?api-version=2 HTTP/1.1"
    assert f"Host: 127.0.0.1:{port}" in lines
    assert "Content-Length: 2" in lines
    assert "Content-Type: application/json" in lines
    assert "Authorization: Bearer k" in lines
    assert not any(line.lower().startswith("accept-encoding") for line in lines)


async def test_reply_headers_are_read_in_any_case(serve: Serve) -> None:
    async def limited(request: Request, writer: asyncio.StreamWriter) -> bool:
        writer.write(
            reply(b"{}", "Retry-After: 7", "Content-Type: application/json", status="429 Slow")
        )
        return True

    upstream = await serve(limited)
    client = wire()
    try:
        got = await client.post(f"{upstream.url}/v1/x", b"{}", {}, provider="t")
    finally:
        await client.aclose()
    assert got.status == 429
    assert got.headers.get("retry-after") == "7"
    assert got.headers["RETRY-AFTER"] == "7"
    assert "content-type" in got.headers and "Content-Type" in got.headers


def chunked(pieces: list[bytes]) -> bytes:
    head = (
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
    )
    frames = b"".join(b"%x\r\n%s\r\n" % (len(piece), piece) for piece in pieces)
    return head + frames + b"0\r\n\r\n"


async def test_a_chunked_reply_is_read_whole_and_the_connection_reused(serve: Serve) -> None:
    pieces = [b"data: 1\n\n", b"data: 2\n", b"\ndata: [DONE]\n\n"]

    async def answer(request: Request, writer: asyncio.StreamWriter) -> bool:
        data = chunked(pieces)
        for start in range(0, len(data), 13):  # cut anywhere, frames and heads alike
            writer.write(data[start : start + 13])
            await writer.drain()
            await asyncio.sleep(0.002)
        return True

    upstream = await serve(answer)
    client = wire()
    try:
        whole = await client.post(f"{upstream.url}/v1/x", b"{}", {}, provider="t")
        async with client.stream(f"{upstream.url}/v1/x", b"{}", {}, provider="t") as reply:
            lines = [line async for batch in reply.line_batches() for line in batch]
    finally:
        await client.aclose()
    assert whole.body == b"".join(pieces)
    assert lines == ["data: 1", "", "data: 2", "", "data: [DONE]", ""]
    assert upstream.connections == 1


async def test_a_reply_ended_by_closing_the_connection_is_whole_and_not_reused(
    serve: Serve,
) -> None:
    async def answer(request: Request, writer: asyncio.StreamWriter) -> bool:
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n")
        writer.write(b"data: a\n\ndata: b")  # the last line has no line end
        await writer.drain()
        return False  # closes: the end of the body

    upstream = await serve(answer)
    client = wire()
    try:
        whole = await client.post(f"{upstream.url}/v1/x", b"{}", {}, provider="t")
        async with client.stream(f"{upstream.url}/v1/x", b"{}", {}, provider="t") as reply:
            lines = [line async for batch in reply.line_batches() for line in batch]
    finally:
        await client.aclose()
    assert whole.body == b"data: a\n\ndata: b"
    assert lines == ["data: a", "", "data: b"]
    assert upstream.connections == 2


async def test_a_connection_close_reply_is_not_reused(serve: Serve) -> None:
    async def answer(request: Request, writer: asyncio.StreamWriter) -> bool:
        writer.write(reply(b"ok", "connection: close"))
        await writer.drain()
        await asyncio.sleep(0.5)  # the client must not wait for the close
        return False

    upstream = await serve(answer)
    client = wire()
    try:
        for _ in range(3):
            assert (
                await client.post(f"{upstream.url}/v1/x", b"{}", {}, provider="t")
            ).body == b"ok"
    finally:
        await client.aclose()
    assert upstream.connections == 3


async def test_an_idle_connection_the_server_closed_is_dropped(serve: Serve) -> None:
    async def answer(request: Request, writer: asyncio.StreamWriter) -> bool:
        await echo(request, writer)
        return False  # keep-alive said, then closed while idle

    upstream = await serve(answer)
    client = wire()
    try:
        first = await client.post(f"{upstream.url}/v1/x", b"1", {}, provider="t")
        await until(lambda: client.open_connections == 0)
        assert client.open_connections == 0
        second = await client.post(f"{upstream.url}/v1/x", b"2", {}, provider="t")
    finally:
        await client.aclose()
    assert (first.body, second.body) == (b"echo:1", b"echo:2")
    assert upstream.connections == 2


async def test_an_idle_connection_past_its_age_is_not_reused(
    serve: Serve, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(http1_wire, "IDLE_SECONDS", 0.0)
    upstream = await serve(echo)
    client = wire()
    try:
        for number in range(3):
            got = await client.post(f"{upstream.url}/v1/x", b"%d" % number, {}, provider="t")
            assert got.body == b"echo:%d" % number
    finally:
        await client.aclose()
    assert upstream.connections == 3


async def test_a_cancelled_request_leaves_nothing_for_the_next(serve: Serve) -> None:
    release = asyncio.Event()

    async def answer(request: Request, writer: asyncio.StreamWriter) -> bool:
        if request[1] == b"never":
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 20\r\n\r\nold-")
            await asyncio.sleep(30)
        if request[1] == b"slow":
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 20\r\n\r\nold-")
            await writer.drain()
            await release.wait()
            writer.write(b"leftovers-of-old")
            await writer.drain()
            return True
        return await echo(request, writer)

    upstream = await serve(answer)
    client = wire()
    try:
        slow = asyncio.ensure_future(client.post(f"{upstream.url}/v1/x", b"slow", {}, provider="t"))
        await until(lambda: len(upstream.requests) == 1)
        await asyncio.sleep(0.05)
        slow.cancel()
        with pytest.raises(asyncio.CancelledError):
            await slow
        release.set()
        got = await client.post(f"{upstream.url}/v1/x", b"new", {}, provider="t")
        async with client.stream(f"{upstream.url}/v1/x", b"never", {}, provider="t") as reply:
            pass  # left before the body: this connection is closed too
        again = await client.post(f"{upstream.url}/v1/x", b"again", {}, provider="t")
    finally:
        await client.aclose()
    assert got.body == b"echo:new"
    assert reply.status == 200
    assert again.body == b"echo:again"
    assert upstream.connections == 3


async def test_the_pool_limit_holds_under_concurrency(serve: Serve) -> None:
    async def answer(request: Request, writer: asyncio.StreamWriter) -> bool:
        await asyncio.sleep(0.05)
        return await echo(request, writer)

    upstream = await serve(answer)
    client = Http1Wire(max_connections=2, connect_timeout=2.0, read_timeout=10.0)
    try:
        replies = await asyncio.gather(
            *(client.post(f"{upstream.url}/v1/x", b"%d" % n, {}, provider="t") for n in range(10))
        )
    finally:
        await client.aclose()
    assert [r.body for r in replies] == [b"echo:%d" % n for n in range(10)]
    assert upstream.most_open <= 2
    assert upstream.connections == 2


async def test_a_full_pool_waits_at_most_the_read_timeout(serve: Serve) -> None:
    async def never(request: Request, writer: asyncio.StreamWriter) -> bool:
        await asyncio.sleep(30)
        return False

    upstream = await serve(never)
    client = Http1Wire(max_connections=1, connect_timeout=2.0, read_timeout=0.3)
    try:
        results = await asyncio.gather(
            client.post(f"{upstream.url}/v1/x", b"1", {}, provider="t"),
            client.post(f"{upstream.url}/v1/x", b"2", {}, provider="t"),
            return_exceptions=True,
        )
    finally:
        await client.aclose()
    assert all(isinstance(result, ModelTimeoutError) for result in results)
    assert upstream.connections == 1
    assert client.open_connections == 0


async def test_an_interim_reply_is_skipped(serve: Serve) -> None:
    async def answer(request: Request, writer: asyncio.StreamWriter) -> bool:
        writer.write(b"HTTP/1.1 103 Early Hints\r\nlink: </a>; rel=preload\r\n\r\n")
        writer.write(reply(b"real", "x-final: yes"))
        return True

    upstream = await serve(answer)
    client = wire()
    try:
        got = await client.post(f"{upstream.url}/v1/x", b"{}", {}, provider="t")
        again = await client.post(f"{upstream.url}/v1/x", b"{}", {}, provider="t")
    finally:
        await client.aclose()
    assert (got.status, got.body, got.headers.get("x-final")) == (200, b"real", "yes")
    assert "link" not in got.headers
    assert again.body == b"real"
    assert upstream.connections == 1


async def test_a_gzip_reply_is_decoded(serve: Serve) -> None:
    async def answer(request: Request, writer: asyncio.StreamWriter) -> bool:
        writer.write(reply(gzip.compress(b'{"a": 1}'), "content-encoding: gzip"))
        return True

    upstream = await serve(answer)
    client = wire()
    try:
        got = await client.post(f"{upstream.url}/v1/x", b"{}", {}, provider="t")
    finally:
        await client.aclose()
    assert got.body == b'{"a": 1}'


async def test_an_unknown_content_encoding_is_refused(serve: Serve) -> None:
    async def answer(request: Request, writer: asyncio.StreamWriter) -> bool:
        writer.write(reply(b"\x00\x01", "content-encoding: br"))
        return True

    upstream = await serve(answer)
    client = wire()
    try:
        with pytest.raises(ModelResponseError, match="'br' is not supported"):
            await client.post(f"{upstream.url}/v1/x", b"{}", {}, provider="t")
    finally:
        await client.aclose()


async def test_a_silent_server_is_a_timeout(serve: Serve) -> None:
    async def silent(request: Request, writer: asyncio.StreamWriter) -> bool:
        await asyncio.sleep(30)
        return False

    upstream = await serve(silent)
    client = wire(read_timeout=0.3)
    try:
        with pytest.raises(ModelTimeoutError, match="timed out"):
            await client.post(f"{upstream.url}/v1/x", b"{}", {}, provider="t")
    finally:
        await client.aclose()


async def test_a_drop_before_the_reply_names_the_url_without_secrets(serve: Serve) -> None:
    async def drop(request: Request, writer: asyncio.StreamWriter) -> bool:
        return False

    upstream = await serve(drop)
    client = wire()
    url = upstream.url.replace("://", "://user:hunter2@") + "/v1/x?key=sk-secret"
    try:
        with pytest.raises(ModelConnectionError) as error:
            await client.post(url, b"{}", {}, provider="t")
    finally:
        await client.aclose()
    text = str(error.value)
    assert f"{upstream.url}/v1/x" in text and "closed the connection" in text
    assert "hunter2" not in text and "sk-secret" not in text


async def test_a_body_cut_short_is_a_cut_stream(serve: Serve) -> None:
    async def cut(request: Request, writer: asyncio.StreamWriter) -> bool:
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\ndata: a\n\n")
        await writer.drain()
        return False

    upstream = await serve(cut)
    client = wire()
    try:
        with pytest.raises(ModelIncompleteStreamError, match="before its final event"):
            async with client.stream(f"{upstream.url}/v1/x", b"{}", {}, provider="t") as reply:
                await reply.read()
        with pytest.raises(ModelConnectionError, match="ended before it was complete"):
            await client.post(f"{upstream.url}/v1/x", b"{}", {}, provider="t")
    finally:
        await client.aclose()


@pytest.mark.parametrize(
    "headers",
    [
        {"X-Key": "a\r\nInjected: yes"},
        {"X-Key": "a\nInjected: yes"},
        {"X-Bad\r\nInjected": "yes"},
        {"X Key": "yes"},
    ],
)
async def test_a_header_that_would_split_the_head_is_refused(
    serve: Serve, headers: dict[str, str]
) -> None:
    upstream = await serve(echo)
    client = wire()
    try:
        with pytest.raises(ModelBadRequestError, match="refused"):
            await client.post(f"{upstream.url}/v1/x", b"{}", headers, provider="t")
    finally:
        await client.aclose()
    assert upstream.requests == []


async def test_a_slow_reader_pauses_the_socket_and_loses_nothing(serve: Serve) -> None:
    body = bytes(range(256)) * (8 * 4096)  # 8 MiB

    async def big(request: Request, writer: asyncio.StreamWriter) -> bool:
        writer.write(reply(body))
        await writer.drain()
        return True

    upstream = await serve(big)
    client = wire()
    try:
        async with client.stream(f"{upstream.url}/v1/x", b"{}", {}, provider="t") as reply_:
            conn = reply_.conn  # type: ignore[attr-defined]
            await until(lambda: conn.buffered > PAUSE_BYTES)
            await asyncio.sleep(0.2)  # time to read megabytes more, were it not paused
            held = conn.buffered
            assert PAUSE_BYTES < held < 2 * PAUSE_BYTES
            assert await reply_.read() == body
        again = await client.post(f"{upstream.url}/v1/x", b"{}", {}, provider="t")
    finally:
        await client.aclose()
    assert again.body == body
    assert upstream.connections == 1


def self_signed(directory: Path) -> tuple[Path, Path]:
    """A certificate for ``localhost`` and 127.0.0.1, and its key."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "cert.pem", directory / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


async def test_https_to_a_trusted_server_and_not_to_an_untrusted_one(
    serve: Serve, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("cryptography", reason="makes the test's certificate")
    cert, key = self_signed(tmp_path)
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(cert, key)
    upstream = await serve(echo, tls=tls, host="localhost")

    untrusting = wire()
    try:
        with pytest.raises(ModelConnectionError, match="CERTIFICATE_VERIFY_FAILED"):
            await untrusting.post(f"{upstream.url}/v1/x", b"{}", {}, provider="t")
    finally:
        await untrusting.aclose()

    monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # the default context trusts it now
    client = wire()
    try:
        for number in range(3):
            got = await client.post(f"{upstream.url}/v1/x", b"%d" % number, {}, provider="t")
            assert got.body == b"echo:%d" % number
    finally:
        await client.aclose()
    assert upstream.connections == 1  # the refused handshake never reached the server


def test_the_bridge_takes_aiohttp_when_a_proxy_is_configured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from good_agent.http.wire import AiohttpWire

    for name in (
        "http_proxy",
        "https_proxy",
        "all_proxy",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
    ):
        monkeypatch.delenv(name, raising=False)
    server = ServerConfig(max_upstream_connections=7)
    chosen = upstream_wire(server)
    assert isinstance(chosen, Http1Wire) and chosen.max_connections == 7
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    assert isinstance(upstream_wire(server), AiohttpWire)


SSE = st.lists(
    st.one_of(
        st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\r\n"), max_size=30).map(
            lambda text: f"data: {text}"
        ),
        st.just(""),
        st.just("x" * 5000),
    ),
    max_size=12,
).flatmap(
    lambda lines: st.tuples(
        st.just(lines),
        st.lists(st.sampled_from(["\n", "\r\n"]), min_size=len(lines), max_size=len(lines)),
        st.booleans(),
    )
)


@settings(max_examples=60, deadline=None)
@given(SSE, st.lists(st.integers(min_value=1, max_value=4000), max_size=20))
def test_any_split_of_a_stream_into_reads_gives_the_same_lines(
    case: tuple[list[str], list[str], bool], cuts: list[int]
) -> None:
    lines, ends, trailing = case
    data = "".join(line + end for line, end in zip(lines, ends, strict=True))
    if trailing:
        data += "data: no line end"
    raw = data.encode()
    pieces: list[bytes] = []
    rest = raw
    for cut in cuts:
        if not rest:
            break
        pieces.append(rest[:cut])
        rest = rest[cut:]
    if rest:
        pieces.append(rest)
    expected = [line.decode("utf-8", "replace").rstrip("\r") for line in raw.split(b"\n")]
    if not expected[-1]:
        expected.pop()
    assert asyncio.run(lines_read_in(pieces)) == expected


async def lines_read_in(pieces: list[bytes]) -> list[str]:
    """The lines the wire gives for a chunked reply sent in ``pieces``, one write and
    one read each (the client takes each before the next is sent)."""
    sent = asyncio.Event()

    async def answer(request: Request, writer: asyncio.StreamWriter) -> bool:
        writer.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n")
        for piece in pieces:
            sent.clear()
            writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            await writer.drain()
            await sent.wait()
        writer.write(b"0\r\n\r\n")
        return False

    upstream = RawUpstream(answer)
    await upstream.start()
    client = wire()
    got: list[str] = []
    try:
        async with client.stream(f"{upstream.url}/v1/x", b"{}", {}, provider="t") as reply_:
            conn = reply_.conn  # type: ignore[attr-defined]
            original = conn.take

            def take() -> bytes | None:
                data: bytes | None = original()
                if data is not None:
                    sent.set()  # taken: the server sends the next piece
                return data

            conn.take = take
            async for batch in reply_.line_batches():
                got.extend(batch)
    finally:
        await client.aclose()
        await upstream.stop()
    return got


def test_on_uvloop_as_the_bridge_runs() -> None:
    uvloop = pytest.importorskip("uvloop")

    async def main() -> tuple[list[bytes], list[str], int]:
        upstream = RawUpstream(echo)
        await upstream.start()
        client = wire()
        try:
            bodies = [
                (await client.post(f"{upstream.url}/v1/x", b"%d" % n, {}, provider="t")).body
                for n in range(3)
            ]
            async with client.stream(f"{upstream.url}/v1/x", b"a\nb", {}, provider="t") as reply_:
                lines = [line async for batch in reply_.line_batches() for line in batch]
        finally:
            await client.aclose()
            await upstream.stop()
        return bodies, lines, upstream.connections

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        bodies, lines, connections = runner.run(main())
    assert bodies == [b"echo:0", b"echo:1", b"echo:2"]
    assert lines == ["echo:a", "b"]
    assert connections == 1
