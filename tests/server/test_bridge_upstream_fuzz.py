"""Fuzzed upstream replies: fields of a real-shaped reply replaced or removed, whole and
streamed, are relayed or refused with a 502, never answered with a 500."""

from __future__ import annotations

import copy
import json
import os
from typing import Any

import httpx2
from bridge_fakes import RawFake
from bridge_harness import CLIENT_KEY, USER
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_bridge_fuzz import ANY_JSON, paths

from good_agent.server.background import BackgroundServer

WHOLE_REPLY: dict[str, Any] = {
    "id": "x",
    "object": "chat.completion",
    "created": 1,
    "model": "m",
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": "hi",
                "tool_calls": [
                    {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            },
            "finish_reason": "tool_calls",
        }
    ],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
}


WHOLE_MESSAGE: dict[str, Any] = {
    "id": "msg_x",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-6",
    "content": [
        {"type": "text", "text": "hi"},
        {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"a": 1}},
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 1, "output_tokens": 1},
}


@st.composite
def mutated_replies(draw: st.DrawFn, original: dict[str, Any] = WHOLE_REPLY) -> dict[str, Any]:
    reply = copy.deepcopy(original)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(paths(reply)[1:]))
        parent: Any = reply
        for key in path[:-1]:
            parent = parent[key]
        if draw(st.booleans()) or not isinstance(parent, dict):
            parent[path[-1]] = draw(ANY_JSON)
        else:
            del parent[path[-1]]
    return reply


def as_stream(reply: dict[str, Any]) -> bytes:
    """The reply as chat.completion.chunk events: message fields moved to ``delta``."""
    chunk = dict(reply)
    chunk["choices"] = [
        {**choice, "delta": choice.get("message")} if isinstance(choice, dict) else choice
        for choice in (reply.get("choices") if isinstance(reply.get("choices"), list) else [])
    ]
    return f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()


@settings(
    max_examples=int(os.environ.get("BRIDGE_FUZZ_EXAMPLES", "80")),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(reply=mutated_replies(), stream=st.booleans())
def test_fuzzed_upstream_replies_are_never_a_500(
    raw: tuple[RawFake, BackgroundServer], reply: dict[str, Any], stream: bool
) -> None:
    fake = raw[0]
    fake.reset()
    if stream:
        fake.body, fake.content_type = as_stream(reply), "text/event-stream"
    else:
        fake.body = json.dumps(reply).encode()
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    response = httpx2.post(
        f"{raw[1].url}/v1/chat/completions",
        headers={"authorization": f"Bearer {CLIENT_KEY}"},
        json={"model": "gpt", "messages": USER, "tools": tools, "stream": stream},
        timeout=20,
    )
    assert response.status_code in (200, 502), response.text
    assert "server_error" not in response.text, response.text


@settings(
    max_examples=int(os.environ.get("BRIDGE_FUZZ_EXAMPLES", "60")),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(reply=mutated_replies(WHOLE_MESSAGE))
def test_fuzzed_anthropic_replies_are_never_a_500(
    raw: tuple[RawFake, BackgroundServer], reply: dict[str, Any]
) -> None:
    fake = raw[0]
    fake.reset()
    fake.body = json.dumps(reply).encode()
    response = httpx2.post(
        f"{raw[1].url}/v1/messages",
        headers={"x-api-key": CLIENT_KEY},
        json={
            "model": "claude",
            "max_tokens": 50,
            "messages": USER,
            "tools": [{"name": "f", "input_schema": {"type": "object"}}],
        },
        timeout=20,
    )
    assert response.status_code in (200, 502), response.text
    assert response.json().get("type") in ("message", "error")
