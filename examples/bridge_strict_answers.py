"""Strict JSON answers through a prompted upstream, offline.

A fake local model that calls tools through text answers the first time in prose,
and in JSON when asked again. The bridge serves it in ``validated`` mode; the openai
SDK's ``parse()`` asks for a strict ``Weather`` answer. The bridge checks the prose
against the schema, asks again with the problems found, and the client gets a parsed
``Weather``: never prose with a 200.

    python examples/bridge_strict_answers.py
"""

from __future__ import annotations

import anyio
from openai import AsyncOpenAI, pydantic_function_tool
from pydantic import BaseModel
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from good_agent.server import create_app, parse_config
from good_agent.server.background import BackgroundServer

ASKED: list[dict[str, object]] = []


async def text_only_model(request: Request) -> JSONResponse:
    body = await request.json()
    ASKED.append(body)
    first = len(ASKED) == 1
    text = "It is sunny in Paris, 21 degrees." if first else '{"city": "Paris", "celsius": 21}'
    message = {"role": "assistant", "content": text}
    return JSONResponse(
        {
            "id": "c",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        }
    )


class Weather(BaseModel):
    city: str
    celsius: float


class GetWeather(BaseModel):
    """Current weather for a city."""

    city: str


async def main() -> None:
    upstream = Starlette(routes=[Route("/v1/chat/completions", text_only_model, methods=["POST"])])
    with BackgroundServer(upstream) as fake:
        config = parse_config(
            {
                "models": [
                    {
                        "name": "local",
                        "provider": "openai",
                        "model": "hermes-3-llama-3.1-8b",
                        "base_url": f"{fake.url}/v1",
                        "mode": "validated",
                    }
                ]
            }
        )
        with BackgroundServer(create_app(config)) as bridge:
            async with AsyncOpenAI(base_url=f"{bridge.url}/v1", api_key="unused") as client:
                completion = await client.chat.completions.parse(
                    model="local",
                    messages=[{"role": "user", "content": "Weather in Paris?"}],
                    tools=[pydantic_function_tool(GetWeather)],
                    response_format=Weather,
                )
    print(f"upstream requests: {len(ASKED)}")
    print(f"second request constrained: {ASKED[-1].get('response_format', {}).get('type')}")
    print(f"parsed: {completion.choices[0].message.parsed!r}")
    assert completion.choices[0].message.parsed == Weather(city="Paris", celsius=21)


if __name__ == "__main__":
    anyio.run(main)
