"""A passed-through stream: the upstream's event bytes relayed as they arrive.

A relay looks at each chunk the upstream sends only as much as the bridge needs. It
holds back a line not yet complete (so an event it must read is whole, and an event
it replaces was never half sent) and passes every complete line on as it came unless
the line must change.

`ChatRelay` (Chat Completions) reads every ``data:`` line with one msgspec decoder,
which checks the shape the translating path's decoder needs (a JSON object;
``choices`` a list of objects, each ``index`` an integer, ``delta`` an object, its
``tool_calls`` a list of objects) and builds only the members the bridge reads, not
the reply's text; a line it refuses is read again as the translating path reads JSON
(``NaN`` and numbers out of a float's range allowed, and a lone surrogate escape). It
reads the usage for the access log, an upstream ``error`` (replaced by the bridge's
own error event, its message mapped and redacted as on the translating path), the
ids of the calls opened, tool-call deltas without an ``index`` (given their call's
position: the event written again), a lone surrogate escape (the event written again
with U+FFFD) and the end (``data: [DONE]`` or a finish reason). A line that is not a
chunk of that shape is a malformed event, as on the translating path. A client that
did not ask for usage (``stream_options.include_usage``) does not get the usage chunk
the bridge asked the upstream for.

`MessagesRelay` (Anthropic Messages) reads every ``data:`` line the same way, with
its own decoder (a JSON object, its ``index`` an integer and ``delta`` an object): the
start of the reply and its usage (``message_start``, ``message_delta``), the end
(``message_stop``) and an upstream ``error`` event (replaced by the bridge's own).

A stream that ends without its final event, or whose connection is cut, ends with the
client API's error event, never as if it were complete; one that held no reply is an
invalid reply.

`open_stream` starts the upstream call and reads it until the reply begins (a
choice's delta, a ``message_start``) before the response does, so a refusal, a rate
limit, an error event at once or a stream that holds no reply still gets its HTTP
status; the rest is relayed by `relay_bytes`, whose ``finally`` closes
the upstream call (a client that leaves cancels it) and writes the access log.

A Responses stream is relayed by `ResponsesRelay`, which holds whole typed events
(passed on as they came; ``response.created``, the final ``response.completed`` or
``response.incomplete``, ``response.failed`` and ``error`` read). Its final response
object is kept (stored for its owner) before the final event is passed on:
``feed`` notes it and holds the event back, and `relay_bytes` awaits ``settle``, which
keeps it and gives back the held bytes.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

import msgspec
from msgspec import UNSET, UnsetType
from pydantic_core import from_json

from good_agent.http.http_transport import HttpTransport
from good_agent.providers.anthropic.codec import usage_counts
from good_agent.providers.openai.chat_codec import cache_counts
from good_agent.providers.types import JSONDict
from good_agent.server.common.closing import close_shielded, shielded
from good_agent.server.common.errors import BridgeError
from good_agent.server.common.utf8 import utf8
from good_agent.server.streams import stream_error
from good_agent.types.errors import (
    ModelIncompleteStreamError,
    ModelOverloadedError,
    ModelResponseError,
    ModelTimeoutError,
)
from good_agent.types.usage import Usage, token_count

if TYPE_CHECKING:
    from good_agent.server.exchange import Exchange
    from good_agent.server.served import ServedModel


_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode

ClientAPI = Literal["chat", "messages", "responses"]
"""A client API the pass-through path serves."""

_Shape = TypeVar("_Shape")
"""What a relay reads an event as."""

_MARKERS = (
    b"response.created",
    b"response.completed",
    b"response.incomplete",
    b"response.failed",
    b'"error"',
)
"""The bytes a Responses event must hold to be parsed (besides a surrogate escape):
the types `ResponsesRelay` reads, then an ``"error"`` member."""

_NULL = (b":null,", b":null}", b": null,", b": null}")
"""What follows a member whose value is ``null`` (in the usual spellings)."""


Renames = tuple[tuple[bytes, bytes], ...]
"""Byte strings replaced in an upstream's reply: its model name as JSON members."""


def model_renames(upstream: str, client: str) -> Renames:
    """The replacements that put ``client`` (the route's name) where the upstream
    writes ``upstream`` as the ``model`` member (as the translating path names it).

    Outside a string a JSON member is written with bare quotes, which a string's
    own text never holds unescaped, so only members are matched."""
    if upstream == client:
        return ()
    old, new = json.dumps(upstream).encode(), json.dumps(client).encode()
    return tuple((key + old, key + new) for key in (b'"model":', b'"model": '))


def renamed(data: bytes, renames: Renames) -> bytes:
    """``data`` with ``renames`` made."""
    for old, new in renames:
        data = data.replace(old, new)  # the same object when ``old`` is not there
    return data


