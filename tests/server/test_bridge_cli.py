"""``good-agent serve`` as a real process: starts, answers, refuses unsafe exposure."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx2

CONFIG = """
[[models]]
name = "m"
provider = "openai"
model = "x"
base_url = "http://127.0.0.1:9/v1"
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_serve_starts_and_stops(tmp_path: Path) -> None:
    path = tmp_path / "bridge.toml"
    path.write_text(CONFIG)
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "good_agent.cli",
            "serve",
            "--config",
            str(path),
            "--port",
            str(port),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 15
        health = None
        while time.monotonic() < deadline:
            try:
                health = httpx2.get(f"http://127.0.0.1:{port}/health", timeout=1)
                break
            except httpx2.TransportError:
                time.sleep(0.1)
        assert health is not None and health.json() == {"status": "ok", "models": 1}
        models = httpx2.get(f"http://127.0.0.1:{port}/v1/models", timeout=2).json()
        assert [m["id"] for m in models["data"]] == ["m"]
    finally:
        process.terminate()
        process.wait(10)


def test_serve_refuses_public_host_without_keys(tmp_path: Path) -> None:
    path = tmp_path / "bridge.toml"
    path.write_text(CONFIG)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "good_agent.cli",
            "serve",
            "--config",
            str(path),
            "--host",
            "0.0.0.0",
            "--port",
            str(free_port()),
        ],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 1
    assert "refusing to listen on 0.0.0.0" in result.stderr
