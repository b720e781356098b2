"""``good-agent serve-agent module:agent``: the chat page and the endpoints on a port,
and a clear refusal of a bad target or an exposed host without keys."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
from ui_harness import EVENT, run_input, sse_data, user

AGENT_MODULE = """
from good_agent import Agent
from good_agent.testing import ScriptedModel

agent = Agent(model=ScriptedModel(["Hello from the command line."]))
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cli(tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.Popen(
        [sys.executable, "-m", "good_agent.cli", "serve-agent", *args],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_serve_agent_serves_the_page_and_the_ag_ui_endpoint(tmp_path: Path) -> None:
    (tmp_path / "my_agent.py").write_text(AGENT_MODULE)
    port = free_port()
    process = cli(tmp_path, "my_agent:agent", "--port", str(port))
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert process.poll() is None, process.communicate()[1]
            assert time.monotonic() < deadline, "serve-agent did not start"
            time.sleep(0.1)
        page = httpx.get(url + "/")
        assert page.status_code == 200 and "<script>" in page.text
        response = httpx.post(f"{url}/ag-ui", json=run_input("cli", [user("hi")]), timeout=30)
        events = [EVENT.validate_json(data) for data in sse_data(response)]
        deltas = [
            getattr(e, "delta", "") for e in events if type(e).__name__ == "TextMessageContentEvent"
        ]
        assert "".join(deltas) == "Hello from the command line."
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_a_bad_target_or_an_exposed_host_without_keys_is_refused(tmp_path: Path) -> None:
    (tmp_path / "my_agent.py").write_text(AGENT_MODULE)
    bad = cli(tmp_path, "my_agent:nothing_here")
    _, err = bad.communicate(timeout=60)
    assert bad.returncode == 1 and "nothing_here" in err
    exposed = cli(
        tmp_path, "my_agent:agent", "--host", "0.0.0.0", "--api-keys-env", "GA_NO_SUCH_VAR"
    )
    _, err = exposed.communicate(timeout=60)
    assert exposed.returncode == 1 and "without client keys" in err