_BAD_DATA = re.compile(rb"\ndata:(?! ?(?:\{|\[DONE\]|\r?\n|\r?\Z))")
_BAD_FIRST = re.compile(rb"data:(?! ?(?:\{|\[DONE\]|\r?\n|\r?\Z))")
"""A ``data:`` line that is not a JSON object (nor ``[DONE]``, nor empty): a malformed
event, as the translating path's decoders refuse it (each pattern starts with its
literal, so a search is a scan for it)."""

_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
"""A JSON escape of a UTF-16 surrogate: its event is written again (a lone one
replaced by U+FFFD, as the translating path writes it)."""


class ByteRelay:
    """What the relays of the three client APIs share (see the module docstring):
    lines held until whole and renamed, the failure noted, the end, the usage. Each
    relay reads its events (`_read`, or its own `feed`).

    Args:
        api: The client API.
        provider: The upstream's name in errors.
        renames: The upstream's model name replaced by the route's.
    """

    __slots__ = (
        "answered",
        "api",
        "ended",
        "failed",
        "held",
        "provider",
        "renames",
        "started",
        "usage",
    )

    def __init__(self, api: ClientAPI, provider: str, *, renames: Renames = ()) -> None:
        self.api = api
        self.renames = renames
        self.provider = provider
        self.usage = Usage()
        """The reply's usage so far."""
        self.ended = False
        """Whether the final event has come."""
        self.failed: Exception | None = None
        """The upstream's error event, once one came (the bytes before it are relayed)."""
        self.held = b""
        self.answered = False
        """Whether the stream holds a reply (a finish reason, a ``message_start``)."""
        self.started = False
        """Whether a reply has begun (a choice's delta, a ``message_start``)."""

    final: JSONDict | None = None
    """A final response object read and not yet kept (a `ResponsesRelay` with a
    ``keep`` sets it): `relay_bytes` awaits `settle` before its event is passed on."""

    async def settle(self) -> bytes:
        """The bytes held back with `final`, once it is kept (nothing here: only a
        `ResponsesRelay` holds any)."""
        return b""

    def failure(self, error: BridgeError, request_id: str) -> bytes:
        """The client API's error event ending the stream (`failure_event`)."""
        return failure_event(self.api, error, request_id)

    def _lines(self, chunk: bytes) -> bytes:
        """The complete lines of what has arrived (renamed); the rest held."""
        data = self.held + chunk if self.held else chunk
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            self.held = data
            return b""
        if cut < len(data):
            self.held = data[cut:]
            data = data[:cut]
        else:
            self.held = b""
        return renamed(data, self.renames) if self.renames else data

    def feed(self, chunk: bytes) -> bytes:
        """The complete lines of what has arrived, to pass on (each event read)."""
        data = self._lines(chunk)
        return self._read(data) if data else b""

    def _read(self, data: bytes) -> bytes:
        """``data`` (complete lines) read: passed on, written again where an event
        must change, or cut short before a failure."""
        raise NotImplementedError

    def _refuse(self, line: bytes) -> None:
        """Note a malformed event (``line``, shown in part) as the failure."""
        shown = line.decode("utf-8", "replace")[:200]
        self.failed = ModelResponseError(
            f"{self.provider} sent a malformed stream event: {shown!r}", provider=self.provider
        )

    def close(self) -> bytes:
        """The rest, once the upstream's body has ended; a
        `ModelIncompleteStreamError` when the final event never came."""
        rest = self._read(renamed(self.held, self.renames)) if self.held else b""
        self.held = b""
        if self.failed is not None or self.ended:
            return rest
        return rest + self._unended()

    def _unended(self) -> bytes:
        """What ends a stream whose final event never came: an error."""
        if not self.started:
            raise ModelResponseError(
                f"{self.provider} sent a stream that holds no reply", provider=self.provider
            )
        raise ModelIncompleteStreamError(
            f"the {self.provider} stream ended before its final event", provider=self.provider
        )

    def _reread(self, text: bytes, shape: Callable[[Any], _Shape]) -> tuple[bytes, _Shape] | None:
        """An event's data its decoder refused, read as the translating path reads
        JSON: the event (as it came, or written again with U+FFFD for a lone surrogate
        escape) and its reading by ``shape``; ``None`` when it is malformed (the
        failure noted)."""
        try:
            event, source = from_json(text), text
        except ValueError:
            try:
                event = json.loads(text)
            except ValueError:
                event = None
            else:
                source = utf8(_COMPACT(event))
        if type(event) is dict:
            try:
                return source, shape(event)
            except msgspec.ValidationError:
                pass
        self._refuse(b"data: " + text)
        return None

    def _failed_with(self, error: Any) -> None:
        """Note the upstream's error (an object's ``message``, or the value itself) as
        the failure."""
        message = error.get("message", error) if isinstance(error, dict) else error
        self.failed = ModelOverloadedError(
            f"{self.provider} failed mid-stream: {message}", provider=self.provider
        )

    def _end(self) -> bool:
        """The final event: the stream ends (with an error when it held no reply)."""
        if not self.answered:
            self.failed = ModelResponseError(
                f"{self.provider} sent a stream that holds no reply", provider=self.provider
            )
            return False
        self.ended = True
        return True


