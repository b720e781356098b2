"""``/v1/responses`` on the pass-through path: a Responses client to a route whose
upstream speaks the Responses API.

The body goes upstream as the client wrote it (``model`` and ``store: false`` changed),
the upstream's response (its own id) comes back, and the bridge still keeps the
response for its owner before the client is told it is complete: ``GET`` and a later
``previous_response_id`` (which takes the translating path) find it, for that key only.
A stream's failures end it with the bridge's own ``error`` and ``response.failed``
events, mapped and redacted.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import anyio
import httpx2
import pytest
from bridge_fakes import UPSTREAM_KEY, Fake, RawFake, Reply, ResponsesFake, sse
from bridge_harness import CLIENT_KEY, upstream_entry
from hypothesis import given, settings
from hypothesis import strategies as st
from openai import AsyncOpenAI, BadRequestError, NotFoundError
from responses_harness import (
    AUTH,
    OTHER,
    R_WEATHER,
    RESP,
    events_of,
    post,
    respond,
    strict_response,
)

from good_agent.server import create_app, parse_config
from good_agent.server.background import BackgroundServer
from good_agent.server.passthrough_stream import ResponsesRelay

pytestmark = pytest.mark.anyio
TOOL = {**R_WEATHER, "strict": False}
FAILED_AFTER_TEXT = ["response.created", "response.output_text.delta", "error", "response.failed"]
"""A stream that failed after its first text: the bridge's error and failed events last."""


def upstream(fakes: dict[str, tuple[Fake, str]]) -> ResponsesFake:
    fake = fakes["responses"][0]
    assert isinstance(fake, ResponsesFake)
    return fake


async def fetch(bridge: BackgroundServer, ident: str, headers: dict[str, str]) -> Any:
    async with httpx2.AsyncClient(timeout=30) as http:
        return await http.get(f"{bridge.url}/v1/responses/{ident}", headers=headers)


def client_for(bridge: BackgroundServer, key: str = CLIENT_KEY) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=f"{bridge.url}/v1", api_key=key, max_retries=0)


def test_which_responses_routes_pass_through(fakes: dict[str, tuple[Fake, str]]) -> None:
    url = fakes["responses"][1]

    def entry(name: str, **extra: Any) -> dict[str, Any]:
        return upstream_entry(
            url, name, "openai-responses", "gpt-4.1", **{"mode": "native", **extra}
        )

    models = [
        entry("plain"),
        entry("same-names", settings={"temperature": 0.2, "max_output_tokens": 64}),
        entry("renamed-setting", settings={"max_tokens": 64}),  # max_output_tokens upstream
        entry("stored-upstream", settings={"store": True}),  # the bridge keeps responses
        entry("off", pass_through=False),
        entry("auto", mode="auto"),  # auto resolves to native for this model
        entry("prompted", mode="validated"),
        entry("with-fallback", fallback=["plain"]),
    ]
    bridge: Any = create_app(parse_config({"models": models})).state.bridge
    found = {name: None if p is None else p.api for name, p in bridge.pass_through.items()}
    assert found == {
        "plain": "responses",
        "same-names": "responses",
        "renamed-setting": None,
        "stored-upstream": None,
        "off": None,
        "auto": "responses",
        "prompted": None,
        "with-fallback": None,
    }


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
async def test_the_upstream_gets_the_clients_own_fields_and_store_false(
    rbridge: BackgroundServer, fakes: dict[str, tuple[Fake, str]], stream: bool
) -> None:
    fake = upstream(fakes)
    body = {
        "model": RESP,
        "input": [{"role": "user", "content": [{"type": "input_text", "text": "Paris?"}]}],
        "instructions": "Be brief.",
        "tools": [TOOL],
        "metadata": {"trace": "t-1"},
        "reasoning": {"effort": "low"},  # the translating path leaves this out
        "x_vendor_option": {"keep": [1, 2.5, "three"]},
        "temperature": 0.5,
        "stream": stream,
    }
    response = await post(rbridge, body)
    assert response.status_code == 200, response.text
    [sent] = fake.requests
    assert sent == {**body, "model": "gpt-4.1", "store": False}  # nothing else changed
    assert fake.headers[-1]["authorization"] == f"Bearer {UPSTREAM_KEY}"
    assert CLIENT_KEY not in json.dumps(fake.headers[-1])
    if stream:
        events = events_of(response.text)
        assert [e.sequence_number for e in events] == list(range(len(events)))
        assert events[-1].type == "response.completed"
        final = events[-1].response
        raw = json.loads(response.text.strip().splitlines()[-1][6:])["response"]
    else:
        final = strict_response(response.json())
        raw = response.json()
    # The upstream's own response and id, with the route's name, stored by the bridge.
    assert final.id == fake.ids[-1] and final.model == RESP and final.store is True
    assert final.output_text == "Hello from the fake."
    fetched = await fetch(rbridge, final.id, AUTH)
    assert fetched.status_code == 200, fetched.text
    assert fetched.json() == raw  # the response object the client was sent
    assert (await fetch(rbridge, final.id, OTHER)).status_code == 404


