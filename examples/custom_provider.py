"""Adding a provider in three steps: a codec, a transport and a profile rule.

"Toy" is an in-house model API with its own JSON wire format. This script serves a
fake Toy upstream on loopback, registers the provider, and runs an agent that makes
two tool calls through it. Run offline: ``python examples/custom_provider.py``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import anyio
import httpx2

from good_agent import Agent, tool
from good_agent.messages import UserMessage
from good_agent.models import ModelRequest, register_provider, resolve_model
from good_agent.providers import ChatRequest, ModelResponse, Usage
from good_agent.providers.arguments import parsed_call
from good_agent.providers.codecs import Codec
from good_agent.providers.tool_names import PERMISSIVE_NAMES, ToolNameMap, tool_function


# --8<-- [start:codec]
# Step 1, the codec: OpenAI-shaped messages and tools to Toy's body, and back.
def toy_tool_names(request: ChatRequest) -> ToolNameMap:
    """Toy accepts any tool name as it is."""
    return ToolNameMap(PERMISSIVE_NAMES, [tool_function(t)["name"] for t in request.tools])


def toy_encode(
    model: str, request: ChatRequest, names: ToolNameMap | None = None
) -> dict[str, Any]:
    """Build Toy's request body."""
    turns = []
    for message in request.messages:
        turn: dict[str, Any] = {"who": message["role"], "text": message.get("content") or ""}
        if message.get("tool_calls"):
            turn["invoke"] = [
                {
                    "ref": c["id"],
                    "fn": c["function"]["name"],
                    "args": json.loads(c["function"]["arguments"]),
                }
                for c in message["tool_calls"]
            ]
        if message["role"] == "tool":
            turn["ref"] = message["tool_call_id"]
        turns.append(turn)
    functions = [
        {"id": tool_function(t)["name"], "schema": tool_function(t).get("parameters", {})}
        for t in request.tools
    ]
    return {"model": model, "turns": turns, "functions": functions}


def toy_decode(raw: dict[str, Any], names: ToolNameMap | None = None) -> ModelResponse:
    """Read Toy's reply into the model's reply."""
    output = raw["output"]
    calls = [parsed_call(c["ref"], c["fn"], c["args"]) for c in output.get("invoke", [])]
    return ModelResponse(
        content=output.get("say"),
        tool_calls=calls,
        finish_reason="tool_calls" if calls else "stop",
        usage=Usage(raw["tokens"]["in"], raw["tokens"]["out"]),
    )


TOY_CODEC = Codec(
    name="toy", tool_names=toy_tool_names, encode_request=toy_encode, decode_response=toy_decode
)
# --8<-- [end:codec]


# --8<-- [start:transport]
# Step 2, the transport: how a body reaches Toy, whole (send) or streamed (stream).
class ToyTransport:
    """POSTs bodies to ``{base_url}/generate``.

    Toy's API cannot stream, so ``stream`` yields the one whole reply: the codec has
    no ``stream_decoder``, so the model core decodes it whole and reports it as deltas.
    A streaming API would yield each event (an SSE payload or NDJSON line) as a dict
    and give its codec a ``stream_decoder``.
    """

    provider = "toy"

    def __init__(self, *, model: str, base_url: str | None, api_key: str | None) -> None:
        self.base_url = base_url or "http://127.0.0.1:8080"
        self.headers = {"x-toy-key": api_key} if api_key else {}

    async def send(self, body: dict[str, Any]) -> dict[str, Any]:
        """Send one request and return the decoded JSON reply."""
        async with httpx2.AsyncClient(timeout=30) as client:
            reply = await client.post(f"{self.base_url}/generate", json=body, headers=self.headers)
        reply.raise_for_status()
        result: dict[str, Any] = reply.json()
        return result

    async def stream(self, body: dict[str, Any]) -> AsyncIterator[dict[str, Any]]:
        """Toy does not stream: the whole reply is the one event."""
        yield await self.send(body)


# --8<-- [end:transport]


# --8<-- [start:register]
# Step 3, register: the codec, the transport and which model names Toy serves.
register_provider(
    "toy",
    codec=TOY_CODEC,
    transport=ToyTransport,
    profiles=[("toy-*", {"mode": "native", "supports_parallel": True})],
)
# --8<-- [end:register]


@contextmanager
def fake_toy_upstream() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A Toy server on loopback: calls ``add`` twice in parallel, then answers."""
    bodies: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            bodies.append(body)
            if body["turns"][-1]["who"] == "tool":
                results = [t["text"] for t in body["turns"] if t["who"] == "tool"]
                output: dict[str, Any] = {"say": f"The sums are {' and '.join(results)}."}
            else:
                output = {
                    "invoke": [
                        {"ref": "t1", "fn": "add", "args": {"a": 1, "b": 2}},
                        {"ref": "t2", "fn": "add", "args": {"a": 3, "b": 4}},
                    ]
                }
            data = json.dumps({"output": output, "tokens": {"in": 10, "out": 5}}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", bodies
    finally:
        server.shutdown()
        server.server_close()


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


async def run(base_url: str) -> str:
    """Ask the Toy model a question that needs two tool calls."""
    async with Agent("Use the tools.", model="toy:toy-1", base_url=base_url, tools=[add]) as agent:
        answer = await agent.call("What are 1+2 and 3+4?")
    return answer.content or ""


async def stream_once(base_url: str) -> list[str]:
    """Stream one reply from the model core: the kinds of delta, then the reply."""
    model = resolve_model("toy:toy-1", base_url=base_url)
    request = ModelRequest([UserMessage(content="Add 1 and 2.")], [add.signature])
    return [type(item).__name__ async for item in model.stream(request)]


if __name__ == "__main__":
    with fake_toy_upstream() as (url, bodies):
        print(anyio.run(run, url))
        print(" ".join(anyio.run(stream_once, url)))
        print(f"Toy received {len(bodies)} requests; functions: {bodies[0]['functions'][0]['id']}")