class _Call(msgspec.Struct, gc=False):
    """A tool-call delta as `ChatRelay` reads it: its ``index`` an integer when given."""

    index: int | UnsetType = UNSET
    id: Any = None


class _Delta(msgspec.Struct, gc=False):
    """A choice's delta as `ChatRelay` reads it: its ``tool_calls`` a list or ``null``."""

    tool_calls: list[_Call] | None = None


class _Choice(msgspec.Struct, gc=False):
    """A choice as `ChatRelay` reads it: ``index`` an integer, ``delta`` an object."""

    index: int | UnsetType = UNSET
    delta: _Delta | UnsetType = UNSET
    finish_reason: Any = None


class _Chunk(msgspec.Struct, gc=False):
    """A Chat Completions chunk as `ChatRelay` reads it: a JSON object, its
    ``choices`` a list of objects (each ``index`` an integer, ``delta`` an object, its
    ``tool_calls`` a list of objects or ``null``); the other members are checked as
    JSON and not built (the reply's text is never made a string)."""

    choices: list[_Choice] | UnsetType = UNSET
    usage: Any = None
    error: Any = None


_REFUSED = (msgspec.DecodeError, UnicodeDecodeError)
"""What reading an event's data raises when it is not of its shape (msgspec's errors
are not `ValueError` before 0.19; text that is not UTF-8 raises the other)."""

_CHUNK = msgspec.json.Decoder(_Chunk).decode
"""One event's data read as a `_Chunk` (a `msgspec.DecodeError` when it is not one)."""


def _as_chunk(event: dict[str, Any]) -> _Chunk:
    """A JSON object read as a `_Chunk` (a `msgspec.ValidationError` when it is not
    one)."""
    return msgspec.convert(event, _Chunk)


