"""Shared data for the codec tests: tools and a history with calls and results."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx2

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
            "required": ["city"],
        },
    },
}
FACTORIAL = {
    "type": "function",
    "function": {
        "name": "math.factorial",
        "description": "n!",
        "parameters": {
            "type": "object",
            "properties": {"n": {"type": "integer"}},
            "required": ["n"],
        },
    },
}
TOOLS = [WEATHER, FACTORIAL]


def call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI ``tool_calls`` entry."""
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


HISTORY: list[dict[str, Any]] = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Weather in Paris and 5!?"},
    {
        "role": "assistant",
        "content": "Checking.",
        "tool_calls": [
            call("call_1", "get_weather", {"city": "Paris"}),
            call("call_2", "math.factorial", {"n": 5}),
        ],
    },
    {
        "role": "tool",
        "tool_call_id": "call_1",
        "name": "get_weather",
        "content": "Error: service down",
        "is_error": True,
    },
    {"role": "tool", "tool_call_id": "call_2", "name": "math.factorial", "content": "120"},
]


class Recorder:
    """An ``httpx2.MockTransport`` handler that records request bodies."""

    def __init__(self, reply: dict[str, Any] | Callable[[httpx2.Request], httpx2.Response]):
        self.reply = reply
        self.requests: list[httpx2.Request] = []

    @property
    def body(self) -> dict[str, Any]:
        """The JSON body of the last request."""
        result: dict[str, Any] = json.loads(self.requests[-1].content)
        return result

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        if callable(self.reply):
            return self.reply(request)
        return httpx2.Response(200, json=self.reply)

    def client(self) -> httpx2.AsyncClient:
        """An async client over this handler."""
        return httpx2.AsyncClient(transport=httpx2.MockTransport(self))
