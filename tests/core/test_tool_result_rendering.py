"""Tool results reach the model as JSON rendered the way pydantic renders it."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
import socket
from collections.abc import Callable
from decimal import Decimal
from typing import Any, TypedDict
from uuid import UUID

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from good_agent import Agent, ToolMessage, ToolResultError, tool
from good_agent.testing import ScriptedModel
from good_agent.types.messages import render_value

pytestmark = pytest.mark.anyio


class Color(enum.Enum):
    RED = "red"


class Level(enum.IntEnum):
    HIGH = 3


@dataclasses.dataclass
class Point:
    x: int
    y: int


class Person(TypedDict):
    name: str
    born: datetime.date


class Box(BaseModel):
    color: Color
    at: datetime.datetime


CASES: list[tuple[Any, Any]] = [
    (Color.RED, "red"),
    (Level.HIGH, 3),
    (datetime.datetime(2024, 1, 2, 3, 4), "2024-01-02T03:04:00"),
    (datetime.date(2024, 1, 2), "2024-01-02"),
    ({"p": Point(1, 2)}, {"p": {"x": 1, "y": 2}}),
    (
        [Person(name="Ada", born=datetime.date(1815, 12, 10))],
        [{"name": "Ada", "born": "1815-12-10"}],
    ),
    (
        Box(color=Color.RED, at=datetime.datetime(2024, 1, 2)),
        {"color": "red", "at": "2024-01-02T00:00:00"},
    ),
    ({3, 1, 2}, [1, 2, 3]),
    ((1, "a"), [1, "a"]),
    (b"\x00\xffhi", "AP9oaQ=="),
    (Decimal("1.50"), "1.50"),
    (UUID(int=1), "00000000-0000-0000-0000-000000000001"),
    (None, None),
    ({"é": "ü", 1: [True]}, {"é": "ü", "1": [True]}),
]


@pytest.mark.parametrize(("value", "expected"), CASES)
async def test_a_tool_result_is_rendered_as_pydantic_json(value: Any, expected: Any) -> None:
    @tool
    def give() -> Any:
        """Give the value."""
        return value

    model = ScriptedModel([ScriptedModel.tool_call("give", {}), "done"])
    agent = Agent(model=model, tools=[give])
    await agent.call("go")
    [result] = [m for m in agent.messages if isinstance(m, ToolMessage)]
    rendered = json.loads(result.content)
    if isinstance(value, set):
        rendered = sorted(rendered)
    assert rendered == expected
    assert not result.is_error


@given(st.text())
def test_strings_stay_as_they_are(text: str) -> None:
    assert render_value(text) == text


async def test_a_value_with_no_json_form_is_an_error_naming_the_tool_and_the_type() -> None:
    @tool
    def open_socket() -> Any:
        """Return something that is not data."""
        return {"sock": socket.socket()}

    model = ScriptedModel([ScriptedModel.tool_call("open_socket", {}), "done"])
    with pytest.raises(ToolResultError) as caught:
        await Agent(model=model, tools=[open_socket]).call("go")
    message = str(caught.value)
    assert "'open_socket'" in message and "socket.socket" in message
    assert "<socket.socket" not in message  # no repr of the value
    assert caught.value.tool_name == "open_socket"


async def test_the_wire_carries_the_rendered_result(
    fake_upstream: Callable[[list[Any]], Any],
) -> None:
    """Over loopback: the Chat Completions tool message holds the JSON text."""

    @tool
    def paint() -> dict[str, Any]:
        """Paint."""
        return {"color": Color.RED, "when": datetime.datetime(2024, 1, 2, 3, 4)}

    def reply(message: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        return 200, {
            "id": "c",
            "object": "chat.completion",
            "created": 0,
            "model": "gpt-4o",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }

    call = {"id": "call_1", "type": "function", "function": {"name": "paint", "arguments": "{}"}}
    upstream = fake_upstream(
        [
            reply({"role": "assistant", "content": None, "tool_calls": [call]}),
            reply({"role": "assistant", "content": "Painted."}),
        ]
    )
    agent = Agent(model="openai:gpt-4o", base_url=f"{upstream.url}/v1", api_key="k", tools=[paint])
    assert (await agent.call("paint")).content == "Painted."
    [sent] = [m for m in upstream.bodies[1]["messages"] if m["role"] == "tool"]
    assert json.loads(sent["content"]) == {"color": "red", "when": "2024-01-02T03:04:00"}