class ChatRelay(ByteRelay):
    """What the bridge reads from a passed-through Chat Completions stream.

    Every ``data:`` line is read by one msgspec decoder (`_CHUNK`: it checks the
    shape the translating path's decoder needs and builds only the members read, not
    the text), and passed on as it came unless it must change:
    ``[DONE]`` (the end), a non-``null`` ``error`` (the bridge's own error event,
    mapped and redacted), the usage (for the access log; the usage chunk left out
    when the client did not ask for it), a finish reason, a choice's delta (the
    reply began), tool-call ids (kept in order) and a tool-call delta without an
    ``index`` (given its call's position: the event written again). A line that is
    not a JSON object of that shape is a malformed event. One the decoder refuses and
    the translating path reads is read again: with ``NaN`` or a number out of a
    float's range it is passed on as it came; with a lone surrogate escape it is
    written again with U+FFFD, as the translating path writes it.

    Args:
        provider: The upstream's name in errors.
        include_usage: Whether the client asked for the usage chunk.
        renames: The upstream's model name replaced by the route's.
    """

    __slots__ = ("call_ids", "drop_usage_chunk")

    def __init__(
        self, provider: str, *, include_usage: bool = False, renames: Renames = ()
    ) -> None:
        super().__init__("chat", provider, renames=renames)
        self.drop_usage_chunk = not include_usage
        self.call_ids: list[str] = []
        """The tool-call ids seen, in order (their position is a call's index when the
        upstream leaves ``index`` out)."""

    def feed(self, chunk: bytes) -> bytes:
        """The complete lines of what has arrived, to pass on (each event read)."""
        data = self._lines(chunk)
        return self._read(data) if data else b""

    def _unended(self) -> bytes:
        # A finish reason ends a Chat Completions reply; ``[DONE]`` is written for
        # the client as the translating path writes it.
        if self.answered:
            self.ended = True
            return b"data: [DONE]\n\n"
        return super()._unended()

    def _read(self, data: bytes) -> bytes:
        # One loop, its members read inline: it runs once per event of every stream.
        lines = cast("list[bytes | None]", data.split(b"\n"))
        changed = False
        call_ids = self.call_ids
        for at, line in enumerate(lines):
            if not line or not line.startswith(b"data:"):
                continue  # (a blank line ends an event; a line is only left out once read)
            text = source = line[5:]
            try:
                if not text.isascii():
                    text.decode()  # (the decoder checks the text of the members it skips
                    # for JSON, not for UTF-8)
                chunk = _CHUNK(text)
            except _REFUSED:
                unusual = self._unusual(text)
                if unusual is None:  # ``[DONE]`` or an empty line; or a failure
                    if self.failed is None:
                        continue
                    return _before(lines, at)
                source, chunk = unusual
            new: bytes | None = source
            if chunk.error:
                self._failed_with(chunk.error)
                return _before(lines, at)
            choices = chunk.choices
            usage = chunk.usage
            if type(usage) is dict:
                self.usage = usage_of("chat", usage, self.usage)
                # The usage chunk the bridge asked for, which this client did not.
                if self.drop_usage_chunk and choices == []:
                    new = None
            unindexed = False
            for choice in choices or ():
                if choice.finish_reason:
                    self.answered = True
                delta = choice.delta
                if delta is UNSET:
                    continue
                self.started = True
                for call in delta.tool_calls or ():
                    ident = call.id
                    if ident and type(ident) is str and ident not in call_ids:
                        call_ids.append(ident)
                    if call.index is UNSET:
                        unindexed = True
            if new is None:  # left out, with the blank line that ends its event
                lines[at] = None
                if at + 1 < len(lines) and lines[at + 1] == b"":
                    lines[at + 1] = None
                changed = True
            elif unindexed or new is not text:
                lines[at] = b"data: " + (self._indexed(new) if unindexed else new)
                changed = True
        if not changed:
            return data
        return b"\n".join([line for line in lines if line is not None])

    def _unusual(self, text: bytes) -> tuple[bytes, _Chunk] | None:
        """An event's data the decoder refused: ``None`` for ``[DONE]`` (the end) or
        an empty line, passed on as they came, and for a malformed event (the failure
        noted); else the event and its chunk when it has a chunk's shape and JSON as
        the translating path reads it allows it: a number no float holds (``1e400``)
        or ``NaN``, passed on as it came, or a lone surrogate escape, the event
        written again with U+FFFD in its place."""
        data = text.strip()
        if data == b"[DONE]":
            self._end()
            return None
        if not data:
            return None
        return self._reread(data, _as_chunk)

    def _indexed(self, text: bytes) -> bytes:
        """An event (one `_CHUNK` read) written again, each tool-call delta given its
        ``index`` where the upstream left it out (distinct ids are distinct calls, as
        the translating path reads them)."""
        event = json_object(text)
        assert event is not None  # the decoder read it
        for choice in event.get("choices") or ():
            calls = (choice.get("delta") or {}).get("tool_calls")
            for call in calls or ():
                if "index" not in call:
                    ident = call.get("id")
                    position = len(self.call_ids) - 1
                    if isinstance(ident, str) and ident in self.call_ids:
                        position = self.call_ids.index(ident)
                    call["index"] = max(position, 0)
        return utf8(_COMPACT(event))


class _Object(msgspec.Struct, gc=False):
    """Any JSON object: its members checked as JSON, none built."""


class _MessagesEvent(msgspec.Struct, gc=False):
    """A Messages stream event as `MessagesRelay` reads it: a JSON object, its
    ``index`` an integer and its ``delta`` an object where they are given."""

    type: Any = None
    index: int | UnsetType = UNSET
    delta: _Object | UnsetType = UNSET
    message: Any = None
    usage: Any = None
    error: Any = None


_MESSAGES_EVENT = msgspec.json.Decoder(_MessagesEvent).decode
"""One event's data read as a `_MessagesEvent` (a `msgspec.DecodeError` when it is
not one)."""


def _as_messages_event(event: dict[str, Any]) -> _MessagesEvent:
    """A JSON object read as a `_MessagesEvent` (a `msgspec.ValidationError` when it
    is not one)."""
    return msgspec.convert(event, _MessagesEvent)


