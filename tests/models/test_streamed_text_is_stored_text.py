"""Streamed text joins to exactly the text stored, in every tool-calling mode and format.

An OpenAI-compatible server on loopback streams a reply cut at random places; the
model streams it through the transport users get. Whatever the mode (native, native
with fallback to prompting, prompted in each text format, structured), the text
deltas concatenate to the content of the final reply, whitespace included.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tool_dicts import WEATHER

from good_agent import Agent, AssistantMessage, tool
from good_agent.models import ModelRequest, ModelResponse, OpenAIChatModel
from good_agent.providers.streaming import TextDelta
from good_agent.providers.text.registry import BUILTIN_FORMATS
from good_agent.types.messages import UserMessage

pytestmark = pytest.mark.anyio


class ChunkedUpstream:
    """Chat Completions on loopback: each request streams the next list of text pieces."""

    def __init__(self) -> None:
        self.replies: list[tuple[list[str], list[tuple[str, dict[str, Any]]]]] = []
        self.bodies: list[dict[str, Any]] = []
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                upstream.bodies.append(body)
                pieces, calls = upstream.replies.pop(0)
                if body.get("stream"):
                    data = upstream.sse(pieces, calls)
                    kind = "text/event-stream"
                else:
                    data = json.dumps(upstream.whole("".join(pieces), calls)).encode()
                    kind = "application/json"
                self.send_response(200)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @staticmethod
    def sse(pieces: list[str], calls: list[tuple[str, dict[str, Any]]]) -> bytes:
        def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
            event = {
                "id": "c",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": "m",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            return f"data: {json.dumps(event)}\n\n"

        out = [chunk({"role": "assistant", "content": ""})]
        out += [chunk({"content": piece}) for piece in pieces]
        for index, (name, args) in enumerate(calls):
            head = {"index": index, "id": f"call_{index}", "type": "function"}
            function = {"name": name, "arguments": json.dumps(args)}
            out.append(chunk({"tool_calls": [{**head, "function": function}]}))
        out += [chunk({}, "tool_calls" if calls else "stop"), "data: [DONE]\n\n"]
        return "".join(out).encode()

    @staticmethod
    def whole(text: str, calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if calls:
            message["tool_calls"] = [
                {
                    "id": f"call_{i}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(args)},
                }
                for i, (name, args) in enumerate(calls)
            ]
        return {
            "id": "c",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def upstream() -> Iterator[ChunkedUpstream]:
    served = ChunkedUpstream()
    yield served
    served.close()


def split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({min(c, len(text)) for c in cuts} | {0, len(text)})
    return [text[a:b] for a, b in itertools.pairwise(points) if b > a]


CALL_TEXTS = [
    "",
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>',
    '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}]',
    '{"name": "get_weather", "arguments": {"city": "Paris"}}',
    '[get_weather(city="Paris")]',
]
WORDS = st.text(alphabet=" \n\t\r.aZ<>[]{}\"'é", max_size=16)

# (mode, text_format) pairs: every mode, every built-in text format for prompting.
MODES = [("native", None), ("auto", None), ("structured", None)] + [
    (mode, fmt) for mode in ("validated", "parsed") for fmt in BUILTIN_FORMATS
]


def model_for(mode: str, text_format: str | None, url: str) -> OpenAIChatModel:
    options: dict[str, Any] = {"mode": mode}
    if text_format is not None:
        options["text_format"] = text_format
    return OpenAIChatModel("house-model", base_url=url, api_key="k", **options)


async def streamed(model: OpenAIChatModel) -> tuple[str, ModelResponse]:
    request = ModelRequest([UserMessage(content="Weather?")], [WEATHER])
    text: list[str] = []
    final: ModelResponse | None = None
    async for item in model.stream(request):
        if isinstance(item, ModelResponse):
            final = item
        elif isinstance(item, TextDelta):
            text.append(item.text)
    assert final is not None
    return "".join(text), final


@pytest.mark.parametrize(("mode", "text_format"), MODES)
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    before=WORDS,
    call=st.sampled_from(CALL_TEXTS),
    after=WORDS,
    cuts=st.lists(st.integers(0, 200), max_size=12),
    native_call=st.booleans(),
)
async def test_streamed_text_joins_to_the_stored_text(
    mode: str,
    text_format: str | None,
    upstream: ChunkedUpstream,
    before: str,
    call: str,
    after: str,
    cuts: list[int],
    native_call: bool,
) -> None:
    text = before + call + after
    if mode == "structured":
        text = json.dumps({"action": {"answer": text, "scratchpad": None}})
    native = native_call and mode in ("native", "auto")
    calls = [("get_weather", {"city": "Lima"})] if native else []
    upstream.replies = [(split(text, cuts), calls)]
    model = model_for(mode, text_format, upstream.url)
    try:
        joined, final = await streamed(model)
    finally:
        await model.aclose()
    assert joined == (final.content or "")
    if mode == "native" or (mode == "auto" and not call):
        assert final.content == (before + after or None if not call else text or None)


@pytest.mark.parametrize("mode", ["native", "auto"])
async def test_native_text_keeps_its_whitespace(mode: str, upstream: ChunkedUpstream) -> None:
    """The reproduction: each turn's trailing whitespace reaches ``text_deltas()``."""

    @tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    upstream.replies = [
        (["Check", "ing. "], [("add", {"a": 2, "b": 3})]),
        (["Line one.\n", "\nLine two ", "  "], []),
    ]
    model = OpenAIChatModel("house-model", base_url=upstream.url, api_key="k", mode=mode)
    async with Agent(model=model, tools=[add]) as agent:
        async with agent.stream("2+3?") as run:
            pieces = [piece async for piece in run.text_deltas()]
        stored = [m.content for m in agent.messages if isinstance(m, AssistantMessage)]
    await model.aclose()
    assert stored == ["Checking. ", "Line one.\n\nLine two   "]
    assert "".join(pieces) == "Checking. Line one.\n\nLine two   "


async def test_a_string_model_on_a_base_url_keeps_whitespace(upstream: ChunkedUpstream) -> None:
    """A model named by string with a ``base_url`` and tools (native with fallback)."""

    @tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    upstream.replies = [
        (["Checking. "], [("add", {"a": 2, "b": 3})]),
        (["Line one.\n\nLine two   "], []),
    ]
    agent = Agent(model="my-house-model", base_url=upstream.url, api_key="k", tools=[add])
    async with agent.stream("2+3?") as run:
        pieces = [piece async for piece in run.text_deltas()]
    assert "".join(pieces) == "Checking. Line one.\n\nLine two   "
    assert run.output == "Line one.\n\nLine two   "