async def test_a_tool_strict_only_when_marked_as_on_the_translating_path(
    rbridge: BackgroundServer, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fake = upstream(fakes)
    response = await post(rbridge, {"model": RESP, "input": "Hi", "tools": [R_WEATHER]})
    assert response.status_code == 200, response.text
    # The Responses API's default is strict; the bridge's rule is the client's mark.
    assert fake.requests[-1]["tools"] == [{**R_WEATHER, "strict": False}]
    assert "x_vendor_option" not in fake.requests[-1]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
async def test_a_passed_through_response_continues_on_the_translating_path(
    rbridge: BackgroundServer, fakes: dict[str, tuple[Fake, str]], stream: bool
) -> None:
    fake = upstream(fakes)
    fake.reply = Reply(calls=[("get_weather", {"city": "Paris"})])
    tools: Any = [TOOL]
    async with client_for(rbridge) as mine, client_for(rbridge, "second-client-key") as theirs:
        first = await respond(
            mine, stream, model=RESP, input="Weather?", instructions="Be brief.", tools=tools
        )
        assert "previous_response_id" not in fake.requests[-1]
        assert first.id == fake.ids[-1]
        call = next(item for item in first.output if item.type == "function_call")
        fake.reply = Reply(text="21C and sunny.")
        output: Any = [{"type": "function_call_output", "call_id": call.call_id, "output": "21C"}]
        second = await mine.responses.create(
            model=RESP, previous_response_id=first.id, input=output, tools=tools
        )
        assert second.output_text == "21C and sunny."
        assert second.previous_response_id == first.id
        sent = fake.requests[-1]
        # The translating path's request: the stored conversation, as neutral messages
        # encoded again (the earlier instructions are not carried over).
        assert "previous_response_id" not in sent and "x_vendor_option" not in sent
        assert [item.get("type", "message") for item in sent["input"]] == [
            "message",
            "function_call",
            "function_call_output",
        ]
        assert sent["input"][0] == {"role": "user", "content": "Weather?"}
        assert sent["input"][1]["call_id"] == call.call_id
        assert json.loads(sent["input"][1]["arguments"]) == {"city": "Paris"}
        with pytest.raises(BadRequestError) as refused:
            await theirs.responses.create(
                model=RESP, previous_response_id=first.id, input=output, tools=tools
            )
        assert refused.value.body["param"] == "previous_response_id"  # type: ignore[index]
        with pytest.raises(NotFoundError):
            await theirs.responses.retrieve(first.id)
    assert not fake.problems, fake.problems


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
async def test_store_false_keeps_nothing(
    rbridge: BackgroundServer, fakes: dict[str, tuple[Fake, str]], stream: bool
) -> None:
    fake = upstream(fakes)
    response = await post(rbridge, {"model": RESP, "input": "Hi", "store": False, "stream": stream})
    assert response.status_code == 200, response.text
    assert fake.requests[-1]["store"] is False
    final = events_of(response.text)[-1].response if stream else strict_response(response.json())
    assert final.id == fake.ids[-1] and final.store is False
    assert (await fetch(rbridge, final.id, AUTH)).status_code == 404


@pytest.mark.parametrize(
    "extra",
    [
        {
            "input": [
                {"type": "reasoning", "id": "rs_1", "summary": []},
                {"role": "user", "content": "Hi"},
            ]
        },
        {"parallel_tool_calls": False, "tools": [TOOL]},
        {"tools": [{**TOOL, "strict": True}]},
        {"input": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}]},
        {"background": True},
    ],
    ids=["reasoning-item", "no-parallel-calls", "strict-tool", "text-part", "background"],
)
async def test_requests_the_bridge_translates_take_the_translating_path(
    rbridge: BackgroundServer, fakes: dict[str, tuple[Fake, str]], extra: dict[str, Any]
) -> None:
    fake = upstream(fakes)
    body = {"model": RESP, "input": "Hi", "x_vendor_option": 1, **extra}
    response = await post(rbridge, body)
    assert response.status_code == 200, response.text
    assert "x_vendor_option" not in fake.requests[-1]  # the translating path's request
    assert response.json()["id"] != fake.ids[-1]  # the bridge's own id
    assert not fake.problems, fake.problems