class MessagesRelay(ByteRelay):
    """What the bridge reads from a passed-through Anthropic Messages stream.

    Every ``data:`` line is read by one msgspec decoder (`_MESSAGES_EVENT`: a JSON
    object, its ``index`` an integer and ``delta`` an object, the other members
    checked as JSON and not built) and passed on as it came unless it must change:
    ``message_start`` (the reply began; its usage), ``message_delta`` (the usage),
    ``message_stop`` (the end) and an ``error`` event (the bridge's own error event,
    mapped and redacted). A line that is not such an object is a malformed event, as
    on the translating path; one the decoder refuses and the translating path reads
    is read again (``NaN`` and numbers out of a float's range passed on as they came,
    a lone surrogate escape written again with U+FFFD).

    Args:
        provider: The upstream's name in errors.
        renames: The upstream's model name replaced by the route's.
    """

    __slots__ = ()

    def __init__(self, provider: str, *, renames: Renames = ()) -> None:
        super().__init__("messages", provider, renames=renames)

    def _read(self, data: bytes) -> bytes:
        lines = cast("list[bytes | None]", data.split(b"\n"))
        changed = False
        for at, line in enumerate(lines):
            if not line or not line.startswith(b"data:"):
                continue
            text = source = line[5:]
            try:
                if not text.isascii():
                    text.decode()  # (skipped members are checked as JSON, not UTF-8)
                event = _MESSAGES_EVENT(text)
            except _REFUSED:
                stripped = text.strip()
                if not stripped or stripped == b"[DONE]":
                    continue  # (not Messages' own, and nothing the bridge reads)
                reread = self._reread(stripped, _as_messages_event)
                if reread is None:
                    return _before(lines, at)
                source, event = reread
            if not self._take(event):
                return _before(lines, at)
            if source is not text:
                lines[at] = b"data: " + source
                changed = True
        return b"\n".join(cast("list[bytes]", lines)) if changed else data

    def _take(self, event: _MessagesEvent) -> bool:
        """Read one event's members the bridge needs; ``False`` when it fails the
        stream (an upstream error, an end with no reply)."""
        kind = event.type
        if kind == "error" and event.error:
            self._failed_with(event.error)
            return False
        if kind == "message_stop":
            return self._end()
        if kind == "message_start":
            self.answered = self.started = True
            message = event.message
            if isinstance(message, dict):
                self.usage = usage_of("messages", message.get("usage"), self.usage)
        elif kind == "message_delta":
            self.usage = usage_of("messages", event.usage, self.usage)
        return True


def _before(lines: list[bytes | None], at: int) -> bytes:
    """The lines before line ``at`` (those left out still out), each with its end."""
    kept = [line for line in lines[:at] if line is not None]
    return b"\n".join(kept) + b"\n" if kept else b""


def json_object(text: bytes) -> dict[str, Any] | None:
    """An event's data as a JSON object; ``None`` when it is not one. pydantic-core
    reads it; the standard library reads what that refuses and JSON allows (a lone
    surrogate escape), as the translating path's decoder does."""
    try:
        event = from_json(text)
    except ValueError:
        try:
            event = json.loads(text)
        except ValueError:
            return None
    return event if type(event) is dict else None


_USAGE_KEYS = {
    "chat": ("prompt_tokens_details", "prompt_tokens", "completion_tokens"),
    "responses": ("input_tokens_details", "input_tokens", "output_tokens"),
}
"""Where a Chat Completions or Responses ``usage`` object keeps its cache details, its
input and its output counts."""


def usage_of(api: ClientAPI, usage: Any, before: Usage | None = None) -> Usage:
    """The token counts of an upstream ``usage`` object of ``api``, read as the
    codecs read them (the counts it does not carry kept from ``before``)."""
    before = before or Usage()
    if not isinstance(usage, dict):
        return before
    if api == "messages":
        total, output, read, write = usage_counts(usage)
    else:  # Chat Completions and Responses: the same counts under their own names
        details, given_key, out_key = _USAGE_KEYS[api]
        read, write = cache_counts(usage.get(details))
        total, output = token_count(usage.get(given_key)), token_count(usage.get(out_key))
    return Usage(
        before.input_tokens if total is None else total,
        before.output_tokens if output is None else output,
        before.cache_read_tokens if read is None else read,
        before.cache_write_tokens if write is None else write,
        before.cache_write_1h_tokens,
    )


def failure_event(api: ClientAPI, error: BridgeError, request_id: str) -> bytes:
    """The client API's error event ending a stream (after a blank line, which ends
    any event the upstream left open)."""
    if api == "chat":
        return b"\ndata: " + json.dumps(error.openai_body()).encode() + b"\n\n"
    body = {"type": "error", "error": error.anthropic_body()["error"], "request_id": request_id}
    return b"\nevent: error\ndata: " + json.dumps(body).encode() + b"\n\n"


