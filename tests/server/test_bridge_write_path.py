"""The pieces of the bridge's write path: flushing only when the next chunk must wait,
chunks encoded as ``json.dumps`` would, ids that never repeat."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Any

import anyio
import anyio.lowlevel
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from good_agent.providers.streaming import ToolCallArgs, ToolCallStart
from good_agent.server.chat.wire import ChunkWriter
from good_agent.server.common.ids import _IDS, fresh_id
from good_agent.server.common.sse import next_or_flush

pytestmark = pytest.mark.anyio


async def _source(batches: list[list[str]], events: list[str]) -> AsyncIterator[str]:
    """Items in batches: within a batch without waiting, between batches after a sleep."""
    for number, batch in enumerate(batches):
        if number:
            await anyio.sleep(0.01)
        for item in batch:
            events.append(f"ready {item}")
            yield item


async def _relay(batches: list[list[str]]) -> tuple[list[list[str]], list[str]]:
    events: list[str] = []
    items = _source(batches, events)
    pending: list[str] = []
    writes: list[list[str]] = []

    async def flush() -> None:
        if pending:
            writes.append(list(pending))
            events.append("flush")
            pending.clear()

    while True:
        try:
            pending.append(await next_or_flush(anext(items), flush))
        except StopAsyncIteration:
            break
    writes.append(pending)
    return writes, events


async def test_items_ready_together_are_written_together() -> None:
    writes, events = await _relay([["a", "b", "c"], ["d"], ["e", "f"]])
    assert writes == [["a", "b", "c"], ["d"], ["e", "f"]]
    # Each flush comes before the wait for the next batch, never after it.
    assert events == ["ready a", "ready b", "ready c", "flush", "ready d", "flush"] + [
        "ready e",
        "ready f",
    ]


async def test_cancelled_while_flushing_the_step_gets_the_cancellation() -> None:
    closed: list[str] = []

    async def slow() -> AsyncIterator[str]:
        try:
            yield "first"
            await anyio.sleep(10)
            yield "never"
        finally:
            closed.append("upstream closed")

    async def stuck_flush() -> None:
        await anyio.sleep(10)

    items = slow()
    with anyio.move_on_after(0.05) as scope:
        assert await next_or_flush(anext(items), stuck_flush) == "first"
        await next_or_flush(anext(items), stuck_flush)
    assert scope.cancelled_caught
    assert closed == ["upstream closed"]


async def test_a_failing_step_raises_its_own_error() -> None:
    async def broken() -> AsyncIterator[str]:
        await anyio.lowlevel.checkpoint()
        raise ValueError("upstream broke")
        yield "unreachable"

    flushed: list[bool] = []

    async def flush() -> None:
        flushed.append(True)

    with pytest.raises(ValueError, match="upstream broke"):
        await next_or_flush(anext(broken()), flush)
    assert flushed == [True]


@settings(max_examples=300, deadline=None)
@given(
    model=st.text(),
    text=st.text(),
    include_usage=st.booleans(),
    finish=st.one_of(st.none(), st.sampled_from(["stop", "tool_calls", "length"]), st.text()),
)
def test_chunks_are_the_bytes_of_json_dumps(
    model: str, text: str, include_usage: bool, finish: str | None
) -> None:
    writer = ChunkWriter(model, include_usage=include_usage)

    def expected(delta: dict[str, Any], reason: str | None = None) -> bytes:
        payload: dict[str, Any] = {
            "id": writer.id,
            "object": "chat.completion.chunk",
            "created": writer.created,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": reason, "logprobs": None}],
        }
        if include_usage:
            payload["usage"] = None
        return f"data: {json.dumps(payload, ensure_ascii=False)}\n\n".encode()

    assert writer.text(text) == expected({"content": text})
    assert writer.reasoning(text) == expected({"reasoning_content": text})
    assert writer.role() == expected({"role": "assistant", "content": ""})
    start = {"index": 0, "id": "call_1", "type": "function"}
    assert writer.call(ToolCallStart(0, "call_1", text)) == expected(
        {"tool_calls": [{**start, "function": {"name": text, "arguments": ""}}]}
    )
    assert writer.call(ToolCallArgs(2, text)) == expected(
        {"tool_calls": [{"index": 2, "function": {"arguments": text}}]}
    )
    if finish is not None:
        assert writer.finish(finish) == expected({}, finish)


def test_a_lone_surrogate_in_a_chunk_becomes_a_replacement_character() -> None:
    chunk = ChunkWriter("m").text("a\ud800b")
    assert json.loads(chunk[6:])["choices"][0]["delta"]["content"] == "a\ufffdb"


def test_ids_never_repeat_and_keep_their_shape() -> None:
    ids = [fresh_id("req_") for _ in range(100_000)]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"req_[0-9a-f]{24}", one) for one in ids[::997])


def test_a_forked_process_draws_a_new_random_part() -> None:
    before = fresh_id("x")
    process = _IDS.process
    _IDS.reset()  # what a forked child runs (os.register_at_fork)
    after = fresh_id("x")
    assert _IDS.process != process
    assert after[1:13] == _IDS.process and before[1:13] == process


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(payload=_JSON, request_id=st.text(alphabet="abcdef0123456789_req", max_size=30))
async def test_reply_json_with_request_id_is_the_general_response(
    payload: Any, request_id: str
) -> None:
    """The whole reply built directly sends what Starlette's general path sends: the
    same status, headers (in order) and body, through ASGI."""
    from starlette.responses import Response

    from good_agent.server.common.ids import REQUEST_ID_HEADER
    from good_agent.server.exchange import ReplyJSON

    async def sent(response: Response) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            messages.append(message)

        scope = {"type": "http", "method": "POST", "path": "/", "headers": []}
        await response(scope, receive, send)
        return messages

    general = ReplyJSON(payload, headers={REQUEST_ID_HEADER: request_id})
    direct = ReplyJSON.with_request_id(payload, request_id)
    assert await sent(direct) == await sent(general)
    assert direct.headers == general.headers
    assert json.loads(direct.body) == payload
