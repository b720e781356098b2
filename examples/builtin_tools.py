"""Built-in tools: web search run by the provider, its parts and citations, offline.

An agent on Claude gets ``builtin_tools=[WebSearchTool(...)]``: the request carries
Anthropic's ``web_search_20250305`` tool, the provider searches, and the reply's
``server_tool_use`` and ``web_search_tool_result`` blocks come back as the message's
``builtin_calls`` and ``builtin_results`` (the agent runs nothing), with the sources
in ``result.citations``. The next turn sends those blocks back to Claude. A tool the
model's API has no form for is refused before any request.

A small loopback server plays Claude here, so the script runs without a key or network.

    python examples/builtin_tools.py
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from good_agent import (
    Agent,
    CodeExecutionTool,
    FileSearchTool,
    ModelCapabilityError,
    WebSearchTool,
)
from good_agent.models import AnthropicModel

REPLY = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-6",
    "content": [
        {
            "type": "server_tool_use",
            "id": "srvtoolu_1",
            "name": "web_search",
            "input": {"query": "Paris news"},
        },
        {
            "type": "web_search_tool_result",
            "tool_use_id": "srvtoolu_1",
            "content": [
                {
                    "type": "web_search_result",
                    "url": "https://example.org/paris",
                    "title": "Paris today",
                    "encrypted_content": "enc-1",
                }
            ],
        },
        {
            "type": "text",
            "text": "A new footbridge opened over the Seine.",
            "citations": [
                {
                    "type": "web_search_result_location",
                    "url": "https://example.org/paris",
                    "title": "Paris today",
                    "cited_text": "The footbridge opened on Monday.",
                    "encrypted_index": "ei-1",
                }
            ],
        },
    ],
    "stop_reason": "end_turn",
    "usage": {"input_tokens": 40, "output_tokens": 12},
}
received: list[dict[str, Any]] = []


class FakeClaude(BaseHTTPRequestHandler):
    """Answers every ``POST /v1/messages`` with the reply above."""

    def do_POST(self) -> None:
        received.append(json.loads(self.rfile.read(int(self.headers["content-length"]))))
        data = json.dumps(REPLY).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), FakeClaude)
threading.Thread(target=server.serve_forever, daemon=True).start()
url = f"http://127.0.0.1:{server.server_address[1]}"

model = AnthropicModel("claude-sonnet-4-6", base_url=url, api_key="sk-ant-example")
agent = Agent(model=model, builtin_tools=[WebSearchTool(max_uses=3)])

result = agent.run_sync("What is new in Paris?")
print("answer:", result.output)
print("tools sent:", json.dumps(received[0]["tools"]))
for call in result.message.builtin_calls:
    print(f"provider ran: {call.tool_name} {json.dumps(call.arguments)}")
for citation in result.citations:
    print(f"cited: {citation.title} <{citation.url}>: {citation.cited_text!r}")

agent.run_sync("And yesterday?")
sent_back = [block["type"] for block in received[1]["messages"][1]["content"]]
print("sent back with the next turn:", sent_back)

# Per run, more built-in tools can be added; a tool the API has no form for is refused.
agent.run_sync("Compute 6 * 7.", builtin_tools=[CodeExecutionTool()])
print("third request's tools:", [tool["type"] for tool in received[2]["tools"]])
try:
    agent.run_sync("Find my notes.", builtin_tools=[FileSearchTool(file_store_ids=["vs_1"])])
except ModelCapabilityError as refused:
    print("refused before sending:", refused)
print("requests sent:", len(received))
server.shutdown()
