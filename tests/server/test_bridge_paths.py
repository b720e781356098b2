"""A path with a trailing slash is answered directly, never redirected.

A redirect's ``Location`` would be built from the client's ``Host`` header, so a
``Host`` naming another server could send a client elsewhere (a foreign name is
refused outright, with a 421: see test_site_guard.py; ``localhost:1`` is a name the
bridge answers to, at a port where nothing listens).
"""

from __future__ import annotations

from typing import Any

import httpx2
import pytest
from bridge_fakes import Fake
from bridge_harness import CLIENT_KEY, USER

pytestmark = pytest.mark.anyio
HOSTILE = {"authorization": f"Bearer {CLIENT_KEY}", "host": "localhost:1"}


@pytest.mark.parametrize(
    ("path", "body", "fake"),
    [
        ("/v1/chat/completions/", {"model": "gpt", "messages": USER}, "openai"),
        ("/v1/messages/", {"model": "claude", "max_tokens": 50, "messages": USER}, "anthropic"),
    ],
)
async def test_trailing_slash_posts_are_answered_not_redirected(
    bridge: Any, fakes: dict[str, tuple[Fake, str]], path: str, body: Any, fake: str
) -> None:
    async with httpx2.AsyncClient(timeout=10, follow_redirects=False) as http:
        response = await http.post(f"{bridge.url}{path}", json=body, headers=HOSTILE)
    assert response.status_code == 200, response.text
    assert "location" not in response.headers
    reply = response.json()
    text = (
        reply["choices"][0]["message"]["content"]
        if path.startswith("/v1/chat")
        else reply["content"][0]["text"]
    )
    assert text == "Hello from the fake."
    assert len(fakes[fake][0].requests) == 1


@pytest.mark.parametrize("path", ["/v1/models/", "/health/"])
async def test_trailing_slash_gets_are_answered_not_redirected(bridge: Any, path: str) -> None:
    async with httpx2.AsyncClient(timeout=10, follow_redirects=False) as http:
        response = await http.get(f"{bridge.url}{path}", headers=HOSTILE)
    assert response.status_code == 200, response.text
    assert "location" not in response.headers
    if path == "/v1/models/":
        assert "gpt" in {model["id"] for model in response.json()["data"]}


async def test_an_unknown_path_with_a_slash_is_a_404_without_location(bridge: Any) -> None:
    async with httpx2.AsyncClient(timeout=10, follow_redirects=False) as http:
        response = await http.post(f"{bridge.url}/v1/nothing/", json={}, headers=HOSTILE)
    assert response.status_code == 404
    assert "location" not in response.headers
