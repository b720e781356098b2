"""Extract a typed object (a pydantic model) from a text-only model, prompt-based.

Offline (default), a fake OpenAI-compatible server on loopback plays a model without
a tools API: it calls a tool in text, then answers with JSON whose ``total`` is not
a number, gets the validation errors back, and answers again correctly. Against a
real local model:

    python examples/typed_extraction.py --model ollama:llama3.2

or any OpenAI-compatible server (vLLM, llama.cpp, LM Studio):

    python examples/typed_extraction.py --model my-model --base-url http://127.0.0.1:8000/v1
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
from pydantic import BaseModel, Field

from good_agent import Agent, resolve_model, tool

EMAIL = """Hi, please find attached invoice INV-2291 for the consulting work
(3 days at 450 EUR). Our VAT number is FR40303265045. Regards, Acme SARL"""

SCRIPT = [
    '<tool_call>{"name": "lookup_company", "arguments": {"vat_id": "FR40303265045"}}</tool_call>',
    '{"number": "INV-2291", "company": "Acme SARL (Lyon)", "total": "1350 EUR", "currency": "EUR"}',
    '```json\n{"number": "INV-2291", "company": "Acme SARL (Lyon)", "total": 1350, '
    '"currency": "EUR", "lines": [{"description": "consulting", "quantity": 3, '
    '"unit_price": 450}]}\n```',
]


class Line(BaseModel):
    """One invoice line."""

    description: str
    quantity: int
    unit_price: float


class Invoice(BaseModel):
    """An invoice extracted from an email."""

    number: str
    company: str
    total: float
    currency: str = Field(pattern="^[A-Z]{3}$")
    lines: list[Line] = []


@tool
def lookup_company(vat_id: str) -> str:
    """The registered name and city of a company, by VAT number.

    Args:
        vat_id: The VAT number, country prefix included.
    """
    return "Acme SARL, Lyon" if vat_id == "FR40303265045" else "unknown"


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
                    "usage": {"prompt_tokens": 300, "completion_tokens": 40, "total_tokens": 340},
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


# --8<-- [start:run]
async def run(model_name: str, base_url: str | None) -> None:
    """Extract the invoice in the email as an ``Invoice``."""
    model = resolve_model(model_name, base_url=base_url, mode="validated")
    agent = Agent(
        "You extract invoices from emails. Look companies up by VAT number.",
        model=model,
        tools=[lookup_company],
        output_retries=2,
    )
    result = await agent.run(EMAIL, output_type=Invoice)
    invoice = result.output  # an Invoice, validated
    print(f"invoice {invoice.number} from {invoice.company}: {invoice.total} {invoice.currency}")
    for line in invoice.lines:
        print(f"  {line.quantity} x {line.description} at {line.unit_price}")
    for message in result.new_messages:
        if message.role == "user" and message.content != EMAIL:
            print(f"  (sent back to the model: {message.content.splitlines()[1]})")
    usage = result.usage
    print(f"{usage.requests} requests, {usage.total_tokens} tokens, {usage.tool_calls} tool call")


# --8<-- [end:run]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="typed extraction, prompt-based")
    parser.add_argument("--model", help="e.g. ollama:llama3.2 (default: a fake local server)")
    parser.add_argument("--base-url", help="an OpenAI-compatible endpoint")
    args = parser.parse_args()
    if args.model:
        anyio.run(run, args.model, args.base_url)
    else:
        with text_only_server() as url:
            anyio.run(run, "text-only-model", url)
