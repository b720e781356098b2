"""Shared pieces of the ``/v1/responses`` tests: a bridge with its own response store,
tools in the Responses form, and strict parsing with the openai SDK's own types."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2
from bridge_fakes import Fake
from bridge_harness import CLIENT_KEY, TIME, WEATHER, fake_entry, model_entries
from openai.types.responses import Response, ResponseStreamEvent
from pydantic import TypeAdapter

from good_agent.server import create_app, parse_config
from good_agent.server.background import BackgroundServer

AUTH = {"authorization": f"Bearer {CLIENT_KEY}"}
OTHER = {"authorization": "Bearer second-client-key"}
EVENTS: TypeAdapter[Any] = TypeAdapter(ResponseStreamEvent)


def flat(tool: dict[str, Any]) -> dict[str, Any]:
    """A Chat Completions tool in the Responses form."""
    return {"type": "function", **tool["function"]}


R_WEATHER, R_TIME = flat(WEATHER), flat(TIME)


RESP = "resp"
"""The route whose upstream speaks the Responses API (the ``responses`` fake): the one
``/v1/responses`` passes requests through to."""


def start_responses_bridge(
    fakes: dict[str, tuple[Fake, str]], responses: dict[str, Any], *, pass_through: bool = True
) -> BackgroundServer:
    """A bridge over the vendor fakes (``model_entries``) and :data:`RESP`, with
    ``responses`` as its ``[responses]`` table."""
    resp = fake_entry(fakes, RESP, "openai-responses", "responses", "gpt-4.1", mode="native")
    config = parse_config(
        {
            "server": {"api_keys_env": "GA_TEST_CLIENT_KEYS", "pass_through": pass_through},
            "models": [*model_entries(fakes), resp],
            "responses": responses,
        }
    )
    return BackgroundServer(create_app(config)).start()


def sqlite_bridge(
    fakes: dict[str, tuple[Fake, str]], directory: Path, *, pass_through: bool = True
) -> BackgroundServer:
    path = str(directory / "responses.sqlite3")
    return start_responses_bridge(fakes, {"path": path}, pass_through=pass_through)


async def post(bridge: BackgroundServer, body: Any, headers: dict[str, str] | None = None) -> Any:
    async with httpx2.AsyncClient(timeout=30) as http:
        return await http.post(f"{bridge.url}/v1/responses", json=body, headers=headers or AUTH)


def strict_response(data: dict[str, Any]) -> Response:
    """``data`` validated as the SDK's ``Response`` (every required field present)."""
    return Response.model_validate(data)


def events_of(text: str) -> list[Any]:
    """The events of an SSE body, each validated as the SDK's stream event types;
    each ``event:`` line names its data's type."""
    out: list[Any] = []
    for block in text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        parsed = EVENTS.validate_json(lines["data"])
        assert parsed.type == lines["event"]
        out.append(parsed)
    return out


async def respond(client: Any, stream: bool, **request: Any) -> Response:
    """The response to ``request`` through the openai SDK's ``client``: its final
    response when streamed (``responses.stream``), else ``responses.create``'s."""
    if stream:
        async with client.responses.stream(**request) as events:
            final: Response = await events.get_final_response()
            return final
    created: Response = await client.responses.create(**request)
    return created
