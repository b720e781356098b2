"""``good-agent serve`` startup: the models and modes it serves, unset keys, a taken port,
keys written in the file, and ``--workers N``."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx2
import pytest

from good_agent.server import ConfigError, parse_config
from good_agent.server.serve import startup_report

CONFIG = """
[[models]]
name = "fast"
provider = "openai"
model = "gpt-4o-mini"
api_key_env = "ECOSYSTEM_TEST_UNSET_KEY"

[[models]]
name = "local"
provider = "openai"
model = "qwen"
base_url = "http://127.0.0.1:9/v1"
mode = "validated"
text_format = "hermes"
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve_cmd(path: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "good_agent.cli", "serve", "--config", str(path), *args]


def test_startup_report_lists_models_modes_and_unset_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    import tomllib

    monkeypatch.delenv("ECOSYSTEM_TEST_UNSET_KEY", raising=False)
    config = parse_config(tomllib.loads(CONFIG))
    lines = startup_report(config, "127.0.0.1", 7285)
    assert lines[0] == "good-agent bridge on http://127.0.0.1:7285/v1 (1 worker process)"
    assert any("'fast': openai gpt-4o-mini, mode auto" in line for line in lines)
    assert any("'local': openai qwen, mode validated, text format hermes" in line for line in lines)
    warnings = [line for line in lines if "warning" in line]
    assert len(warnings) == 1
    assert "ECOSYSTEM_TEST_UNSET_KEY is not set" in warnings[0] and "'fast'" in warnings[0]
    monkeypatch.setenv("ECOSYSTEM_TEST_UNSET_KEY", "k")
    assert not [line for line in startup_report(config, "h", 1) if "warning" in line]


def test_a_key_in_the_file_is_refused_with_the_fix() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(
            {"models": [{"name": "m", "provider": "openai", "model": "x", "api_key": "sk-1"}]}
        )
    message = str(caught.value)
    assert "models[0]" in message and "api_key_env" in message
    assert "sk-1" not in message


def test_a_taken_port_names_the_port_and_how_to_choose_another(tmp_path: Path) -> None:
    path = tmp_path / "bridge.toml"
    path.write_text(CONFIG)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            serve_cmd(path, "--port", str(port)),
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert f"port {port} on 127.0.0.1 is already in use" in result.stderr
    assert "--port N" in result.stderr


def wait_healthy(port: int, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()[1]
        try:
            if httpx2.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return
        except httpx2.TransportError:
            time.sleep(0.1)
    raise AssertionError("the bridge did not become healthy")


def test_workers_run_as_separate_processes_on_one_port(tmp_path: Path) -> None:
    path = tmp_path / "bridge.toml"
    path.write_text(CONFIG)
    port = free_port()
    env = {**os.environ, "ECOSYSTEM_TEST_UNSET_KEY": ""}
    process = subprocess.Popen(
        serve_cmd(path, "--port", str(port), "--workers", "2"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        wait_healthy(port, process)
        for _ in range(20):
            models = httpx2.get(f"http://127.0.0.1:{port}/v1/models", timeout=5).json()
            assert [m["id"] for m in models["data"]] == ["fast", "local"]
        children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
        workers = [
            pid for pid in children if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()
        ]
        assert len(workers) == 2
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=20)
    assert "(2 worker processes)" in err
    assert "ECOSYSTEM_TEST_UNSET_KEY is not set" in err
    assert err.count("Started server process") == 2
