"""Bridge behaviours fixed by moving the bridge onto the model core (one test each)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx2
import pytest
from bridge_fakes import Fake, Reply, sse
from bridge_harness import CLIENT_KEY, USER, WEATHER, collect_stream, model_entries
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

from good_agent.server import create_app, parse_config
from good_agent.server.background import BackgroundServer

pytestmark = pytest.mark.anyio

TAGGED = (
    'Let me check. <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
)


async def unindexed_calls(request: Request) -> StreamingResponse:
    """An OpenAI-compatible server that streams two calls with ids and no ``index``."""
    body = await request.json()

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return sse({"object": "chat.completion.chunk", "model": body["model"], "choices": [choice]})

    async def chunks() -> AsyncIterator[bytes]:
        for call_id, city in (("call_a", "Paris"), ("call_b", "Rome")):
            head = {"id": call_id, "type": "function", "function": {"name": "get_weather"}}
            yield chunk(
                {"tool_calls": [{**head, "function": {"name": "get_weather", "arguments": ""}}]}
            )
            yield chunk({"tool_calls": [{"function": {"arguments": json.dumps({"city": city})}}]})
        yield chunk({}, "tool_calls")
        yield sse("[DONE]")

    return StreamingResponse(chunks(), media_type="text/event-stream")


@pytest.fixture(scope="module")
def fixes_bridge(fakes: dict[str, tuple[Fake, str]]) -> Iterator[BackgroundServer]:
    odd = BackgroundServer(
        Starlette(routes=[Route("/v1/chat/completions", unindexed_calls, methods=["POST"])])
    ).start()
    text_url = fakes["text"][1] + "/v1"
    extra = [
        {
            "name": "local-mistral",
            "provider": "openai",
            "model": "local-model",
            "base_url": text_url,
            "api_key_env": "GA_TEST_UPSTREAM_KEY",
            "mode": "validated",
            "text_format": "mistral",
        },
        {
            "name": "unindexed",
            "provider": "openai",
            "model": "odd-model",
            "base_url": f"{odd.url}/v1",
            "mode": "native",
        },
    ]
    # A limit of 3 s: the slow fake below takes about 12 s, and the other routes' replies
    # must finish within it even when a long test run pauses this process.
    config = parse_config(
        {
            "server": {"api_keys_env": "GA_TEST_CLIENT_KEYS", "stream_timeout": 3.0},
            "models": [*model_entries(fakes), *extra],
        }
    )
    app = create_app(config)
    assert app.state.bridge.routes["gpt"].limits_streams  # aiohttp keeps the limit
    bridge = BackgroundServer(app).start()
    yield bridge
    bridge.stop()
    odd.stop()


@pytest.fixture
async def fixes_client(fixes_bridge: BackgroundServer) -> AsyncIterator[Any]:
    from openai import AsyncOpenAI

    async with AsyncOpenAI(
        base_url=f"{fixes_bridge.url}/v1", api_key=CLIENT_KEY, max_retries=0
    ) as client:
        yield client


async def raw_stream(bridge: BackgroundServer, body: dict[str, Any], path: str) -> str:
    async with httpx2.AsyncClient(timeout=30) as http:
        response = await http.post(
            f"{bridge.url}{path}",
            json={**body, "stream": True},
            headers={"authorization": f"Bearer {CLIENT_KEY}"},
        )
    assert response.status_code == 200
    return response.text


async def test_stream_ended_without_final_event_is_an_error_event(
    fixes_bridge: BackgroundServer, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fake = fakes["openai"][0]
    fake.reply = Reply(text="An answer that stops halfway through, cleanly.")
    fake.end_after = 4  # the response ends without a finish_reason or [DONE]
    text = await raw_stream(
        fixes_bridge, {"model": "gpt", "messages": USER}, "/v1/chat/completions"
    )
    data = [line[6:] for line in text.splitlines() if line.startswith("data: ")]
    assert "[DONE]" not in data
    finishes = [
        choice.get("finish_reason")
        for item in data
        for choice in json.loads(item).get("choices") or []
    ]
    assert not any(finishes), "a cut stream must not finish with a reason"
    error = json.loads(data[-1])["error"]
    assert "before its final event" in error["message"]


@pytest.mark.parametrize("stream", [True, False])
async def test_prompted_streams_parse_what_whole_replies_parse(
    stream: bool, fixes_client: Any, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fake = fakes["text"][0]
    fake.reply = Reply(text=TAGGED)
    kw = {"model": "local-mistral", "messages": USER, "tools": [WEATHER]}
    if stream:
        text, calls, finish, _ = await collect_stream(fixes_client, **kw)
        found = [(c["name"], json.loads(c["arguments"])) for c in calls.values()]
    else:
        reply = await fixes_client.chat.completions.create(**kw)
        message = reply.choices[0].message
        text, finish = message.content or "", reply.choices[0].finish_reason
        found = [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls]
    assert found == [("get_weather", {"city": "Paris"})]
    assert finish == "tool_calls"
    assert "tool_call" not in text and text.strip() == "Let me check."


async def test_distinct_ids_without_index_are_two_calls(fixes_client: Any) -> None:
    _, calls, finish, _ = await collect_stream(
        fixes_client, model="unindexed", messages=USER, tools=[WEATHER]
    )
    assert [(c["id"], json.loads(c["arguments"])) for c in calls.values()] == [
        ("call_a", {"city": "Paris"}),
        ("call_b", {"city": "Rome"}),
    ]
    assert finish == "tool_calls"


@pytest.mark.parametrize("stream", [True, False])
async def test_tool_choice_none_holds_in_prompted_mode(
    stream: bool, fixes_client: Any, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fake = fakes["text"][0]
    fake.reply = Reply(text=TAGGED)
    kw = {"model": "local", "messages": USER, "tools": [WEATHER], "tool_choice": "none"}
    if stream:
        _, calls, finish, _ = await collect_stream(fixes_client, **kw)
        assert calls == {}
    else:
        reply = await fixes_client.chat.completions.create(**kw)
        assert not reply.choices[0].message.tool_calls
        finish = reply.choices[0].finish_reason
    assert finish == "stop"


async def test_streamed_requests_have_an_overall_time_limit(
    fixes_bridge: BackgroundServer, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fake = fakes["openai"][0]
    fake.reply = Reply(text="slow words " * 20)
    fake.chunk_delay = 0.2  # about 12 s in all, against a stream_timeout of 3 s
    text = await raw_stream(
        fixes_bridge, {"model": "gpt", "messages": USER}, "/v1/chat/completions"
    )
    data = [line[6:] for line in text.splitlines() if line.startswith("data: ")]
    error = json.loads(data[-1])["error"]
    assert error["code"] == "upstream_timeout"
    assert "[DONE]" not in data
    assert fake.cancelled.wait(5)


async def test_the_time_limit_holds_on_an_httpx2_client_too(
    fakes: dict[str, tuple[Fake, str]],
) -> None:
    # With a client given, the limit is kept per item by the bridge (aiohttp keeps it
    # with one timer for the whole reply otherwise).
    config = parse_config(
        {
            "server": {"api_keys_env": "GA_TEST_CLIENT_KEYS", "stream_timeout": 1.0},
            "models": model_entries(fakes),
        }
    )
    app = create_app(config, client=httpx2.AsyncClient())
    assert not app.state.bridge.routes["gpt"].limits_streams
    bridge = BackgroundServer(app).start()
    try:
        fake = fakes["openai"][0]
        fake.reply = Reply(text="slow words " * 20)
        fake.chunk_delay = 0.2
        text = await raw_stream(bridge, {"model": "gpt", "messages": USER}, "/v1/chat/completions")
    finally:
        bridge.stop()
    data = [line[6:] for line in text.splitlines() if line.startswith("data: ")]
    assert json.loads(data[-1])["error"]["code"] == "upstream_timeout"
    assert "[DONE]" not in data
    assert fake.cancelled.wait(5)


async def test_messages_stream_start_carries_input_tokens(
    fixes_bridge: BackgroundServer, fakes: dict[str, tuple[Fake, str]]
) -> None:
    from anthropic import AsyncAnthropic

    fake = fakes["anthropic"][0]
    fake.reply = Reply(text="Sunny.", input_tokens=37, output_tokens=5)
    async with AsyncAnthropic(
        base_url=fixes_bridge.url, api_key=CLIENT_KEY, max_retries=0
    ) as client:
        events = [
            event
            async for event in await client.messages.create(
                model="claude",
                max_tokens=100,
                messages=[{"role": "user", "content": "Weather?"}],
                stream=True,
            )
        ]
    start = next(e for e in events if e.type == "message_start")
    assert start.message.usage.input_tokens == 37
    delta = next(e for e in events if e.type == "message_delta")
    assert delta.usage.output_tokens == 5


@pytest.mark.parametrize("kind", ["json_schema", "json_object"])
async def test_response_format_for_an_anthropic_upstream_is_refused(
    kind: str, fixes_client: Any, fakes: dict[str, tuple[Fake, str]]
) -> None:
    import openai

    fake = fakes["anthropic"][0]
    fmt: dict[str, Any] = {"type": kind}
    if kind == "json_schema":
        fmt["json_schema"] = {"name": "city", "schema": {"type": "object"}}
    with pytest.raises(openai.BadRequestError) as refused:
        await fixes_client.chat.completions.create(
            model="claude", messages=USER, response_format=fmt
        )
    assert refused.value.status_code == 400
    assert "response_format" in str(refused.value.message)
    assert "not supported" in str(refused.value.message)
    assert fake.requests == []
