"""The bridge's Responses API end to end, offline.

A fake local model that can only write text (a Hermes ``<tool_call>`` block, then an
answer) runs on a loopback port; the bridge serves it in ``validated`` mode; the real
``openai`` client asks with a function tool through ``client.responses.create``, gets a
``function_call`` item, and continues the conversation by ``previous_response_id``
with the tool's output.

    python examples/bridge_responses.py
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import anyio
from openai import AsyncOpenAI
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from good_agent.server import create_app, parse_config
from good_agent.server.background import BackgroundServer

CALL = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'


async def text_only_model(request: Request) -> JSONResponse:
    body = await request.json()
    answered = any("21C" in json.dumps(message) for message in body["messages"])
    text = "It is 21C and sunny in Paris." if answered else CALL
    choice = {"index": 0, "message": {"role": "assistant", "content": text}}
    return JSONResponse({"object": "chat.completion", "choices": [choice]})


WEATHER = {
    "type": "function",
    "name": "get_weather",
    "description": "Current weather for a city.",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}


async def main() -> None:
    upstream = Starlette(routes=[Route("/v1/chat/completions", text_only_model, methods=["POST"])])
    with tempfile.TemporaryDirectory() as directory, BackgroundServer(upstream) as fake:
        config = parse_config(
            {
                "models": [
                    {
                        "name": "local",
                        "provider": "openai",
                        "model": "tiny-local-model",
                        "base_url": f"{fake.url}/v1",
                        "mode": "validated",
                    }
                ],
                "responses": {"path": str(Path(directory) / "responses.sqlite3")},
            }
        )
        with BackgroundServer(create_app(config)) as bridge:
            # --8<-- [start:client]
            async with AsyncOpenAI(base_url=f"{bridge.url}/v1", api_key="unused") as client:
                first = await client.responses.create(
                    model="local", input="Weather in Paris?", tools=[WEATHER]
                )
                call = next(item for item in first.output if item.type == "function_call")
                print(f"function_call: {call.name}({json.loads(call.arguments)})")
                second = await client.responses.create(
                    model="local",
                    previous_response_id=first.id,
                    input=[
                        {"type": "function_call_output", "call_id": call.call_id, "output": "21C"}
                    ],
                    tools=[WEATHER],
                )
                print(f"answer: {second.output_text!r}")
                stored = await client.responses.retrieve(first.id)
                print(f"stored: {stored.id} ({len(stored.output)} output item)")
            # --8<-- [end:client]


if __name__ == "__main__":
    anyio.run(main)
