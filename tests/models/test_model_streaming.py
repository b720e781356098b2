"""ProviderModel.stream through the real SDK clients over loopback fake upstreams.

For every provider and mode the streamed reply ends with the same response the
non-streamed request gives for the same upstream reply, and a stream cut before
its final event is an error.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx
import pytest
from bridge_fakes import (
    UPSTREAM_KEY,
    AnthropicFake,
    Fake,
    GeminiFake,
    OllamaFake,
    OpenAIFake,
    RawFake,
    Reply,
)
from tool_dicts import WEATHER

from good_agent import resolve_model
from good_agent.models import (
    AnthropicModel,
    GeminiModel,
    ModelRequest,
    ModelResponse,
    OllamaModel,
    OpenAIChatModel,
    OpenAIResponsesModel,
)
from good_agent.models.provider_model import ProviderModel
from good_agent.providers.openai.http_transport import OpenAIResponsesHttpTransport
from good_agent.providers.strategies.base import ToolCallingMode
from good_agent.providers.streaming import (
    FinishDelta,
    ModelDelta,
    TextDelta,
    ToolCallArgs,
    ToolCallEnd,
    ToolCallStart,
    UsageDelta,
)
from good_agent.server.background import BackgroundServer
from good_agent.types.errors import ModelIncompleteStreamError, ModelResponseError
from good_agent.types.messages import UserMessage

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def upstreams() -> Iterator[dict[str, tuple[Fake, str]]]:
    fakes: dict[str, Fake] = {
        "openai": OpenAIFake(),
        "text": OpenAIFake(text_only=True),
        "anthropic": AnthropicFake(),
        "gemini": GeminiFake(),
        "ollama": OllamaFake(),
    }
    servers = {name: BackgroundServer(fake.app()).start() for name, fake in fakes.items()}
    yield {name: (fakes[name], servers[name].url) for name in fakes}
    for server in servers.values():
        server.stop()


BUILT: list[ProviderModel] = []


@pytest.fixture(autouse=True)
async def _fresh(upstreams: dict[str, tuple[Fake, str]]) -> AsyncIterator[None]:
    for fake, _ in upstreams.values():
        fake.reset()
    yield
    while BUILT:
        await BUILT.pop().aclose()


def build(kind: str, upstreams: dict[str, tuple[Fake, str]], **options: Any) -> ProviderModel:
    model = _build(kind, upstreams, **options)
    BUILT.append(model)
    return model


def _build(kind: str, upstreams: dict[str, tuple[Fake, str]], **options: Any) -> ProviderModel:
    fake_name = {"prompted": "text"}.get(kind, kind)
    url = upstreams[fake_name][1]
    if kind == "openai":
        return OpenAIChatModel("fake-gpt", base_url=f"{url}/v1", api_key=UPSTREAM_KEY, **options)
    if kind == "prompted":
        options.setdefault("mode", "validated")
        return OpenAIChatModel("local", base_url=f"{url}/v1", api_key=UPSTREAM_KEY, **options)
    if kind == "anthropic":
        return AnthropicModel("claude-test", base_url=url, api_key=UPSTREAM_KEY, **options)
    if kind == "gemini":
        return GeminiModel("gemini-2.5-flash", base_url=url, api_key=UPSTREAM_KEY, **options)
    return OllamaModel("qwen2.5", base_url=url, api_key=UPSTREAM_KEY, mode="native", **options)


def ask(text: str = "Weather in Paris?", **settings: Any) -> ModelRequest:
    choice = settings.pop("tool_choice", None)
    return ModelRequest([UserMessage(content=text)], [WEATHER], choice, settings)


async def streamed(
    model: ProviderModel, request: ModelRequest
) -> tuple[list[ModelDelta], ModelResponse]:
    deltas: list[ModelDelta] = []
    final: ModelResponse | None = None
    async for item in model.stream(request):
        assert final is None, "nothing may follow the final response"
        if isinstance(item, ModelResponse):
            final = item
        else:
            deltas.append(item)
    assert final is not None
    return deltas, final


def same(a: ModelResponse, b: ModelResponse) -> None:
    """Equal replies; call ids are minted by the fake per reply, so they are left out."""
    assert (a.content, a.finish_reason, a.usage, a.reasoning) == (
        b.content,
        b.finish_reason,
        b.usage,
        b.reasoning,
    )
    assert [(c.name, c.arguments) for c in a.tool_calls] == [
        (c.name, c.arguments) for c in b.tool_calls
    ]


def text_of(deltas: list[ModelDelta]) -> str:
    return "".join(d.text for d in deltas if isinstance(d, TextDelta))


def calls_in(deltas: list[ModelDelta]) -> list[tuple[str, Any]]:
    names = {d.index: d.name for d in deltas if isinstance(d, ToolCallStart)}
    args: dict[int, str] = {}
    for d in deltas:
        if isinstance(d, ToolCallArgs):
            args[d.index] = args.get(d.index, "") + d.arguments
    return [(names[i], json.loads(args.get(i, "") or "{}")) for i in sorted(names)]


NATIVE = ["openai", "anthropic", "gemini", "ollama"]


@pytest.mark.parametrize("kind", NATIVE)
async def test_streamed_text_equals_the_whole_reply(
    kind: str, upstreams: dict[str, tuple[Fake, str]]
) -> None:
    fake = upstreams[kind][0]
    fake.reply = Reply(text="It is sunny in Paris today.", input_tokens=21, output_tokens=8)
    model = build(kind, upstreams)
    deltas, final = await streamed(model, ask())
    whole = await model.request(ask())
    same(final, whole)
    assert final.content == "It is sunny in Paris today."
    assert text_of(deltas) == final.content
    assert len([d for d in deltas if isinstance(d, TextDelta)]) > 1
    assert final.usage.input_tokens == 21
    assert isinstance(deltas[-1], FinishDelta | UsageDelta)
    assert not fake.problems


@pytest.mark.parametrize("kind", NATIVE)
async def test_streamed_calls_equal_the_whole_reply(
    kind: str, upstreams: dict[str, tuple[Fake, str]]
) -> None:
    fake = upstreams[kind][0]
    fake.reply = Reply(
        calls=[("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Lima"})]
    )
    model = build(kind, upstreams)
    deltas, final = await streamed(model, ask())
    same(final, await model.request(ask()))
    assert [(c.name, c.arguments) for c in final.tool_calls] == [
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "Lima"}),
    ]
    assert calls_in(deltas) == [(c.name, c.arguments) for c in final.tool_calls]
    assert [d.id for d in deltas if isinstance(d, ToolCallStart)] == [
        c.id for c in final.tool_calls
    ]
    assert sorted(d.index for d in deltas if isinstance(d, ToolCallEnd)) == [0, 1]
    assert final.finish_reason == "tool_calls"
    assert not fake.problems


@pytest.mark.parametrize("kind", NATIVE)
@pytest.mark.parametrize("cut", ["end_after", "break_after"])
async def test_a_cut_stream_is_an_error_not_a_stop(
    kind: str, cut: str, upstreams: dict[str, tuple[Fake, str]]
) -> None:
    fake = upstreams[kind][0]
    fake.reply = Reply(text="This answer is going to be cut in the middle.")
    setattr(fake, cut, 3)
    model = build(kind, upstreams)
    with pytest.raises(ModelIncompleteStreamError, match="before its final event"):
        await streamed(model, ask())


def responses_script() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A Responses API stream (text, then a call) and the whole reply it ends with, as
    OpenAI sends them."""
    events = [
        {
            "type": "response.created",
            "response": {"id": "r", "model": "gpt-4.1", "status": "in_progress"},
        },
        {
            "type": "response.output_text.delta",
            "item_id": "m",
            "output_index": 0,
            "delta": "Checking",
        },
        {
            "type": "response.output_item.added",
            "output_index": 1,
            "item": {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_1",
                "name": "get_weather",
                "arguments": "",
            },
        },
        {
            "type": "response.function_call_arguments.delta",
            "item_id": "fc_1",
            "output_index": 1,
            "delta": '{"city": ',
        },
        {
            "type": "response.function_call_arguments.delta",
            "item_id": "fc_1",
            "output_index": 1,
            "delta": '"Paris"}',
        },
        {
            "type": "response.function_call_arguments.done",
            "item_id": "fc_1",
            "output_index": 1,
            "arguments": '{"city": "Paris"}',
        },
    ]
    final_object = {
        "id": "r",
        "object": "response",
        "model": "gpt-4.1",
        "status": "completed",
        "output": [
            {
                "type": "message",
                "id": "m",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": "Checking", "annotations": []}],
            },
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_1",
                "name": "get_weather",
                "arguments": '{"city": "Paris"}',
                "status": "completed",
            },
        ],
        "usage": {"input_tokens": 9, "output_tokens": 4, "total_tokens": 13},
    }
    events.append({"type": "response.completed", "response": final_object})
    return events, final_object


