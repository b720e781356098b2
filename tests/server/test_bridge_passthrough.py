"""The pass-through path: taken when the client speaks its upstream's API, and every
check of the translating path still holds on it.

The main bridge test files run on both paths (``pytest.mark.both_paths``); the
tests here prove the path is the one taken (the upstream gets the client's own
fields, the client gets the upstream's own bytes), which routes and requests take
it, and the checks made on the bytes it relays.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import anyio
import httpx2
import pytest
from bridge_fakes import UPSTREAM_KEY, Fake, RawFake, sse
from bridge_harness import CLIENT_KEY, USER, WEATHER, model_entries
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from good_agent.server import create_app, parse_config
from good_agent.server.background import BackgroundServer
from good_agent.server.passthrough_stream import ChatRelay, MessagesRelay, _MessagesEvent
from good_agent.types.errors import (
    ModelIncompleteStreamError,
    ModelOverloadedError,
    ModelResponseError,
)

pytestmark = pytest.mark.anyio
AUTH = {"authorization": f"Bearer {CLIENT_KEY}"}
CHAT = "/v1/chat/completions"
MESSAGES = "/v1/messages"


async def post(server: BackgroundServer, path: str, body: dict[str, Any], **headers: str) -> Any:
    async with httpx2.AsyncClient(timeout=30) as http:
        return await http.post(f"{server.url}{path}", json=body, headers={**AUTH, **headers})


def plans(server: BackgroundServer) -> dict[str, Any]:
    app: Any = server.app
    return {
        name: None if plan is None else plan.api
        for name, plan in app.state.bridge.pass_through.items()
    }


def test_which_routes_pass_through(fakes: dict[str, tuple[Fake, str]]) -> None:
    entries = model_entries(fakes)
    extra = [
        {**entries[0], "name": "gpt-off", "pass_through": False},
        {**entries[0], "name": "gpt-fallback", "fallback": ["gpt"]},
        {**entries[0], "name": "gpt-plain-settings", "settings": {"temperature": 0.2}},
        {**entries[0], "name": "gpt-translated-settings", "settings": {"thinking": "low"}},
        {**entries[1], "name": "claude-top-k", "settings": {"top_k": 5}},
        # Settings that cannot be written as JSON (TOML allows nan): translated.
        {**entries[0], "name": "gpt-nan", "settings": {"temperature": float("nan")}},
    ]
    config = parse_config({"models": [*entries, *extra]})
    app = create_app(config)
    bridge: Any = app.state.bridge
    found = {name: None if p is None else p.api for name, p in bridge.pass_through.items()}
    assert found == {
        "gpt": "chat",
        "claude": "messages",
        "gemini": None,  # an API no client endpoint passes through to
        "ollama": None,
        "local": None,  # prompted modes translate
        "local-parsed": None,
        "ollama-text": None,
        "structured": None,
        "wrong-key": "chat",
        "dead": "chat",
        "gpt-off": None,
        "gpt-fallback": None,
        "gpt-plain-settings": "chat",
        "gpt-translated-settings": None,
        "claude-top-k": "messages",
        "gpt-nan": None,
    }
    off = create_app(parse_config({"server": {"pass_through": False}, "models": entries}))
    assert not any(off.state.bridge.pass_through.values())


async def test_the_upstream_gets_the_clients_own_fields(
    bridge: BackgroundServer, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fake = fakes["openai"][0]
    body = {
        "model": "gpt",
        "messages": [{"role": "user", "content": "hi", "name": "ann"}],
        "tools": [WEATHER],
        "x_vendor_option": {"keep": [1, 2.5, "three"]},
        "temperature": 0.5,
    }
    response = await post(bridge, CHAT, body)
    assert response.status_code == 200, response.text
    [sent] = fake.requests
    assert sent == {**body, "model": "fake-gpt"}  # nothing else changed
    assert fake.headers[-1]["authorization"] == f"Bearer {UPSTREAM_KEY}"
    assert CLIENT_KEY not in json.dumps(fake.headers[-1])
    # The reply is the upstream's, with the route's name for the model.
    reply = response.json()
    assert reply["id"] == "chatcmpl-fake" and reply["model"] == "gpt"
    assert response.headers["x-request-id"].startswith("req_")


async def test_a_prompted_route_still_translates(
    bridge: BackgroundServer, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fake = fakes["text"][0]
    body = {"model": "local", "messages": USER, "tools": [WEATHER], "x_vendor_option": 1}
    response = await post(bridge, CHAT, body)
    assert response.status_code == 200, response.text
    [sent] = fake.requests
    assert "tools" not in sent and "x_vendor_option" not in sent


@pytest.mark.parametrize("kind", ["strict-tool", "strict-answer"])
async def test_requests_the_bridge_must_translate_are_translated(
    bridge: BackgroundServer, fakes: dict[str, tuple[Fake, str]], kind: str
) -> None:
    fake = fakes["openai"][0]
    body: dict[str, Any] = {"model": "gpt", "messages": USER, "x_vendor_option": 1}
    if kind == "strict-tool":
        body["tools"] = [{"type": "function", "function": {**WEATHER["function"], "strict": True}}]
    else:
        fake.reply.text = '{"city": "Paris"}'
        schema = {"type": "object", "properties": {"city": {"type": "string"}}}
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "w", "schema": schema, "strict": True},
        }
    response = await post(bridge, CHAT, body)
    assert response.status_code == 200, response.text
    assert "x_vendor_option" not in fake.requests[-1]  # the translating path's request


async def test_the_stream_is_the_upstreams_bytes(raw: tuple[RawFake, BackgroundServer]) -> None:
    fake, bridge = raw
    fake.reset()
    fake.content_type = "text/event-stream"

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish, "x_choice": "kept"}
        payload = {"id": "c1", "model": "fake-gpt", "choices": [choice], **extra}
        return sse(payload)

    events = (
        chunk({"role": "assistant", "content": ""}, system_fingerprint="fp_1")
        + b": a comment line\n\n"
        + chunk({"content": "Bonjour"})
        + chunk({}, "stop")
    )
    usage = sse({"id": "c1", "model": "fake-gpt", "choices": [], "usage": {"prompt_tokens": 4}})
    fake.body = events + usage + sse("[DONE]")
    for include_usage in (False, True):
        body: dict[str, Any] = {"model": "gpt", "messages": USER, "stream": True}
        if include_usage:
            body["stream_options"] = {"include_usage": True}
        response = await post(bridge, CHAT, body)
        assert response.status_code == 200, response.text
        expected = events + (usage if include_usage else b"") + sse("[DONE]")
        expected = expected.replace(b'"model": "fake-gpt"', b'"model": "gpt"')
        # Every byte as the upstream wrote it (comments, spacing, unknown members),
        # but the usage chunk the bridge asked for and this client did not.
        assert response.content.replace(b"\n", b"") == expected.replace(b"\n", b"")
        assert response.content.count(b"[DONE]") == 1


async def test_usage_is_logged_on_both_kinds_of_reply(
    bridge: BackgroundServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="good_agent.server.access")
    for path, model in ((CHAT, "gpt"), (MESSAGES, "claude")):
        for stream in (False, True):
            body = {"model": model, "messages": USER, "max_tokens": 50, "stream": stream}
            response = await post(bridge, path, body)
            assert response.status_code == 200, response.text
    await anyio.sleep(0.05)
    records = [r.__dict__ for r in caplog.records if r.name == "good_agent.server.access"]
    assert len(records) == 4
    for record in records:
        assert record["status"] == 200
        assert record["input_tokens"] > 0 and record["output_tokens"] > 0, record


async def test_anthropic_headers_and_fields_are_forwarded(
    bridge: BackgroundServer, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fake = fakes["anthropic"][0]
    body = {
        "model": "claude",
        "max_tokens": 50,
        "messages": USER,
        "metadata": {"user_id": "u-1"},
        "service_tier": "auto",
    }
    response = await post(bridge, MESSAGES, body, **{"anthropic-beta": "tools-2099"})
    assert response.status_code == 200, response.text
    [sent] = fake.requests
    assert sent == {**body, "model": "claude-sonnet-4-6"}
    headers = fake.headers[-1]
    assert headers["anthropic-beta"] == "tools-2099"
    assert headers["x-api-key"] == UPSTREAM_KEY and headers["anthropic-version"]
    assert response.json()["model"] == "claude"


@pytest.mark.parametrize("path", [CHAT, MESSAGES])
async def test_a_stream_ended_early_is_an_error(
    bridge: BackgroundServer, fakes: dict[str, tuple[Fake, str]], path: str
) -> None:
    fake = fakes["openai" if path == CHAT else "anthropic"][0]
    fake.reply.text = "a long reply " * 5
    fake.end_after = 3  # a clean end of the body, before the final event
    model = "gpt" if path == CHAT else "claude"
    body = {"model": model, "messages": USER, "max_tokens": 50, "stream": True}
    response = await post(bridge, path, body)
    assert response.status_code == 200
    text = response.text
    assert "[DONE]" not in text and "message_stop" not in text
    last = json.loads(text.strip().splitlines()[-1][6:])
    error = last["error"]
    assert "ended before its final event" in error["message"]
    if path == MESSAGES:
        assert last["type"] == "error" and "event: error" in text
    else:
        assert error["code"] == "upstream_stream_cut"


@pytest.fixture
def sse_upstream(raw: tuple[RawFake, BackgroundServer]) -> Iterator[RawFake]:
    raw[0].reset()
    raw[0].content_type = "text/event-stream"
    yield raw[0]
    raw[0].reset()


@pytest.mark.parametrize("path", [CHAT, MESSAGES])
async def test_an_upstream_error_event_is_mapped_and_redacted(
    raw: tuple[RawFake, BackgroundServer], sse_upstream: RawFake, path: str
) -> None:
    said = f"bad key {UPSTREAM_KEY} overloaded"
    if path == CHAT:
        start = sse({"id": "c", "choices": [{"index": 0, "delta": {"content": "Hi"}}]})
        failure = sse({"error": {"message": said, "type": "server_error"}})
    else:
        message = {"id": "m", "type": "message", "role": "assistant", "content": []}
        message |= {"model": "claude-sonnet-4-6", "usage": {"input_tokens": 3}}
        start = sse({"type": "message_start", "message": message}, "message_start")
        error = {"type": "error", "error": {"type": "overloaded_error", "message": said}}
        failure = sse(error, "error")
    sse_upstream.body = start + failure
    model = "gpt" if path == CHAT else "claude"
    body = {"model": model, "messages": USER, "max_tokens": 50, "stream": True}
    response = await post(raw[1], path, body)
    assert response.status_code == 200
    assert UPSTREAM_KEY not in response.text
    last = json.loads(response.text.strip().splitlines()[-1][6:])
    assert "failed mid-stream: bad key *** overloaded" in last["error"]["message"]
    assert "upstream 'gpt'" in last["error"]["message"] or path == MESSAGES
    assert response.text.count("overloaded") == 1  # the upstream's own event is not relayed


async def test_an_upstream_error_status_is_the_clients_error(
    bridge: BackgroundServer, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fake = fakes["anthropic"][0]
    fake.fail_status = 529
    for stream in (False, True):
        body = {"model": "claude", "messages": USER, "max_tokens": 50, "stream": stream}
        response = await post(bridge, MESSAGES, body)
        assert response.status_code == 502, response.text
        error = response.json()
        assert error["type"] == "error" and error["request_id"].startswith("req_")
        assert "upstream 'claude' (anthropic) failed: HTTP 529" in error["error"]["message"]


def test_a_relay_holds_a_line_until_it_is_whole() -> None:
    relay = ChatRelay("openai", include_usage=True)
    event = sse({"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    usage = sse({"id": "c", "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 2}})
    stream = event + usage + sse("[DONE]")
    out = b""
    for i in range(0, len(stream), 7):  # split anywhere, even inside "[DONE]"
        out += relay.feed(stream[i : i + 7])
    out += relay.close()
    assert out == stream
    assert relay.ended and relay.usage.input_tokens == 5 and relay.usage.output_tokens == 2


class _Reading(MessagesRelay):
    """A Messages relay that notes the events it reads."""

    def __init__(self) -> None:
        super().__init__("anthropic")
        self.read: list[_MessagesEvent] = []

    def _take(self, event: _MessagesEvent) -> bool:
        self.read.append(event)
        return super()._take(event)


@pytest.mark.parametrize("compact", [False, True])
def test_null_usage_and_error_members_are_passed_on(compact: bool) -> None:
    # OpenAI writes ``"usage":null`` on every chunk of a stream whose usage was asked
    # for (the bridge asks): those chunks are relayed as they came.
    def event(choices: list[Any], **members: Any) -> bytes:
        body = {"id": "c", "choices": choices, **members}
        separators = (",", ":") if compact else (", ", ": ")
        return f"data: {json.dumps(body, separators=separators)}\n\n".encode()

    def choice(delta: dict[str, Any], finish: str | None = None) -> list[Any]:
        return [{"index": 0, "delta": delta, "finish_reason": finish}]

    usage = event([], usage={"prompt_tokens": 5, "completion_tokens": 2})
    stream = (
        event(choice({"role": "assistant", "content": ""}), usage=None)
        + event(choice({"content": "Hi"}), usage=None, error=None)
        + event(choice({}, "stop"), usage=None)
        + usage
        + b"data: [DONE]\n\n"
    )
    relay = ChatRelay("openai", include_usage=True)
    assert relay.feed(stream) + relay.close() == stream
    assert relay.ended and (relay.usage.input_tokens, relay.usage.output_tokens) == (5, 2)
    # Without the client asking, the usage chunk is counted and left out.
    unasked = ChatRelay("openai")
    assert unasked.feed(stream) + unasked.close() == stream.replace(usage, b"")
    assert unasked.usage.input_tokens == 5
    # A member that is not null is read: an error fails the stream, after the
    # events before it.
    failing = ChatRelay("openai")
    first = event(choice({"content": "Hi"}), usage=None)
    out = failing.feed(first + event(choice({}), usage=None, error={"message": "overloaded"}))
    assert out == first and isinstance(failing.failed, ModelOverloadedError)
    assert "overloaded" in str(failing.failed)


@pytest.mark.parametrize(
    "line",
    [
        b"data: 42",
        b'data: {"id": "c", "choices": [{"index": 0, "delta": {"content": "Hi"}',  # cut
        b'data: {"id": "c", "choices": {"index": 0}}',
        b'data: {"id": "c", "choices": [{"index": "0", "delta": {}}]}',
        b'data: {"id": "c", "choices": [{"index": 0, "delta": "Hi"}]}',
        b'data: {"choices": [{"delta": {"tool_calls": [{"index": 1.5}]}}]}',
        b'data: {"choices": [{"delta": {"tool_calls": [{"index": null}]}}]}',
        b'data: {"choices": [{"delta": {"tool_calls": "f"}}]}',
        b'data: {"id": "c\xff", "choices": [{"index": 0, "delta": {}}]}',  # not UTF-8
        b'data: {"id": "c", "choices": [{"index": 0, "delta": null}]}',
        b'data: {"id": "c", "choices": null}',
    ],
)
def test_a_chat_event_of_the_wrong_shape_is_malformed(line: bytes) -> None:
    # Every event is read as the translating path's decoder reads it: one that is
    # not JSON, or not of a chunk's shape, fails the stream after the events before.
    before = sse({"id": "c", "choices": [{"index": 0, "delta": {"content": "a"}}]})
    relay = ChatRelay("openai")
    assert relay.feed(before + line + b"\n\n" + sse("[DONE]")) == before
    assert isinstance(relay.failed, ModelResponseError)
    assert "malformed stream event" in str(relay.failed) and relay.started


_KEYS = st.sampled_from(
    ["choices", "delta", "index", "tool_calls", "id", "usage", "error", "finish_reason", "x"]
)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(events=st.lists(st.dictionaries(_KEYS, _JSON, max_size=4), max_size=4))
def test_a_chat_relay_reads_any_json_event_without_raising(events: list[Any]) -> None:
    # Whatever JSON objects an upstream sends, each is passed on, written again, left
    # out, or fails the stream with a typed error: nothing else escapes the relay.
    relay = ChatRelay("openai", include_usage=True)  # (no usage chunk left out)
    stream = b"".join(sse(event) for event in events)
    out = relay.feed(stream)
    passed = [json.loads(line[5:]) for line in out.split(b"\n") if line.startswith(b"data:")]
    assert all(type(event) is dict for event in passed)
    assert len(passed) <= len(events)
    if relay.failed is not None:
        assert isinstance(relay.failed, ModelResponseError | ModelOverloadedError)
        return
    assert len(passed) == len(events)
    try:
        relay.close()
    except (ModelResponseError, ModelIncompleteStreamError):
        assert not relay.answered


def test_a_number_no_float_holds_passes_as_it_came() -> None:
    # JSON as the translating path reads it: a number out of a float's range and
    # ``NaN`` are read (as infinity and NaN), and the event is passed on unchanged.
    line = (
        b'data: {"id": "c", "created": 1e400, "x": [NaN, -Infinity],'
        b' "choices": [{"index": 0, "delta": {"content": "a"}}]}\n\n'
    )
    relay = ChatRelay("openai")
    assert relay.feed(line) == line
    assert relay.failed is None and relay.started


def test_a_lone_surrogate_is_written_as_the_translating_path_writes_it() -> None:
    def event(content: bytes) -> bytes:
        return (
            b'data: {"id": "c", "choices": [{"index": 0, "delta": {"content": "%s"}}]}\n\n'
            % content
        )

    relay = ChatRelay("openai")
    pair = event(b"\\ud83d\\ude00")
    out = relay.feed(event(b"a\\ud800b") + pair)
    written = '{"id":"c","choices":[{"index":0,"delta":{"content":"a\ufffdb"}}]}'
    assert out == b"data: " + written.encode() + b"\n\n" + pair  # a pair is valid: as it came
    assert relay.failed is None and relay.started


def test_a_messages_usage_member_is_read_even_when_null() -> None:
    # A Messages ``message_start`` is read for the start of the reply whatever its
    # usage holds.
    start = {"type": "message_start", "message": {"id": "m", "usage": None}}
    stream = (
        b"event: message_start\ndata: " + json.dumps(start).encode() + b"\n\n"
        b'event: message_stop\ndata: {"type": "message_stop"}\n\n'
    )
    relay = _Reading()
    assert relay.feed(stream) + relay.close() == stream
    assert len(relay.read) == 2 and relay.ended and relay.failed is None


def _messages_event(kind: str, data: bytes) -> bytes:
    return b"event: " + kind.encode() + b"\ndata: " + data + b"\n\n"


_MESSAGE_START = _messages_event(
    "message_start",
    b'{"type": "message_start", "message": {"id": "m", "usage": {"input_tokens": 4}}}',
)


@pytest.mark.parametrize(
    "data",
    [
        b"42",
        b'{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta"',  # cut
        b'{"type": "content_block_delta", "index": "0", "delta": {}}',
        b'{"type": "content_block_delta", "index": 0, "delta": "Hi"}',
        b'{"type": "content_block_delta", "index": 0.5, "delta": {}}',
        b'{"type": "ping", "x": "\xff"}',  # not UTF-8
        b'{"type": "ping"} {"type": "ping"}',
    ],
)
def test_a_messages_event_of_the_wrong_shape_is_malformed(data: bytes) -> None:
    # Every Messages event is read, as the translating path reads it: one that is not
    # JSON, or not of an event's shape, fails the stream after the events before.
    relay = MessagesRelay("anthropic")
    line = _messages_event("content_block_delta", data)
    out = relay.feed(_MESSAGE_START + line + _messages_event("message_stop", b"{}"))
    assert out == _MESSAGE_START + b"event: content_block_delta\n"
    assert isinstance(relay.failed, ModelResponseError)
    assert "malformed stream event" in str(relay.failed) and relay.started
    assert relay.usage.input_tokens == 4 and not relay.ended


def test_a_messages_stream_is_read_as_it_comes() -> None:
    # The usage is read from message_start and message_delta, the end from
    # message_stop; a lone surrogate is written again, a pair passes as it came.
    lone = _messages_event(
        "content_block_delta",
        b'{"type": "content_block_delta", "index": 0, "delta": {"text": "a\\ud800"}}',
    )
    pair = _messages_event(
        "content_block_delta",
        b'{"type": "content_block_delta", "index": 0, "delta": {"text": "\\ud83d\\ude00"}}',
    )
    delta = _messages_event(
        "message_delta", b'{"type": "message_delta", "delta": {}, "usage": {"output_tokens": 9}}'
    )
    stop = _messages_event("message_stop", b'{"type": "message_stop"}')
    relay = MessagesRelay("anthropic")
    out = b"".join(relay.feed(part) for part in (_MESSAGE_START, lone, pair, delta, stop))
    written = '{"type":"content_block_delta","index":0,"delta":{"text":"a\ufffd"}}'
    assert out == (
        _MESSAGE_START
        + b"event: content_block_delta\ndata: "
        + written.encode()
        + b"\n\n"
        + pair
        + delta
        + stop
    )
    assert relay.close() == b"" and relay.ended and relay.failed is None
    assert (relay.usage.input_tokens, relay.usage.output_tokens) == (4, 9)
    failing = MessagesRelay("anthropic")
    error = _messages_event("error", b'{"type": "error", "error": {"message": "overloaded"}}')
    assert failing.feed(_MESSAGE_START + error) == _MESSAGE_START + b"event: error\n"
    assert isinstance(failing.failed, ModelOverloadedError)


@settings(max_examples=300, deadline=None)
@given(
    events=st.lists(
        st.dictionaries(
            st.sampled_from(["type", "index", "delta", "message", "usage", "error", "x"]),
            _JSON,
            max_size=4,
        ),
        max_size=4,
    )
)
def test_a_messages_relay_reads_any_json_event_without_raising(events: list[Any]) -> None:
    # Whatever JSON objects an upstream sends, each is passed on, written again, or
    # fails the stream with a typed error: nothing else escapes the relay.
    relay = MessagesRelay("anthropic")
    stream = b"".join(_messages_event("x", json.dumps(event).encode()) for event in events)
    out = relay.feed(stream)
    passed = [json.loads(line[5:]) for line in out.split(b"\n") if line.startswith(b"data:")]
    assert passed == events[: len(passed)]
    assert len(passed) == len(events) or relay.failed is not None


async def test_bad_input_is_refused_before_anything_is_sent(
    bridge: BackgroundServer, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fake = fakes["openai"][0]
    bad_name = {"type": "function", "function": {"name": "no spaces", "parameters": {}}}
    for body, param in (
        ({"model": "gpt", "messages": USER, "tools": [bad_name]}, "tools[0].function.name"),
        ({"model": "gpt", "messages": USER, "temperature": "hot"}, "temperature"),
        ({"model": "gpt", "messages": [{"role": "robot", "content": "x"}]}, "messages[0].role"),
    ):
        response = await post(bridge, CHAT, body)
        assert response.status_code == 400, response.text
        assert response.json()["error"]["param"] == param
    assert not fake.requests


def _chunk(
    delta: dict[str, Any], finish: str | None = None, compact: bool = False, nulls: bool = False
) -> bytes:
    event: dict[str, Any] = {
        "id": "c",
        "model": "up",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    if nulls:  # as OpenAI writes a chunk when the usage was asked for
        event["usage"] = None
    if compact:
        return f"data: {json.dumps(event, separators=(',', ':'))}\n\n".encode()
    return sse(event)


def _stream(
    calls: list[tuple[str, bool]],
    text: str,
    compact: bool,
    arguments: str = "{}",
    nulls: bool = False,
) -> bytes:
    """A Chat Completions stream: text, then each call (with or without its index),
    its ``arguments`` in a delta of their own; with ``nulls``, a ``"usage": null``
    member on each chunk but the usage chunk."""
    out = _chunk({"role": "assistant", "content": text}, compact=compact, nulls=nulls)
    for position, (name, indexed) in enumerate(calls):
        call: dict[str, Any] = {
            "id": f"call_{position}",
            "type": "function",
            "function": {"name": name, "arguments": ""},
        }
        more: dict[str, Any] = {"function": {"arguments": arguments}}
        if indexed:
            call = {"index": position, **call}
            more = {"index": position, **more}
        out += _chunk({"tool_calls": [call]}, compact=compact, nulls=nulls)
        out += _chunk({"tool_calls": [more]}, compact=compact, nulls=nulls)
    usage = {"id": "c", "choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 3}}
    end = _chunk({}, "tool_calls" if calls else "stop", compact, nulls)
    return out + end + sse(usage) + sse("[DONE]")


def _relayed(stream: bytes, cuts: list[int]) -> tuple[bytes, ChatRelay]:
    relay = ChatRelay(
        "openai",
        include_usage=True,
        renames=(
            (b'"model":"up"', b'"model":"route"'),
            (b'"model": "up"', b'"model": "route"'),
        ),
    )
    out, last = b"", 0
    for cut in sorted({min(c, len(stream)) for c in cuts}):
        out += relay.feed(stream[last:cut])
        last = cut
    out += relay.feed(stream[last:]) + relay.close()
    return out, relay


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    calls=st.lists(
        st.tuples(st.from_regex(r"[a-z_]{1,12}", fullmatch=True), st.booleans()), max_size=3
    ),
    text=st.text(max_size=40),
    compact=st.booleans(),
    cuts=st.lists(st.integers(min_value=0, max_value=3000), max_size=8),
    arguments=st.text(max_size=30),
    nulls=st.booleans(),
)
def test_a_relay_reads_the_same_stream_however_it_is_cut(
    calls: list[tuple[str, bool]],
    text: str,
    compact: bool,
    cuts: list[int],
    arguments: str,
    nulls: bool,
) -> None:
    """However the upstream's bytes are split into reads, the client gets the same
    bytes: the upstream's own (the model renamed) where every call has its ``index``,
    and every call delta with an ``index`` (its call's position) where one had none."""
    stream = _stream(calls, text, compact, arguments, nulls)
    whole, relay = _relayed(stream, [])
    cut, _ = _relayed(stream, cuts)
    assert cut == whole
    assert relay.ended and relay.failed is None
    assert (relay.usage.input_tokens, relay.usage.output_tokens) == (7, 3)
    expected = stream.replace(b'"model": "up"', b'"model": "route"').replace(
        b'"model":"up"', b'"model":"route"'
    )
    if all(indexed for _, indexed in calls):
        assert whole == expected
    deltas = [
        json.loads(line[6:])["choices"][0]["delta"]
        for line in whole.split(b"\n")
        if line.startswith(b"data: {") and b'"tool_calls"' in line and b'"delta"' in line
    ]
    given_calls = [call for delta in deltas for call in delta.get("tool_calls", [])]
    assert [call["index"] for call in given_calls if "id" in call] == list(range(len(calls)))
    assert all(isinstance(call.get("index"), int) for call in given_calls)


@pytest.mark.both_paths
@pytest.mark.parametrize("count", [b"NaN", b"Infinity", b"1e400", b'"12"', b"true"])
async def test_a_usage_count_that_is_not_a_number_is_not_a_500(
    raw: tuple[RawFake, BackgroundServer], count: bytes
) -> None:
    # A count no integer holds counts nothing; the reply is relayed, whole or streamed.
    fake, bridge = raw
    fake.reset()
    usage = b'{"prompt_tokens": %s, "completion_tokens": 2}' % count
    fake.content_type = "application/json"
    fake.body = (
        b'{"id": "c1", "object": "chat.completion", "model": "fake-gpt", "choices": [{"index": 0,'
        b' "message": {"role": "assistant", "content": "Hi"}, "finish_reason": "stop"}],'
        b' "usage": ' + usage + b"}"
    )
    response = await post(bridge, CHAT, {"model": "gpt", "messages": USER})
    assert response.status_code == 200, response.text
    assert response.json()["choices"][0]["message"]["content"] == "Hi"
    fake.content_type = "text/event-stream"
    fake.body = (
        sse({"id": "c1", "choices": [{"index": 0, "delta": {"content": "Hi"}}]})
        + sse({"id": "c1", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        + b'data: {"id": "c1", "choices": [], "usage": '
        + usage
        + b"}\n\n"
        + sse("[DONE]")
    )
    response = await post(bridge, CHAT, {"model": "gpt", "messages": USER, "stream": True})
    assert response.status_code == 200, response.text
    assert b"Hi" in response.content and b"error" not in response.content
