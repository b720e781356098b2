"""The bridge's Gemini endpoint and ``/v1/embeddings``, end to end, offline.

A fake local model that can only write text (a Hermes ``<tool_call>`` block, then
an answer) and a fake OpenAI-compatible embeddings server run on loopback ports.
The google-genai SDK, with automatic function calling on, asks the bridge; the
bridge turns the text call into a real ``functionCall``; the SDK runs the Python
function and sends its ``functionResponse`` back. Then the openai SDK embeds two
texts through the same bridge.

    python examples/bridge_gemini_and_embeddings.py

Needs the google and server extras: pip install ".[google,server]"
"""

from __future__ import annotations

from typing import Any

from openai import OpenAI

try:
    from google import genai
    from google.genai import types
except ModuleNotFoundError as exc:  # not a bare traceback: name the extra
    raise SystemExit(
        f"this example needs the 'google' extra ({exc.name} is not installed): "
        "pip install '.[google,server]'"
    ) from None
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from good_agent.server import create_app, parse_config
from good_agent.server.background import BackgroundServer

CALL = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'


async def text_only_model(request: Request) -> JSONResponse:
    body = await request.json()
    answered = "<tool_response>" in str(body["messages"][-1]["content"])
    text = "It is sunny in Paris." if answered else CALL
    message = {"role": "assistant", "content": text}
    return JSONResponse({"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})


async def embedding_model(request: Request) -> JSONResponse:
    body = await request.json()
    data = [
        {"object": "embedding", "index": i, "embedding": [float(len(text)), 0.5]}
        for i, text in enumerate(body["input"])
    ]
    return JSONResponse({"object": "list", "data": data, "usage": {"prompt_tokens": 6}})


def get_weather(city: str) -> str:
    """Current weather for a city."""
    return f"sunny in {city}"


def main() -> None:
    upstream = Starlette(
        routes=[
            Route("/v1/chat/completions", text_only_model, methods=["POST"]),
            Route("/v1/embeddings", embedding_model, methods=["POST"]),
        ]
    )
    with BackgroundServer(upstream) as fake:
        models: list[dict[str, Any]] = [
            {
                "name": "local",
                "provider": "openai",
                "model": "tiny-local-model",
                "base_url": f"{fake.url}/v1",
                "mode": "validated",
            },
            {
                "name": "embedder",
                "provider": "openai",
                "model": "tiny-embedder",
                "base_url": f"{fake.url}/v1",
                "kind": "embedding",
            },
        ]
        with BackgroundServer(create_app(parse_config({"models": models}))) as bridge:
            # --8<-- [start:gemini]
            client = genai.Client(
                api_key="unused", http_options=types.HttpOptions(base_url=bridge.url)
            )
            reply = client.models.generate_content(
                model="local",
                contents="Weather in Paris?",
                config=types.GenerateContentConfig(tools=[get_weather]),
            )
            print(reply.text)  # the SDK called get_weather and sent the result back
            # --8<-- [end:gemini]
            for content in reply.automatic_function_calling_history or []:
                for part in content.parts or []:
                    if part.function_call:
                        print(f"functionCall: {part.function_call.name}({part.function_call.args})")
            # --8<-- [start:embeddings]
            embedder = OpenAI(base_url=f"{bridge.url}/v1", api_key="unused")
            found = embedder.embeddings.create(model="embedder", input=["Paris", "Rome!"])
            print([item.embedding for item in found.data], found.usage.prompt_tokens)
            # --8<-- [end:embeddings]


if __name__ == "__main__":
    main()