async def open_stream(
    exchange: Exchange,
    route: ServedModel,
    transport: HttpTransport,
    url: str,
    data: bytes,
    headers: Mapping[str, str],
    relay: ByteRelay,
) -> AsyncIterator[bytes]:
    """Start the upstream stream, read its first chunk (errors raise here, before the
    response), and return the client's bytes (`relay_bytes`)."""
    provider = transport.provider
    total = transport.stream_timeout if transport.limits_streams else None
    deadline = None  # the wire keeps ``total``; otherwise the relay keeps the deadline
    if total is None:
        deadline = asyncio.get_running_loop().time() + route.stream_timeout
    opened = AsyncExitStack()

    async def start() -> tuple[AsyncIterator[bytes], bytes]:
        reply = await opened.enter_async_context(
            transport.wire.stream(url, data, headers, provider=provider, total=total)
        )
        if reply.status >= 400:
            content = await reply.read()
            raise transport.status_error(reply.status, reply.headers, content, url=url)
        kind = reply.headers.get("content-type", "")
        if "text/event-stream" not in kind.lower():
            raise ModelResponseError(
                f"{provider} did not answer with an event stream (content type "
                f"{kind or 'missing'!r})",
                provider=provider,
            )
        chunks = reply.chunks()
        # Read until the reply begins (or fails, or ends: then its end is judged here).
        prefix: list[bytes] = []
        while not relay.started and relay.failed is None:
            chunk = await anext(chunks, None)
            if chunk is None:
                prefix.append(relay.close())
                break
            prefix.append(relay.feed(chunk))
        return chunks, b"".join(prefix)

    try:
        chunks, first = await exchange.watch.run(
            start,
            within=None if deadline is None else route.stream_timeout,
            expired=lambda: _stream_timeout(route),
        )
        if relay.failed is not None and not relay.started:
            raise relay.failed  # nothing relayed before it: the error's own status
    except BaseException as exc:
        # Through the wire's context, which types a failure of the connection.
        with shielded():
            await opened.__aexit__(type(exc), exc, exc.__traceback__)
        raise
    return relay_bytes(exchange, route, opened, chunks, first, relay, deadline)


def _stream_timeout(route: ServedModel) -> ModelTimeoutError:
    return ModelTimeoutError(
        f"the streamed reply took longer than {route.stream_timeout:g} s (server.stream_timeout)",
        provider=route.entry.provider,
    )


async def relay_bytes(
    exchange: Exchange,
    route: ServedModel,
    opened: AsyncExitStack,
    chunks: AsyncIterator[bytes],
    first: bytes,
    relay: ByteRelay,
    deadline: float | None,
) -> AsyncIterator[bytes]:
    """The client's bytes: the first chunk's, then each chunk's as it arrives; a
    failure ends them with the client API's error event."""
    status = 499
    pending = b""  # bytes read and not yet passed on
    try:
        # Inside the wire's context, which types a failure of the connection (a
        # stream cut) as it does on the translating path.
        async with opened:
            pending = first
            if relay.final is not None:  # kept before its final event is passed on
                pending += await relay.settle()
            if pending:
                out, pending = pending, b""
                yield out
            if relay.failed is not None:
                raise relay.failed
            while True:
                if deadline is None:
                    chunk = await anext(chunks, None)
                else:
                    timeout = asyncio.timeout_at(deadline)
                    try:
                        async with timeout:
                            chunk = await anext(chunks, None)
                    except TimeoutError:
                        if not timeout.expired():
                            raise  # the wire's own
                        raise _stream_timeout(route) from None
                if chunk is None:
                    break
                pending = relay.feed(chunk)
                if relay.failed is not None:
                    raise relay.failed
                if relay.final is not None:
                    pending += await relay.settle()
                if pending:
                    out, pending = pending, b""
                    yield out
        pending = relay.close()
        if relay.failed is not None:
            raise relay.failed
        if relay.final is not None:
            pending += await relay.settle()
        if pending:
            out, pending = pending, b""
            yield out
        status = 200
    except Exception as exc:
        error = stream_error(exc, route, exchange.request_id)
        status = error.status
        yield pending + relay.failure(error, exchange.request_id)
    finally:
        await close_shielded(chunks)
        with shielded():
            await opened.aclose()
        exchange.log(status, relay.usage, route)


# The Responses API's stream (``event: ...`` and ``data: {...}``, one event per block).

Keep = Callable[[JSONDict], Awaitable[None]]
"""Called with a passed-through response's final object (as the client gets it)
before its final event is passed on."""

_EVENT_END = re.compile(rb"\n\r?\n")
"""The blank line that ends an event."""

_NULL_ERRORS = tuple(b'"error"' + null for null in _NULL)
"""A response object's ``error`` member when nothing failed."""

_SEQUENCE = re.compile(rb'"sequence_number": ?([0-9]{1,18})')
"""An event's ``sequence_number`` (the last one in a chunk is found by a byte search)."""

_FINAL_KINDS = ("response.completed", "response.incomplete")

_FAILED_KINDS = ("error", "response.failed")


