"""`good-agent demo`, offline and against an OpenAI-compatible server on loopback."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "good_agent.cli", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_offline_demo_shows_calls_results_and_answer() -> None:
    result = run_cli("demo")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "the model is SCRIPTED" in out
    assert 'get_weather({"city": "Paris"})' in out
    assert 'get_weather({"city": "Tokyo"})' in out
    assert 'celsius_to_fahrenheit({"celsius": 24.5})' in out
    assert "result     call_f: 76.1" in out
    assert "[answer] Paris is 18.0°C" in out


@pytest.fixture
def fake_upstream() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    bodies: list[dict[str, Any]] = []
    replies = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Lima"}'},
                }
            ],
        },
        {"role": "assistant", "content": "Lima is 16°C."},
    ]

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers["content-length"])
            bodies.append(json.loads(self.rfile.read(length)))
            message = replies[min(len(bodies) - 1, 1)]
            body = json.dumps(
                {
                    "id": "x",
                    "object": "chat.completion",
                    "created": 0,
                    "model": "local",
                    "choices": [
                        {
                            "index": 0,
                            "message": message,
                            "finish_reason": "tool_calls" if message["content"] is None else "stop",
                        }
                    ],
                }
            ).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", bodies
    finally:
        server.shutdown()
        server.server_close()


def test_demo_against_an_openai_compatible_server(
    fake_upstream: tuple[str, list[dict[str, Any]]],
) -> None:
    url, bodies = fake_upstream
    result = run_cli("demo", "--model", "local-model", "--base-url", url)
    assert result.returncode == 0, result.stderr
    assert "model local-model" in result.stdout
    assert 'get_weather({"city": "Lima"})' in result.stdout
    assert "[answer] Lima is 16°C." in result.stdout
    assert bodies[0]["model"] == "local-model"
    assert [t["function"]["name"] for t in bodies[0]["tools"]] == [
        "get_weather",
        "celsius_to_fahrenheit",
    ]


def test_demo_reports_model_errors_cleanly() -> None:
    result = run_cli("demo", "--model", "local-model", "--base-url", "http://127.0.0.1:9/v1")
    assert result.returncode == 1
    assert "good-agent demo failed: cannot reach openai" in result.stderr
