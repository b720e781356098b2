"""The OpenAI-compatible bridge end to end, offline.

A fake local model that can only write text (it answers with a Hermes
``<tool_call>`` block) runs on a loopback port; the bridge serves it in
``validated`` mode; the real ``openai`` client asks a question with a tool and
gets a proper, streamed ``tool_calls`` reply back.

    python examples/bridge_server.py
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import anyio
from openai import AsyncOpenAI
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

from good_agent.server import create_app, parse_config
from good_agent.server.background import BackgroundServer

REPLY = 'Checking. <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'


async def text_only_model(request: Request) -> StreamingResponse:
    body = await request.json()
    assert "tools" not in body, "the bridge describes tools in the prompt instead"

    async def chunks() -> AsyncIterator[bytes]:
        for i in range(0, len(REPLY), 5):
            delta = {"content": REPLY[i : i + 5]}
            chunk = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta}]}
            yield f"data: {json.dumps(chunk)}\n\n".encode()
        yield b"data: [DONE]\n\n"

    return StreamingResponse(chunks(), media_type="text/event-stream")


WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}


async def main() -> None:
    upstream = Starlette(routes=[Route("/v1/chat/completions", text_only_model, methods=["POST"])])
    with BackgroundServer(upstream) as fake:
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
                ]
            }
        )
        with BackgroundServer(create_app(config)) as bridge:
            # --8<-- [start:client]
            async with AsyncOpenAI(base_url=f"{bridge.url}/v1", api_key="unused") as client:
                stream = await client.chat.completions.create(
                    model="local",
                    messages=[{"role": "user", "content": "Weather in Paris?"}],
                    tools=[WEATHER],
                    stream=True,
                )
                # --8<-- [end:client]
                content, calls, finish = "", {}, None
                async for chunk in stream:
                    for choice in chunk.choices:
                        content += choice.delta.content or ""
                        for call in choice.delta.tool_calls or []:
                            slot = calls.setdefault(call.index, ["", ""])
                            slot[0] = slot[0] or (call.function.name or "")
                            slot[1] += call.function.arguments or ""
                        finish = choice.finish_reason or finish
    print(f"content: {content!r}")
    for index, (name, arguments) in sorted(calls.items()):
        print(f"tool call {index}: {name}({json.loads(arguments)})")
    print(f"finish_reason: {finish}")


if __name__ == "__main__":
    anyio.run(main)