def responses_sse(events: list[dict[str, Any]]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


async def test_responses_stream_through_the_sdk() -> None:
    events, final_object = responses_script()

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        if body.get("stream"):
            data = responses_sse(events)
            return httpx.Response(200, text=data, headers={"content-type": "text/event-stream"})
        return httpx.Response(200, json=final_object)

    from openai import AsyncOpenAI

    client = AsyncOpenAI(
        api_key="k", http_client=httpx.AsyncClient(transport=httpx.MockTransport(handler))
    )
    model = OpenAIResponsesModel("gpt-4.1", client=client, mode="native")
    try:
        deltas, final = await streamed(model, ask())
        whole = await model.request(ask())
    finally:
        await client.close()
    assert (final.content, final.finish_reason, final.usage) == (
        whole.content,
        whole.finish_reason,
        whole.usage,
    )
    assert [(c.id, c.name, c.arguments) for c in final.tool_calls] == [
        (c.id, c.name, c.arguments) for c in whole.tool_calls
    ]
    assert ToolCallStart(0, "call_1", "get_weather") in deltas
    assert text_of(deltas) == "Checking"


async def test_responses_over_http_whole_and_streamed(
    fake_upstream: Callable[[list[Any]], Any],
) -> None:
    """``openai-responses:`` models speak HTTP with no SDK: the same reply whole and
    streamed (the stream read from a real event stream over loopback)."""
    events, final_object = responses_script()
    stream = (200, responses_sse(events).encode(), {"content-type": "text/event-stream"})
    upstream = fake_upstream([stream, (200, final_object)])
    model = resolve_model("openai-responses:gpt-4.1", base_url=f"{upstream.url}/v1", api_key="k")
    assert isinstance(model, ProviderModel)
    assert isinstance(model.transport, OpenAIResponsesHttpTransport)
    try:
        deltas, final = await streamed(model, ask())
        whole = await model.request(ask())
    finally:
        await model.aclose()
    assert upstream.paths == ["/v1/responses"] * 2
    assert [b.get("stream") for b in upstream.bodies] == [True, None]
    assert upstream.headers[0]["authorization"] == "Bearer k"
    assert "input" in upstream.bodies[1] and "messages" not in upstream.bodies[1]
    assert (final.content, final.finish_reason, final.usage) == (
        whole.content,
        whole.finish_reason,
        whole.usage,
    )
    assert (
        [(c.id, c.name, c.arguments) for c in final.tool_calls]
        == [("call_1", "get_weather", {"city": "Paris"})]
        == [(c.id, c.name, c.arguments) for c in whole.tool_calls]
    )
    assert ToolCallStart(0, "call_1", "get_weather") in deltas
    assert text_of(deltas) == "Checking" == whole.content


PROMPTED_REPLIES = [
    'Let me look. <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>',
    '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}]',
    '[get_weather(city="Paris")]',
]


@pytest.mark.parametrize("text", PROMPTED_REPLIES)
@pytest.mark.parametrize("text_format", ["auto", "mistral"])
async def test_prompted_streams_parse_the_same_formats_as_whole_replies(
    text: str, text_format: str, upstreams: dict[str, tuple[Fake, str]]
) -> None:
    fake = upstreams["text"][0]
    fake.reply = Reply(text=text)
    fake.chunk_size = 3
    model = build("prompted", upstreams, text_format=text_format)
    deltas, final = await streamed(model, ask())
    whole = await model.request(ask())
    same(final, whole)
    if text_format == "auto" or "get_weather(" not in text:
        assert [(c.name, c.arguments) for c in final.tool_calls] == [
            ("get_weather", {"city": "Paris"})
        ]
        assert "tool_call" not in text_of(deltas) and "TOOL_CALLS" not in text_of(deltas)
        assert "{" not in text_of(deltas)
        assert calls_in(deltas) == [("get_weather", {"city": "Paris"})]
        assert [d.id for d in deltas if isinstance(d, ToolCallStart)] == [
            c.id for c in final.tool_calls
        ]
    assert not fake.problems


async def test_prompted_tool_choice_none_returns_no_calls(
    upstreams: dict[str, tuple[Fake, str]],
) -> None:
    fake = upstreams["text"][0]
    fake.reply = Reply(text=PROMPTED_REPLIES[0])
    model = build("prompted", upstreams)
    deltas, final = await streamed(model, ask(tool_choice="none"))
    whole = await model.request(ask(tool_choice="none"))
    assert final.tool_calls == [] and whole.tool_calls == []
    assert not [d for d in deltas if isinstance(d, ToolCallStart)]
    assert final.finish_reason == "stop"
    assert final.content == whole.content == PROMPTED_REPLIES[0]


async def test_structured_stream_equals_the_whole_reply(
    upstreams: dict[str, tuple[Fake, str]],
) -> None:
    fake = upstreams["openai"][0]
    action = {"action": {"tool": "get_weather", "arguments": {"city": "Paris"}, "scratchpad": None}}
    fake.reply = Reply(text=json.dumps(action))
    model = build("openai", upstreams, mode="structured")
    deltas, final = await streamed(model, ask())
    same(final, await model.request(ask()))
    assert calls_in(deltas) == [("get_weather", {"city": "Paris"})]
    assert text_of(deltas) == ""


async def test_auto_model_falls_back_to_prompted_when_streaming(
    upstreams: dict[str, tuple[Fake, str]],
) -> None:
    fake, url = upstreams["text"]
    fake.reply = Reply(text=PROMPTED_REPLIES[1])
    model = OpenAIChatModel(
        "mystery-model", base_url=f"{url}/v1", api_key=UPSTREAM_KEY, mode="auto"
    )
    BUILT.append(model)
    _, final = await streamed(model, ask())
    assert [(c.name, c.arguments) for c in final.tool_calls] == [("get_weather", {"city": "Paris"})]
    assert "tools" in fake.requests[0] and "tools" not in fake.requests[-1]
    assert model.learned_mode is ToolCallingMode.VALIDATED
    same(final, await model.request(ask()))


async def test_closing_a_stream_early_cancels_the_upstream(
    upstreams: dict[str, tuple[Fake, str]],
) -> None:
    fake = upstreams["openai"][0]
    fake.reply = Reply(text="word " * 400)
    fake.chunk_size = 1
    fake.chunk_delay = 0.01  # a slow upstream, still sending when the stream is closed
    model = build("openai", upstreams)
    stream = model.stream(ask())
    assert isinstance(stream, AsyncIterator)
    first = await anext(stream)
    assert isinstance(first, ModelDelta.__args__)  # type: ignore[attr-defined]
    await stream.aclose()  # type: ignore[attr-defined]
    assert fake.cancelled.wait(5)


async def test_a_malformed_stream_event_is_a_typed_error() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        data = 'data: {"choices": [{"delta": "not an object"}]}\n\ndata: [DONE]\n\n'
        return httpx.Response(200, text=data, headers={"content-type": "text/event-stream"})

    from openai import AsyncOpenAI

    client = AsyncOpenAI(
        api_key="k", http_client=httpx.AsyncClient(transport=httpx.MockTransport(handler))
    )
    model = OpenAIChatModel("gpt-4o", client=client)
    try:
        with pytest.raises(ModelResponseError, match="malformed stream event"):
            await streamed(model, ask())
    finally:
        await client.close()


def _text_chunk(text: str, finish: str | None = None) -> str:
    chunk = {
        "id": "c",
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}],
    }
    return f"data: {json.dumps(chunk)}\n\n"


