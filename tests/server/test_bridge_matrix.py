"""Every upstream kind behind every client protocol, through the real client SDKs.

Each client protocol the bridge speaks (Chat Completions and Responses with the
openai SDK, Messages with the anthropic SDK, ``generateContent`` with the
google-genai SDK), whole and streamed, asks each kind of upstream on loopback
(OpenAI-compatible native, Anthropic, Gemini, Ollama, the OpenAI Responses API, a
structured-output model and a prompted text model) for one tool call, and gets
back a real tool call of that protocol with the right name and arguments. One
bridge serves the whole module.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import anthropic
import openai
import pytest
from bridge_fakes import Fake, Reply, ResponsesFake
from bridge_harness import CLIENT_KEY, WEATHER, collect_stream, model_entries
from google import genai
from google.genai import types
from responses_harness import R_WEATHER

from good_agent.server import create_app, parse_config
from good_agent.server.background import BackgroundServer

pytestmark = pytest.mark.anyio

CALL = ("get_weather", {"city": "Paris"})
ASK = "Weather in Paris?"
UPSTREAMS = {
    # route name: the fake serving it
    "gpt": "openai",
    "claude": "anthropic",
    "gemini": "gemini",
    "ollama": "ollama",
    "gpt-responses": "responses",
    "structured": "openai",
    "local": "text",
}
PROTOCOLS = ["chat", "messages", "responses", "gemini"]

Got = tuple[str, dict[str, Any]]


def scripted(route: str) -> Reply:
    """The upstream's reply that holds :data:`CALL`, in the way that route's model writes it."""
    name, args = CALL
    if route == "structured":  # the JSON action of a structured-output model
        action = {"tool": name, "arguments": args, "scratchpad": None}
        return Reply(text=json.dumps({"action": action}))
    if route == "local":  # a prompted text model writes the call as text
        call = json.dumps({"name": name, "arguments": args})
        return Reply(text=f"Let me look. <tool_call>{call}</tool_call>")
    return Reply(calls=[CALL])


@pytest.fixture(scope="module")
def served(
    fakes: dict[str, tuple[Fake, str]],
) -> Iterator[tuple[dict[str, Fake], BackgroundServer]]:
    responses = ResponsesFake()
    upstream = BackgroundServer(responses.app()).start()
    models = [
        *model_entries(fakes),
        {
            "name": "gpt-responses",
            "provider": "openai-responses",
            "model": "gpt-4.1",
            "base_url": upstream.url + "/v1",
            "api_key_env": "GA_TEST_UPSTREAM_KEY",
            "mode": "native",
        },
    ]
    config = parse_config({"server": {"api_keys_env": "GA_TEST_CLIENT_KEYS"}, "models": models})
    bridge = BackgroundServer(create_app(config)).start()
    by_name = {name: fake for name, (fake, _) in fakes.items()}
    yield {**by_name, "responses": responses}, bridge
    bridge.stop()
    upstream.stop()


class Clients:
    """The four SDK clients of the bridge, each asking for :data:`CALL`."""

    def __init__(self, url: str) -> None:
        self.openai = openai.AsyncOpenAI(base_url=f"{url}/v1", api_key=CLIENT_KEY, max_retries=0)
        self.anthropic = anthropic.AsyncAnthropic(base_url=url, api_key=CLIENT_KEY, max_retries=0)
        self.genai = genai.Client(api_key=CLIENT_KEY, http_options=types.HttpOptions(base_url=url))

    async def aclose(self) -> None:
        await self.openai.close()
        await self.anthropic.close()

    async def chat(self, model: str, stream: bool) -> list[Got]:
        kw: dict[str, Any] = {
            "model": model,
            "messages": [{"role": "user", "content": ASK}],
            "tools": [WEATHER],
        }
        if stream:
            _, calls, finish, _ = await collect_stream(self.openai, **kw)
            assert finish == "tool_calls"
            assert all(call["id"] for call in calls.values())
            return [(c["name"], json.loads(c["arguments"])) for _, c in sorted(calls.items())]
        reply = await self.openai.chat.completions.create(**kw)
        choice = reply.choices[0]
        assert choice.finish_reason == "tool_calls"
        return [
            (c.function.name, json.loads(c.function.arguments))
            for c in choice.message.tool_calls or []
            if c.type == "function"
        ]

    async def messages(self, model: str, stream: bool) -> list[Got]:
        kw: dict[str, Any] = {
            "model": model,
            "max_tokens": 256,
            "messages": [{"role": "user", "content": ASK}],
            "tools": [
                {
                    "name": WEATHER["function"]["name"],
                    "description": WEATHER["function"]["description"],
                    "input_schema": WEATHER["function"]["parameters"],
                }
            ],
        }
        if stream:
            async with self.anthropic.messages.stream(**kw) as events:
                final = await events.get_final_message()
        else:
            final = await self.anthropic.messages.create(**kw)
        assert final.stop_reason == "tool_use"
        return [
            (block.name, dict(block.input))  # type: ignore[arg-type]
            for block in final.content
            if block.type == "tool_use"
        ]

    async def responses(self, model: str, stream: bool) -> list[Got]:
        kw: dict[str, Any] = {"model": model, "input": ASK, "tools": [R_WEATHER]}
        if stream:
            kinds: list[str] = []
            async with self.openai.responses.stream(**kw) as events:
                async for event in events:
                    kinds.append(event.type)
                final = await events.get_final_response()
            for kind in (
                "response.output_item.added",
                "response.function_call_arguments.delta",
                "response.function_call_arguments.done",
                "response.output_item.done",
            ):
                assert kind in kinds, kinds
            assert kinds[-1] == "response.completed"
        else:
            final = await self.openai.responses.create(**kw)
        assert final.status == "completed"
        return [
            (item.name, json.loads(item.arguments))
            for item in final.output
            if item.type == "function_call" and item.call_id
        ]

    async def gemini(self, model: str, stream: bool) -> list[Got]:
        config = types.GenerateContentConfig(
            tools=[types.Tool(function_declarations=[WEATHER["function"]])],
            automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
        )
        models = self.genai.aio.models
        if stream:
            chunks = [
                chunk
                async for chunk in await models.generate_content_stream(
                    model=model, contents=ASK, config=config
                )
            ]
        else:
            chunks = [await models.generate_content(model=model, contents=ASK, config=config)]
        last = chunks[-1].candidates
        assert last and last[0].finish_reason == types.FinishReason.STOP
        return [
            (str(call.name), dict(call.args or {}))
            for chunk in chunks
            for call in chunk.function_calls or []
        ]


@pytest.fixture(scope="module")
async def clients(
    served: tuple[dict[str, Fake], BackgroundServer], anyio_backend: str
) -> AsyncIterator[Clients]:
    made = Clients(served[1].url)
    yield made
    await made.aclose()


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("route", list(UPSTREAMS))
async def test_one_tool_call_through_every_protocol_from_every_upstream(
    served: tuple[dict[str, Fake], BackgroundServer],
    clients: Clients,
    route: str,
    protocol: str,
    stream: bool,
) -> None:
    fake = served[0][UPSTREAMS[route]]
    fake.reset()
    fake.reply = scripted(route)
    ask: Callable[[str, bool], Awaitable[list[Got]]] = getattr(clients, protocol)
    assert await ask(route, stream) == [CALL]
    assert not fake.problems, fake.problems
    sent = fake.requests[-1]
    # a prompted model is asked in text, never through a tools API
    assert ("tools" in sent) == (route not in ("local", "structured"))
