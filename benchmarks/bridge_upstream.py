"""A fast fake OpenAI-compatible upstream for benchmarks/bridge.py, in its own process.

``POST /v1/chat/completions`` answers a canned reply: one tool call, whole (JSON) or
streamed (SSE, ``"stream": true`` in the body: 20 events, all in one write, when the
usage is asked for; 19 when not), with usage. A stream's usage comes as OpenAI sends it
(https://platform.openai.com/docs/api-reference/chat/create#chat-create-stream_options):
only when the request asks for it (``stream_options.include_usage``, as the bridge
does), in one more chunk before ``[DONE]``, with ``"usage": null`` on every other
chunk. Two servers give the
same bytes: ``uvicorn`` (a Starlette app on uvicorn, what a fast Python model server
looks like) and ``raw`` (plain asyncio over HTTP/1.1 keep-alive, no framework: the
floor). Run: ``python benchmarks/bridge_upstream.py PORT [uvicorn|raw] [agent]``.

With ``agent`` (raw server only) a request that carries a tool result is answered in
text (:data:`ANSWER`), so an agent run is one tool call and then an answer. A
request for the model ``fake-prompted`` (a prompted route: no ``tools`` sent) is
answered with the same call written as text, in ``<tool_call>`` tags (streamed in
20 events too).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
from typing import Any

ARGUMENTS = '{"city": "Paris"}'
TEXT = "Let me look that up for you."


def _whole() -> bytes:
    body = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1,
        "model": "fake-gpt",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": TEXT,
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": ARGUMENTS},
                        }
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30},
    }
    return json.dumps(body).encode()


USAGE = {"prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30}


def _chunk(
    delta: dict[str, Any], finish: str | None = None, usage: Any = None, *, asked: bool = False
) -> bytes:
    """One event; with ``asked`` (the usage was asked for), its ``usage`` member even
    when it is ``null``."""
    payload: dict[str, Any] = {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "fake-gpt",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]
        if delta or finish
        else [],
    }
    if asked:
        payload["usage"] = usage
    return b"data: " + json.dumps(payload).encode() + b"\n\n"


def _end(asked: bool) -> list[bytes]:
    """The events that end a stream: the usage chunk when it was asked for, ``[DONE]``."""
    usage = [_chunk({}, None, USAGE, asked=True)] if asked else []
    return [*usage, b"data: [DONE]\n\n"]


def _streamed(asked: bool) -> bytes:
    head = {
        "index": 0,
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": ""},
    }
    parts = [_chunk({"role": "assistant", "content": ""}, asked=asked)]
    pieces = len(TEXT) // 2 - 2  # 12 text chunks: 20 events with the usage and [DONE]
    cuts = [len(TEXT) * i // pieces for i in range(pieces + 1)]
    parts += [_chunk({"content": TEXT[a:b]}, asked=asked) for a, b in itertools.pairwise(cuts)]
    parts.append(_chunk({"tool_calls": [head]}, asked=asked))
    parts += [
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}, asked=asked)
        for piece in ('{"city"', ': "Pa', 'ris"}')
    ]
    parts.append(_chunk({}, "tool_calls", asked=asked))
    return b"".join(parts + _end(asked))


PROMPTED_TEXT = (
    TEXT + ' <tool_call>{"name": "get_weather", "arguments": ' + ARGUMENTS + "}</tool_call>"
)
"""What a prompted model writes: the text, then the call in tags."""


def _prompted_whole() -> bytes:
    message = {"role": "assistant", "content": PROMPTED_TEXT}
    body = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1,
        "model": "fake-prompted",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30},
    }
    return json.dumps(body).encode()


def _prompted_streamed(asked: bool) -> bytes:
    pieces = 16  # 20 events with the role, finish, usage and [DONE]
    cuts = [len(PROMPTED_TEXT) * i // pieces for i in range(pieces + 1)]
    parts = [_chunk({"role": "assistant", "content": ""}, asked=asked)]
    parts += [
        _chunk({"content": PROMPTED_TEXT[a:b]}, asked=asked) for a, b in itertools.pairwise(cuts)
    ]
    parts.append(_chunk({}, "stop", asked=asked))
    return b"".join(parts + _end(asked))


WHOLE_BODY = _whole()
STREAMED_BODIES = {asked: _streamed(asked) for asked in (False, True)}
"""The stream, by whether the usage was asked for."""
STREAMED_BODY = STREAMED_BODIES[True]
"""A stream as the bridge gets it (it asks for the usage)."""


def _response(body: bytes, content_type: bytes) -> bytes:
    return (
        b"HTTP/1.1 200 OK\r\ncontent-type: "
        + content_type
        + b"\r\ncontent-length: "
        + str(len(body)).encode()
        + b"\r\nconnection: keep-alive\r\n\r\n"
        + body
    )


ANSWER_TEXT = "It is sunny in Paris."


def _answer() -> bytes:
    message = {"role": "assistant", "content": ANSWER_TEXT}
    body = {
        "id": "chatcmpl-fake-answer",
        "object": "chat.completion",
        "created": 1,
        "model": "fake-gpt",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 40, "completion_tokens": 6, "total_tokens": 46},
    }
    return json.dumps(body).encode()


WHOLE = _response(WHOLE_BODY, b"application/json")
ANSWER = _response(_answer(), b"application/json")
STREAMED = {asked: _response(body, b"text/event-stream") for asked, body in STREAMED_BODIES.items()}
PROMPTED_WHOLE = _response(_prompted_whole(), b"application/json")
PROMPTED_STREAMED = {
    asked: _response(_prompted_streamed(asked), b"text/event-stream") for asked in (False, True)
}
_USAGE_ASKED = (b'"include_usage":true', b'"include_usage": true')
_PROMPTED_MODEL = (b'"model":"fake-prompted"', b'"model": "fake-prompted"')
MODELS = _response(
    b'{"object": "list", "data": [{"id": "fake-gpt", "object": "model"}]}', b"application/json"
)


class Upstream(asyncio.Protocol):
    """One connection: parse requests by ``content-length`` and answer canned replies."""

    answers_tool_results = False
    """Whether a request carrying a tool result is answered in text (``agent``)."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport: asyncio.Transport = transport  # type: ignore[assignment]
        self.buffer = b""

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = self.buffer[:end].lower()
            length = 0
            at = head.find(b"content-length:")
            if at >= 0:
                line_end = head.find(b"\r\n", at)
                length = int(head[at + 15 : line_end if line_end > 0 else None].strip())
            if len(self.buffer) < end + 4 + length:
                return
            body = self.buffer[end + 4 : end + 4 + length]
            self.buffer = self.buffer[end + 4 + length :]
            if head.startswith(b"get"):
                self.transport.write(MODELS)
            elif self.answers_tool_results and (
                b'"role":"tool"' in body or b'"role": "tool"' in body
            ):
                self.transport.write(ANSWER)
            elif b'"stream": true' in body or b'"stream":true' in body:
                asked = any(option in body for option in _USAGE_ASKED)
                prompted = any(name in body for name in _PROMPTED_MODEL)
                self.transport.write((PROMPTED_STREAMED if prompted else STREAMED)[asked])
            elif any(name in body for name in _PROMPTED_MODEL):
                self.transport.write(PROMPTED_WHOLE)
            else:
                self.transport.write(WHOLE)


async def main(port: int) -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(Upstream, "127.0.0.1", port, backlog=1024)
    print(f"upstream ready on {port}", flush=True)
    async with server:
        await server.serve_forever()


def run_uvicorn(port: int) -> None:
    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    async def chat(request: Request) -> Response:
        body = await request.body()
        if b'"stream": true' in body or b'"stream":true' in body:
            asked = any(option in body for option in _USAGE_ASKED)
            return Response(STREAMED_BODIES[asked], media_type="text/event-stream")
        return Response(WHOLE_BODY, media_type="application/json")

    async def models(request: Request) -> Response:
        return Response(b'{"object": "list", "data": []}', media_type="application/json")

    app = Starlette(
        routes=[
            Route("/v1/chat/completions", chat, methods=["POST"]),
            Route("/v1/models", models),
        ]
    )
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[2] == "uvicorn":
        run_uvicorn(int(sys.argv[1]))
    else:
        Upstream.answers_tool_results = sys.argv[3:4] == ["agent"]
        asyncio.run(main(int(sys.argv[1])))