@pytest.fixture
def raw_upstream() -> Iterator[tuple[RawFake, str]]:
    fake = RawFake()
    fake.content_type = "text/event-stream"
    server = BackgroundServer(fake.app()).start()
    try:
        yield fake, server.url
    finally:
        server.stop()


async def test_the_events_of_one_read_come_as_one_batch(
    raw_upstream: tuple[RawFake, str],
) -> None:
    fake, url = raw_upstream
    words = [f"w{i} " for i in range(12)]
    fake.body = ("".join(_text_chunk(w) for w in words) + _text_chunk("", "stop")).encode()
    model = OpenAIChatModel("m", base_url=f"{url}/v1", api_key="k")
    BUILT.append(model)
    batches = [batch async for batch in model.stream_batches(ask())]
    assert all(batches), "no batch is empty"
    texts = [d.text for batch in batches for d in batch if isinstance(d, TextDelta)]
    assert "".join(texts) == "".join(words)
    assert isinstance(batches[-1][-1], ModelResponse)
    # The whole body is one write of the upstream: its 13 events are not 13 steps.
    assert len(batches) <= 3
    _, final = await streamed(model, ask())
    assert final.content == "".join(words)


async def test_deltas_before_a_malformed_event_of_the_same_read_still_arrive(
    raw_upstream: tuple[RawFake, str],
) -> None:
    fake, url = raw_upstream
    fake.body = (_text_chunk("Hel") + _text_chunk("lo") + "data: [1, 2]\n\n").encode()
    model = OpenAIChatModel("m", base_url=f"{url}/v1", api_key="k")
    BUILT.append(model)
    seen: list[str] = []
    with pytest.raises(ModelResponseError, match="malformed stream event"):
        async for item in model.stream(ask()):
            if isinstance(item, TextDelta):
                seen.append(item.text)
    assert seen == ["Hel", "lo"]
    fake.body = (_text_chunk("Hel") + 'data: {"choices": [{"delta": 3}]}\n\n').encode()
    seen.clear()
    with pytest.raises(ModelResponseError, match="malformed stream event"):
        async for item in model.stream(ask()):
            if isinstance(item, TextDelta):
                seen.append(item.text)
    assert seen == ["Hel"]


