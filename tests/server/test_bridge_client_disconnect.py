"""A client that leaves in the middle of its request body is a client disconnect:
logged as such (status 499), with no error traceback and no 500."""

from __future__ import annotations

import logging
import socket
from typing import Any

import anyio
import pytest
from bridge_harness import CLIENT_KEY

pytestmark = [pytest.mark.anyio, pytest.mark.both_paths]


def send_half_a_body(bridge: Any, path: str) -> None:
    """Announce a 5,000-byte body, send 20 bytes of it, close the connection."""
    head = (
        f"POST {path} HTTP/1.1\r\nhost: 127.0.0.1\r\n"
        f"authorization: Bearer {CLIENT_KEY}\r\ncontent-type: application/json\r\n"
        "content-length: 5000\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", bridge.port), timeout=10) as sock:
        sock.sendall(head.encode() + b'{"model": "gpt", "me')


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/messages"])
async def test_a_body_cut_short_is_logged_as_a_client_disconnect(
    bridge: Any, caplog: pytest.LogCaptureFixture, path: str
) -> None:
    caplog.set_level(logging.INFO, logger="good_agent.server")
    send_half_a_body(bridge, path)
    access: list[logging.LogRecord] = []
    with anyio.move_on_after(10):
        while not access:
            await anyio.sleep(0.02)
            access = [r for r in caplog.records if r.name == "good_agent.server.access"]
    assert [getattr(r, "status", None) for r in access] == [499]
    assert getattr(access[0], "path", None) == path
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not [r for r in caplog.records if r.exc_info]
    assert any("client disconnected" in r.getMessage() for r in caplog.records)