def _event_start(data: bytes, at: int = -1) -> int:
    """Where the event holding position ``at`` of ``data`` begins (with ``at`` left
    out: where its last complete event ends; 0: none is complete)."""
    at = len(data) if at < 0 else at
    lf, crlf = data.rfind(b"\n\n", 0, at), data.rfind(b"\n\r\n", 0, at)
    return max(lf + 2 if lf >= 0 else 0, crlf + 3 if crlf >= 0 else 0)


def _data_of(event: bytes) -> tuple[int, bytes] | None:
    """Where an event's ``data:`` lines begin and their text (``None``: no data)."""
    start = event.find(b"data:")
    while start > 0 and event[start - 1 : start] not in (b"\n", b"\r"):
        start = event.find(b"data:", start + 5)
    if start < 0:
        return None
    lines = [line[5:].strip() for line in event[start:].splitlines() if line.startswith(b"data:")]
    return start, b"\n".join(lines)


class ResponsesRelay(ByteRelay):
    """What the bridge reads from a passed-through Responses stream.

    A Responses stream is typed events (``event: response.output_text.delta`` and its
    ``data:`` object), so the relay passes on whole events (held back until the blank
    line that ends one: an event it replaces was never half sent, and no ``event:``
    line is left without its data). The same scans as for the other APIs refuse a
    ``data:`` line that is not a JSON object. Only the events that may carry what the
    bridge reads are parsed (found by a byte search for ``response.created``, the final
    and failure types, an ``"error"`` member that is not ``null``, a surrogate escape):
    ``response.created`` (its response object, for the error event that may end the
    stream), ``response.completed`` / ``response.incomplete`` (the end: the usage, and
    the final object handed to ``keep`` before the event is passed on),
    ``response.failed`` and ``error`` (replaced by the bridge's own ``error`` and
    ``response.failed`` events, mapped and redacted as on the translating path). The
    last ``sequence_number`` is found by a byte search, so the bridge's events continue
    the upstream's numbering.

    Args:
        provider: The upstream's name in errors.
        renames: The upstream's model name replaced by the route's (and, for a response
            the bridge stores, ``store: false`` by ``store: true``).
        keep: Called with the final response object before its event is passed on
            (storing it); ``None``: nothing is kept.
        shell: Makes the response object a failure reports when no
            ``response.created`` came (the request's, as the translating path writes it).
    """

    __slots__ = ("final", "keep", "kept", "response", "sequence", "shell")

    def __init__(
        self,
        provider: str,
        *,
        renames: Renames = (),
        keep: Keep | None = None,
        shell: Callable[[], JSONDict] | None = None,
    ) -> None:
        super().__init__("responses", provider, renames=renames)
        self.keep = keep
        self.shell = shell
        """Makes the response object a failure reports when the upstream sent no
        ``response.created`` (a whole one, as the translating path writes it)."""
        self.final: JSONDict | None = None
        self.kept = b""
        """The bytes from the final event on, held until `final` is kept."""
        self.response: JSONDict | None = None
        """The response object of ``response.created``."""
        self.sequence = -1
        """The last ``sequence_number`` seen."""

    def feed(self, chunk: bytes) -> bytes:
        """The complete events of what has arrived, to pass on (read where needed)."""
        data = self.held + chunk if self.held else chunk
        cut = len(data) if data.endswith(b"\n\n") else _event_start(data)
        if cut == 0:
            self.held = data
            return b""
        self.held = data[cut:]
        data = data[:cut]
        if self.renames:
            data = renamed(data, self.renames)
        if self.ended:  # after the final event: passed on as it comes
            if self.final is not None:
                self.kept += data
                return b""
            return data
        bad = _BAD_FIRST.match(data) or _BAD_DATA.search(data)
        out = self._passed(data) if bad is None else self._malformed(data, bad.end() - 1)
        at = out.rfind(b'"sequence_number":')
        if at >= 0:
            number = _SEQUENCE.match(out, at)
            if number is not None:
                self.sequence = int(number.group(1))
        return out

    def _passed(self, data: bytes) -> bytes:
        """The whole events ``data``, read where needed."""
        if not self.started:
            self.started = self.began(data)
        if _SURROGATE.search(data) is not None:
            return self._read_events(data)
        for marker in _MARKERS:
            if marker in data:
                return self._read_events(data)
        return data

    def began(self, data: bytes) -> bool:
        """Whether ``data`` holds the start of a reply (an output event), as the
        translating path primes a stream until its first delta."""
        return b"response.output" in data or b"response.function_call" in data

    def _malformed(self, data: bytes, at: int) -> bytes:
        """The events before the one holding the malformed line (read as any are);
        the failure noted."""
        start = data.rfind(b"\n", 0, at) + 1
        end = data.find(b"\n", at)
        self._refuse(data[start : len(data) if end < 0 else end])
        before = data[:start]
        self.started = self.started or self.began(before)
        failed, self.failed = self.failed, None
        out = self._passed(before[: _event_start(before, len(before))])
        self.failed = self.failed or failed
        return out

    def _read_events(self, data: bytes) -> bytes:
        """``data`` with the events that hold a marker read, and passed on, written
        again, left out (a failure: nothing after it is passed on) or held with what
        follows (the final event, until `final` is kept)."""
        out: list[bytes] = []
        start = 0
        for end in _EVENT_END.finditer(data):
            event = data[start : end.end()]
            start = end.end()
            if self.final is not None:
                self.kept += event
                continue
            if self.ended or (_SURROGATE.search(event) is None and not self._marked(event)):
                out.append(event)
                continue
            found = _data_of(event)
            if found is None:
                out.append(event)
                continue
            offset, text = found
            new = self._response_event(text)
            if self.failed is not None:
                break
            if new is not text:
                event = event[:offset] + b"data: " + new + b"\n\n"
            if self.final is not None:
                self.kept = event
            else:
                out.append(event)
        return b"".join(out)

    def _marked(self, event: bytes) -> bool:
        """Whether ``event`` holds something to read (an ``"error"`` member that is
        not ``null`` counts; every response object has one)."""
        for marker in _MARKERS[:-1]:  # the types read
            if marker in event:
                return True
        errors = event.count(b'"error"')
        return errors > sum(event.count(null) for null in _NULL_ERRORS)

    def _response_event(self, text: bytes) -> bytes:
        """Read one event's data: ``text`` itself, or the event written again."""
        event = json_object(text)
        if event is None:
            return text  # not the bridge's to judge: the client gets it as it came
        kind = event.get("type")
        if kind in _FAILED_KINDS or (kind is None and event.get("error")):
            response = event.get("response")
            failure = (response if isinstance(response, dict) else {}).get("error")
            self._failed_with(failure or event.get("error") or event)
            return text
        response = event.get("response")
        if kind == "response.created" and isinstance(response, dict):
            self.response = response
        elif kind in _FINAL_KINDS:
            if not isinstance(response, dict):
                self.failed = ModelResponseError(
                    f"{self.provider} sent a malformed stream event: {kind} holds no response",
                    provider=self.provider,
                )
                return text
            self.answered = self.started = self.ended = True
            self.usage = usage_of("responses", response.get("usage"), self.usage)
            if self.keep is not None:
                self.final = response
        if _SURROGATE.search(text) is not None:
            return utf8(_COMPACT(event))
        return text

    def close(self) -> bytes:
        """The rest, once the upstream's body has ended; a
        `ModelIncompleteStreamError` when the final event never came."""
        rest = b""
        if self.held:
            held, self.held = self.held, b""
            if self.ended or _whole(held):  # a last event without its blank line
                rest = self.feed(held + b"\n\n")
            # else an event cut short: left out, the error event follows
        if self.failed is not None or self.ended:
            return rest
        if not self.started:
            raise ModelResponseError(
                f"{self.provider} sent a stream that holds no reply", provider=self.provider
            )
        raise ModelIncompleteStreamError(
            f"the {self.provider} stream ended before its final event", provider=self.provider
        )

    async def settle(self) -> bytes:
        """The final event and what followed it, once `final` is kept."""
        final, self.final = self.final, None
        kept, self.kept = self.kept, b""
        if final is not None and self.keep is not None:
            await self.keep(final)
        return kept

    def failure(self, error: BridgeError, request_id: str) -> bytes:
        """An ``error`` event and ``response.failed``, as the translating path ends a
        failed stream (numbered after the upstream's last event; the response object
        is ``response.created``'s, failed)."""
        code = "rate_limit_exceeded" if error.status == 429 else "server_error"
        shell = self.shell() if self.response is None and self.shell is not None else None
        body: JSONDict = dict(self.response or shell or {"object": "response", "output": []})
        body["status"] = "failed"
        body["error"] = {"code": code, "message": error.message}
        number = self.sequence + 1
        said = {
            "type": "error",
            "sequence_number": number,
            "code": error.code,
            "message": error.message,
            "param": error.param,
        }
        failed = {"type": "response.failed", "sequence_number": number + 1, "response": body}
        return (  # after whole events only: no event is left open
            b"event: error\ndata: "
            + utf8(_COMPACT(said))
            + b"\n\nevent: response.failed\ndata: "
            + utf8(_COMPACT(failed))
            + b"\n\n"
        )


def _whole(event: bytes) -> bool:
    """Whether each ``data:`` line of ``event`` is a whole JSON value."""
    for line in event.splitlines():
        if line.startswith(b"data:"):
            try:
                json.loads(line[5:])
            except ValueError:
                return False
    return True