async def test_prompted_text_before_a_malformed_event_of_the_same_read_still_arrives(
    raw_upstream: tuple[RawFake, str],
) -> None:
    """A prompted reply's text is parsed per read; a malformed event still lets the
    text before it through, and a call written in text before it is not lost."""
    fake, url = raw_upstream
    model = OpenAIChatModel("m", base_url=f"{url}/v1", api_key="k", mode="validated")
    BUILT.append(model)
    bad = 'data: {"choices": [{"delta": 3}]}\n\n'  # refused by the decoder, mid-batch
    fake.body = (_text_chunk("Hel") + _text_chunk("lo there") + bad).encode()
    seen: list[str] = []
    with pytest.raises(ModelResponseError, match="malformed stream event"):
        async for item in model.stream(ask()):
            if isinstance(item, TextDelta):
                seen.append(item.text)
    assert "".join(seen) == "Hello there"
    call = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
    fake.body = (_text_chunk("Sure. ") + _text_chunk(call) + bad).encode()
    seen.clear()
    started: list[str] = []
    with pytest.raises(ModelResponseError, match="malformed stream event"):
        async for item in model.stream(ask()):
            if isinstance(item, TextDelta):
                seen.append(item.text)
            elif isinstance(item, ToolCallStart):
                started.append(item.name)
    assert "".join(seen).strip() == "Sure."
    assert started == ["get_weather"]


async def test_a_prompted_reply_read_at_once_is_parsed_as_when_it_trickles(
    upstreams: dict[str, tuple[Fake, str]],
) -> None:
    """The same reply, its events read together or one read each (the parser is fed
    the text of one read at once): the same text, calls and reply."""
    fake = upstreams["text"][0]
    fake.reply = Reply(text=PROMPTED_REPLIES[0])
    fake.chunk_size = 3
    model = build("prompted", upstreams)
    results = []
    for delay in (0.0, 0.002):
        fake.chunk_delay = delay
        batches = [batch async for batch in model.stream_batches(ask())]
        deltas = [d for batch in batches[:-1] for d in batch]
        *tail, final = batches[-1]
        deltas += tail
        results.append((text_of(deltas), calls_in(deltas), final.content))
    assert results[0] == results[1]
    assert results[0][1] == [("get_weather", {"city": "Paris"})]
    whole = await model.request(ask())
    assert results[0][2] == whole.content and whole.tool_calls[0].name == "get_weather"
