"""Shared pieces of the served-agent tests: run an app on loopback, post AG-UI and
Vercel requests, and parse the streams with the protocols' own models."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from ag_ui import core as ag
from pydantic import TypeAdapter

from good_agent.server.background import BackgroundServer
from good_agent.server.ui.vercel_wire import CHUNK

EVENT: TypeAdapter[Any] = TypeAdapter(ag.Event)


@contextmanager
def served(app: Any) -> Iterator[BackgroundServer]:
    server = BackgroundServer(app).start()
    try:
        yield server
    finally:
        server.stop()


def run_input(
    thread: str, messages: list[dict[str, Any]] | None = None, **extra: Any
) -> dict[str, Any]:
    return {
        "threadId": thread,
        "runId": f"run-{uuid.uuid4().hex[:8]}",
        "messages": messages or [],
        **extra,
    }


def user(text: str) -> dict[str, Any]:
    return {"id": f"u-{uuid.uuid4().hex[:8]}", "role": "user", "content": text}


def sse_data(response: httpx.Response) -> list[str]:
    return [line[6:] for line in response.text.splitlines() if line.startswith("data: ")]


def ag_ui(server: BackgroundServer, body: Any, **headers: str) -> list[Any]:
    """POST ``body`` to ``/ag-ui``; the events, each parsed with ``ag_ui.core``'s models."""
    response = httpx.post(f"{server.url}/ag-ui", json=body, headers=headers, timeout=30)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    return [EVENT.validate_json(data) for data in sse_data(response)]


def vercel(server: BackgroundServer, body: Any, **headers: str) -> list[Any]:
    """POST ``body`` to ``/vercel``; the chunks, parsed (``[DONE]`` last, checked)."""
    response = httpx.post(f"{server.url}/vercel", json=body, headers=headers, timeout=30)
    assert response.status_code == 200, response.text
    assert response.headers["x-vercel-ai-ui-message-stream"] == "v1"
    data = sse_data(response)
    assert data[-1] == "[DONE]"
    return [CHUNK.validate_json(item) for item in data[:-1]]


def refusal(server: BackgroundServer, path: str, body: Any, **headers: str) -> tuple[int, Any]:
    """POST a body that should be refused: the status and the JSON error."""
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    response = httpx.post(
        f"{server.url}{path}",
        content=content,
        headers={"content-type": "application/json", **headers},
        timeout=30,
    )
    return response.status_code, response.json()


def types(events: list[Any]) -> list[str]:
    return [
        str(event.type.value if hasattr(event.type, "value") else event.type) for event in events
    ]


def text_of(events: list[Any]) -> str:
    return "".join(e.delta for e in events if isinstance(e, ag.TextMessageContentEvent))