async def test_a_route_that_does_not_qualify_translates(
    bridges: Any, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fake = upstream(fakes)
    url = fakes["responses"][1]
    entry = upstream_entry(
        url, "resp-max", "openai-responses", "gpt-4.1", mode="native", settings={"max_tokens": 64}
    )
    bridge = bridges([entry])
    response = await post(bridge, {"model": "resp-max", "input": "Hi", "x_vendor_option": 1})
    assert response.status_code == 200, response.text
    sent = fake.requests[-1]
    assert "x_vendor_option" not in sent and sent["max_output_tokens"] == 64
    assert response.json()["id"] != fake.ids[-1]


async def test_bad_input_is_the_same_400_before_anything_is_sent(
    rbridge: BackgroundServer, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fake = upstream(fakes)
    bad_name = {"type": "function", "name": "no spaces", "parameters": {"type": "object"}}
    for body, param in (
        ({"model": RESP, "input": "Hi", "tools": [bad_name]}, "tools[0].name"),
        ({"model": RESP, "input": "Hi", "temperature": "hot"}, "temperature"),
        ({"model": RESP, "input": [{"role": "robot", "content": "x"}]}, "input[0].role"),
        (
            {
                "model": RESP,
                "input": [{"type": "function_call_output", "call_id": "c", "output": "x"}],
            },
            "input[0].call_id",
        ),
    ):
        response = await post(rbridge, body)
        assert response.status_code == 400, response.text
        assert response.json()["error"]["param"] == param
    assert not fake.requests


@pytest.mark.parametrize("how", ["ended", "cut"])
async def test_a_stream_ended_before_its_final_event_is_an_error_and_kept_nowhere(
    rbridge: BackgroundServer, fakes: dict[str, tuple[Fake, str]], how: str
) -> None:
    fake = upstream(fakes)
    fake.reply = Reply(text="a long answer that will not finish " * 3)
    if how == "ended":
        fake.end_after = 6  # a clean end of the body, before response.completed
    else:
        fake.break_after = 6  # the connection dropped
    response = await post(rbridge, {"model": RESP, "input": "Hi", "stream": True})
    assert response.status_code == 200
    events = events_of(response.text)
    kinds = [event.type for event in events]
    assert "response.output_text.delta" in kinds and "response.completed" not in kinds
    assert kinds[-2:] == ["error", "response.failed"]
    assert events[-2].code == "upstream_stream_cut"
    assert [e.sequence_number for e in events] == list(range(len(events)))
    failed = events[-1].response
    assert failed.status == "failed" and failed.error.code == "server_error"
    assert failed.id == events[0].response.id == fake.ids[-1] and failed.model == RESP
    assert (await fetch(rbridge, failed.id, AUTH)).status_code == 404


@pytest.fixture
def raw_responses(bridges: Any) -> Iterator[tuple[RawFake, BackgroundServer]]:
    """A bridge whose Responses route ``raw`` is served by a :class:`RawFake` (an event
    stream of exactly the bytes a test sets)."""
    fake = RawFake()
    fake.content_type = "text/event-stream"
    server = BackgroundServer(fake.app()).start()
    bridge = bridges(
        [upstream_entry(server.url, "raw", "openai-responses", "gpt-4.1", mode="native")]
    )
    yield fake, bridge
    server.stop()


def created(number: int = 0) -> bytes:
    """A ``response.created`` event of the response ``resp_up``."""
    response = ResponsesFake().whole(Reply(), {"model": "gpt-4.1", "store": False})
    response |= {"id": "resp_up", "status": "in_progress", "output": [], "usage": None}
    event = {"type": "response.created", "sequence_number": number, "response": response}
    return sse(event, "response.created")


def text_delta(number: int, text: str) -> bytes:
    event = {"type": "response.output_text.delta", "sequence_number": number, "item_id": "msg"}
    event |= {"output_index": 0, "content_index": 0, "delta": text, "logprobs": []}
    return sse(event, "response.output_text.delta")


@pytest.mark.parametrize("kind", ["error", "response.failed"])
async def test_an_upstream_failure_event_is_mapped_and_redacted(
    raw_responses: tuple[RawFake, BackgroundServer], kind: str
) -> None:
    fake, bridge = raw_responses
    said = f"bad key {UPSTREAM_KEY} overloaded"
    if kind == "error":
        failure = {"type": "error", "sequence_number": 2, "code": "server_error", "message": said}
    else:
        response = {
            "id": "resp_up",
            "status": "failed",
            "error": {"code": "server_error", "message": said},
        }
        failure = {"type": "response.failed", "sequence_number": 2, "response": response}
    fake.body = created() + text_delta(1, "Hi") + sse(failure, kind)
    response = await post(bridge, {"model": "raw", "input": "Hi", "stream": True})
    assert response.status_code == 200
    assert UPSTREAM_KEY not in response.text
    events = events_of(response.text)
    assert [e.type for e in events] == FAILED_AFTER_TEXT
    assert "failed mid-stream: bad key *** overloaded" in events[-2].message
    assert "upstream 'raw'" in events[-2].message
    assert [e.sequence_number for e in events] == [0, 1, 2, 3]
    assert events[-1].response.id == "resp_up" and events[-1].response.model == "raw"
    assert response.text.count("overloaded") == 2  # the bridge's two events, not the upstream's
    assert (await fetch(bridge, "resp_up", AUTH)).status_code == 404


async def test_a_failure_before_any_output_is_an_http_error(
    raw_responses: tuple[RawFake, BackgroundServer],
) -> None:
    fake, bridge = raw_responses
    failure = {"type": "error", "sequence_number": 1, "message": f"no {UPSTREAM_KEY}"}
    fake.body = created() + sse(failure, "error")
    response = await post(bridge, {"model": "raw", "input": "Hi", "stream": True})
    assert response.status_code == 502, response.text
    assert UPSTREAM_KEY not in response.text
    assert "failed mid-stream" in response.json()["error"]["message"]


async def test_a_failure_without_response_created_reports_a_whole_response(
    raw_responses: tuple[RawFake, BackgroundServer],
) -> None:
    """An upstream that starts its output without ``response.created`` and then fails:
    the bridge's ``response.failed`` carries a whole response object (the openai SDK's
    types take it), the request's own."""
    fake, bridge = raw_responses
    failure = {"type": "error", "sequence_number": 1, "message": "overloaded"}
    fake.body = text_delta(0, "Hi") + sse(failure, "error")
    body = {"model": "raw", "input": "Hi", "stream": True, "instructions": "Be brief."}
    response = await post(bridge, body)
    assert response.status_code == 200
    events = events_of(response.text)  # each validated as the SDK's event types
    assert [e.type for e in events] == ["response.output_text.delta", "error", "response.failed"]
    failed = events[-1].response
    assert failed.status == "failed" and failed.model == "raw" and failed.id.startswith("resp_")
    assert failed.instructions == "Be brief." and failed.error.code == "server_error"


async def test_a_malformed_event_or_reply_is_refused(
    raw_responses: tuple[RawFake, BackgroundServer],
) -> None:
    fake, bridge = raw_responses
    fake.body = (
        created() + text_delta(1, "Hi") + b"event: response.output_text.delta\ndata: [1, 2]\n\n"
    )
    response = await post(bridge, {"model": "raw", "input": "Hi", "stream": True})
    assert response.status_code == 200
    events = events_of(response.text)
    assert [e.type for e in events][-2:] == ["error", "response.failed"]
    assert events[-2].code == "upstream_invalid_reply"
    assert "[1, 2]" not in response.text.split("event: error")[0]
    # A whole reply of the wrong shape (no output), or without its id, is a 502.
    fake.content_type = "application/json"
    for reply in ({"id": "resp_up", "object": "response"}, {"object": "response", "output": []}):
        fake.body = json.dumps(reply).encode()
        response = await post(bridge, {"model": "raw", "input": "Hi"})
        assert response.status_code == 502, response.text
        assert response.json()["error"]["code"] == "upstream_invalid_reply"


async def test_usage_is_logged_on_both_kinds_of_reply(
    rbridge: BackgroundServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="good_agent.server.access")
    for stream in (False, True):
        response = await post(rbridge, {"model": RESP, "input": "Hi", "stream": stream})
        assert response.status_code == 200, response.text
    await anyio.sleep(0.05)
    records = [r.__dict__ for r in caplog.records if r.name == "good_agent.server.access"]
    assert [(r["status"], r["input_tokens"], r["output_tokens"]) for r in records] == [
        (200, 11, 7),
        (200, 11, 7),
    ]


def test_a_relay_passes_whole_events_however_the_bytes_are_split() -> None:
    response = {"id": "resp_up", "model": "gpt-4.1", "output": [], "error": None}
    final = {**response, "status": "completed", "usage": {"input_tokens": 5, "output_tokens": 2}}
    stream = (
        created()
        + text_delta(1, "Bonjour")
        + b": a comment\n\n"
        + sse(
            {"type": "response.completed", "sequence_number": 2, "response": final},
            "response.completed",
        )
    )
    for size in (1, 7, 50, len(stream)):
        relay = ResponsesRelay("openai")
        out = b""
        for i in range(0, len(stream), size):
            piece = relay.feed(stream[i : i + size])
            assert not piece or piece.endswith(b"\n\n")  # never half an event
            out += piece
        out += relay.close()
        assert out == stream
        assert relay.ended and relay.usage.input_tokens == 5 and relay.usage.output_tokens == 2


async def test_the_final_event_waits_until_the_response_is_kept() -> None:
    kept: list[dict[str, Any]] = []

    async def keep(final: dict[str, Any]) -> None:
        kept.append(final)

    final = {"id": "resp_up", "model": "gpt-4.1", "output": [], "status": "completed"}
    completed = sse(
        {"type": "response.completed", "sequence_number": 2, "response": final},
        "response.completed",
    )
    relay = ResponsesRelay("openai", keep=keep)
    out = relay.feed(created() + text_delta(1, "Hi") + completed)
    assert out == created() + text_delta(1, "Hi")  # the final event held back
    assert relay.final == final and not kept
    assert await relay.settle() == completed
    assert kept == [final] and relay.final is None


async def test_a_streamed_response_is_stored_before_the_client_sees_it_complete(
    rbridge: BackgroundServer,
) -> None:
    async with (
        client_for(rbridge) as client,
        client.responses.stream(model=RESP, input="Hi") as stream,
    ):
        async for event in stream:
            if event.type == "response.completed":
                # The stream is still open: the response was stored before this event.
                fetched = await client.responses.retrieve(event.response.id)
                assert fetched.output_text == "Hello from the fake."


async def test_a_final_response_of_the_wrong_shape_is_an_error_and_not_stored(
    raw_responses: tuple[RawFake, BackgroundServer],
) -> None:
    fake, bridge = raw_responses
    final = {"id": "resp_up", "object": "response", "status": "completed", "output": "text"}
    completed = {"type": "response.completed", "sequence_number": 2, "response": final}
    fake.body = created() + text_delta(1, "Hi") + sse(completed, "response.completed")
    response = await post(bridge, {"model": "raw", "input": "Hi", "stream": True})
    assert response.status_code == 200
    events = events_of(response.text)
    assert [e.type for e in events] == FAILED_AFTER_TEXT
    assert events[-2].code == "upstream_invalid_reply"
    assert (await fetch(bridge, "resp_up", AUTH)).status_code == 404
    # With store: false nothing is kept, and the upstream's final event is relayed.
    body = {"model": "raw", "input": "Hi", "stream": True, "store": False}
    response = await post(bridge, body)
    assert response.text.endswith(sse(completed, "response.completed").decode())


@settings(max_examples=80, deadline=None)
@given(cuts=st.lists(st.integers(min_value=0, max_value=2_000), max_size=12), crlf=st.booleans())
def test_a_relay_reads_the_same_stream_however_it_is_cut(cuts: list[int], crlf: bool) -> None:
    final = {"id": "resp_up", "model": "gpt-4.1", "output": [], "error": None}
    final |= {"status": "completed", "usage": {"input_tokens": 5, "output_tokens": 2}}
    stream = (
        created()
        + text_delta(1, "Bonjour \\ud83d\\ude00")  # a pair of surrogate escapes
        + sse({"type": "response.completed", "sequence_number": 2, "response": final}, "x")
    )
    if crlf:
        stream = stream.replace(b"\n", b"\r\n")
    relay = ResponsesRelay("openai")
    out = b""
    start = 0
    for cut in sorted({min(c, len(stream)) for c in cuts}):
        out += relay.feed(stream[start:cut])
        start = cut
    out += relay.feed(stream[start:]) + relay.close()
    assert relay.ended and relay.failed is None and relay.sequence == 2
    assert (relay.usage.input_tokens, relay.usage.output_tokens) == (5, 2)
    assert [json.loads(line[5:]) for line in out.splitlines() if line.startswith(b"data:")] == [
        json.loads(line[5:]) for line in stream.splitlines() if line.startswith(b"data:")
    ]
