"""A model without a tools API, driven by prompt-based tool calling (VALIDATED mode).

Offline (default), a fake OpenAI-compatible server on loopback plays a text-only
model: it writes a malformed Hermes-style call first, gets the validation error back,
then calls correctly in the pythonic notation. Against a real local model:

    ollama pull llama3.2
    python examples/prompted_local_model.py --model ollama:llama3.2

or any OpenAI-compatible server (vLLM, llama.cpp, LM Studio):

    python examples/prompted_local_model.py --model my-model --base-url http://127.0.0.1:8000/v1
"""

from __future__ import annotations

import argparse
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import anyio

from good_agent import Agent, AgentEvents, EventContext, resolve_model, tool

SCRIPT = [
    '<tool_call>{"name": "convert", "arguments": {"amount": "ten", "currency": "EUR"}}</tool_call>',
    '[convert(amount=10, currency="EUR")]',
    "10 USD is 9.20 EUR.",
]


@tool
def convert(amount: float, currency: str) -> str:
    """Convert an amount of US dollars to another currency.

    Args:
        amount: Dollars to convert.
        currency: ISO code of the target currency.
    """
    return f"{amount * 0.92:.2f} {currency}"


@contextmanager
def text_only_server() -> Iterator[str]:
    """An OpenAI-compatible server whose model only writes text."""
    replies = list(SCRIPT)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            assert "tools" not in body, "a prompted request never uses the tools API"
            message = {"role": "assistant", "content": replies.pop(0)}
            data = json.dumps(
                {
                    "id": "x",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body["model"],
                    "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                }
            ).encode()
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
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def show(ctx: EventContext) -> None:
    """Print each tool result as the model will read it."""
    call, response = ctx.payload.call, ctx.payload.response
    shown = call.raw_arguments if call.arguments_error else json.dumps(call.arguments)
    print(f"  {call.name}({shown}) -> {response.content_text()}")


# --8<-- [start:run]
async def run(model_name: str, base_url: str | None, mode: str) -> None:
    """Ask a currency question through prompt-based tool calling."""
    model = resolve_model(model_name, base_url=base_url, mode=mode)
    agent = Agent("You convert currencies.", model=model, tools=[convert])
    agent.events.on(AgentEvents.TOOL_CALL_AFTER, show)
    async with agent:
        answer = await agent.call("How much is 10 USD in EUR?")
    print(f"answer: {answer.content}")


# --8<-- [end:run]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="prompt-based tool calling")
    parser.add_argument("--model", help="e.g. ollama:llama3.2 (default: a fake local server)")
    parser.add_argument("--base-url", help="an OpenAI-compatible endpoint")
    parser.add_argument("--mode", default="validated", help="validated or parsed")
    args = parser.parse_args()
    if args.model:
        anyio.run(run, args.model, args.base_url, args.mode)
    else:
        with text_only_server() as url:
            anyio.run(run, "text-only-model", url, args.mode)
