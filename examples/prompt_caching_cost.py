"""Anthropic prompt caching and a run's price, offline.

A fake Anthropic upstream on loopback answers like the Messages API: the first request
writes the marked prompt to the cache, the next one reads it back. The agent marks its
system prompt, its tools and the conversation with the ``anthropic_cache_*`` settings;
each run's usage counts the cache reads and writes, and ``usage.cost`` prices them from
the genai-prices table (``pip install "good-agent[cost]"``; ``None`` without it).

    python examples/prompt_caching_cost.py
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import anyio

from good_agent import Agent
from good_agent.models import AnthropicModel

MANUAL = "You answer questions about the manual below.\n" + "A long manual. " * 200
requests: list[dict[str, Any]] = []


def reply(number: int) -> dict[str, Any]:
    """What Anthropic answers: a cache write on the first request, a read after."""
    cached = {"cache_creation_input_tokens": 3000} if number == 0 else {}
    if number > 0:
        cached = {"cache_read_input_tokens": 3000 + 40 * (number - 1)}
    return {
        "id": f"msg_{number}",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-6",
        "content": [{"type": "text", "text": f"Answer {number + 1}."}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 25, "output_tokens": 12, **cached},
    }


class Upstream(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        data = json.dumps(reply(len(requests))).encode()
        requests.append(body)
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def fake_anthropic() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def chapter(number: int) -> str:
    """Look a chapter of the manual up."""
    return f"Chapter {number}."


async def main() -> None:
    with fake_anthropic() as url:
        model = AnthropicModel("claude-sonnet-4-6", base_url=url, api_key="sk-ant-example")
        agent = Agent(
            MANUAL,
            model=model,
            tools=[chapter],
            model_settings={
                "anthropic_cache_instructions": True,
                "anthropic_cache_tool_definitions": "1h",
                "anthropic_cache_messages": True,
            },
        )
        history: list[Any] = []
        for question in ("What is chapter 1 about?", "And chapter 2?"):
            result = await agent.run(question, message_history=history)
            history = result.all_messages()
            usage = result.usage
            cost = "unknown" if usage.cost is None else f"${usage.cost}"
            print(
                f"{question!r}: {result.output} input {usage.input_tokens} "
                f"(cache read {usage.cache_read_tokens}, written {usage.cache_write_tokens}), "
                f"output {usage.output_tokens}, cost {cost}"
            )
        await model.aclose()
    first = requests[0]
    print("system marked:", first["system"][-1]["cache_control"])
    print("tools marked:", first["tools"][-1]["cache_control"])
    print("last message marked:", requests[-1]["messages"][-1]["content"][-1]["cache_control"])


if __name__ == "__main__":
    anyio.run(main)
