"""Strict native tools end to end: the real OpenAI SDK over a mock transport, an agent, and
a tool with a nested optional field that strict mode made nullable."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import openai
import pytest
from pydantic import BaseModel

from good_agent import Agent, Tool, ToolMessage, tool
from good_agent.models.vendors import OpenAIChatModel

pytestmark = pytest.mark.anyio


class Address(BaseModel):
    street: str
    zip: str = ""  # optional, not nullable: strict mode's null must not reach it


class Person(BaseModel):
    name: str
    home: Address


SAVED: list[Person] = []


@tool
def save_person(person: Person) -> str:
    """Save a person."""
    SAVED.append(person)
    return f"saved {person.name} (zip {person.home.zip!r})"


LOOSE = Tool.from_schema(
    "notes.add",
    {"type": "dict", "properties": {"text": {"type": "str"}, "meta": {"description": "any"}}},
    "Add a note.",
    lambda text, meta=None: "ok",
)


def completion(message: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "c",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-4o-mini",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
    }


async def test_strict_tools_and_nested_nulls_through_the_agent() -> None:
    arguments = {"person": {"name": "Ada", "home": {"street": "Main St", "zip": None}}}
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "save_person", "arguments": json.dumps(arguments)},
    }
    replies = [
        completion({"role": "assistant", "content": None, "tool_calls": [call]}),
        completion({"role": "assistant", "content": "Saved."}),
    ]
    bodies: list[dict[str, Any]] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        bodies.append(json.loads(request.content))
        return httpx2.Response(200, json=replies.pop(0))

    client = openai.AsyncOpenAI(
        api_key="k", http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    )
    model = OpenAIChatModel("gpt-4o-mini", client=client, mode="auto", strict="profile")
    async with Agent(model=model, tools=[save_person, LOOSE]) as agent:
        answer = await agent.call("Save Ada, Main St.")
    assert answer.content == "Saved."
    sent = {t["function"]["name"]: t["function"] for t in bodies[0]["tools"]}
    assert sent["save_person"]["strict"] is True
    assert "strict" not in sent["notes_add"]  # a property with no type: not strict
    results = [m for m in agent.messages if isinstance(m, ToolMessage)]
    assert [m.content for m in results] == ["saved Ada (zip '')"]
    assert not results[0].is_error
    assert SAVED[-1].home == Address(street="Main St")
