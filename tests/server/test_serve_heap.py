"""The serving commands settle the garbage collector before the first request
(`good_agent.server.common.heap`): what the process loaded is frozen out of every later
collection, young collections wait for `YOUNG_THRESHOLD` objects, and cycles a request
leaves are still collected. Each check runs in a child process, so this process's
collector is left as it is."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

from good_agent.server.common.heap import YOUNG_THRESHOLD

ROOT = Path(__file__).resolve().parents[2]

BRIDGE = """
[[models]]
name = "m"
provider = "openai"
model = "x"
base_url = "http://127.0.0.1:9/v1"
"""

AGENT_MODULE = """
from good_agent import Agent
from good_agent.testing import ScriptedModel

agent = Agent(model=ScriptedModel(["Hello."]))
"""

# Runs a serving command with uvicorn's ``run`` replaced by a report of the collector
# at the moment the server would start serving (and of what it was asked to serve, and
# with which HTTP protocol: the batched writes of `good_agent.server.common.batched_writes`).
AT_SERVE = """
import gc, json, sys
import uvicorn

def run(app, **options):
    print(json.dumps({
        "frozen": gc.get_freeze_count(),
        "threshold": gc.get_threshold(),
        "app": app if isinstance(app, str) else type(app).__name__,
        "http": getattr(options.get("http"), "__name__", None),
    }))

uvicorn.run = run
from good_agent.cli import main
sys.exit(main(sys.argv[1:]))
"""


def free_port() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return str(sock.getsockname()[1])


def child(code: str, *args: str, cwd: Path = ROOT, **env: str) -> dict[str, object]:
    """What the child process running ``code`` printed last, as JSON."""
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *sys.path]), **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_settling_freezes_the_loaded_heap_and_keeps_collecting_cycles() -> None:
    code = """
import gc, json, weakref
from good_agent.server.common.heap import settle_heap
gc.set_threshold(700, 10, 10)
before = gc.get_freeze_count()
settle_heap()
frozen = gc.get_freeze_count()

class Node:
    pass

# A cycle made after settling, then dropped: the collector still finds it by itself
# once enough objects have been made (no explicit collect).
node = Node()
node.self = node
gone = weakref.ref(node)
del node
made = []
for _ in range(3):
    made.extend([] for _ in range(10_000))
    made.clear()
print(json.dumps({"before": before, "frozen": frozen, "threshold": gc.get_threshold(),
                  "cycle_alive": gone() is not None}))
"""
    seen = child(code)
    assert seen["before"] == 0
    assert isinstance(seen["frozen"], int) and seen["frozen"] > 1000
    assert seen["threshold"] == [YOUNG_THRESHOLD, 10, 10]
    assert seen["cycle_alive"] is False


def test_a_higher_threshold_already_set_is_kept() -> None:
    code = """
import gc, json
from good_agent.server.common.heap import settle_heap
gc.set_threshold(50_000, 5, 7)
settle_heap()
print(json.dumps({"threshold": gc.get_threshold()}))
"""
    assert child(code)["threshold"] == [50_000, 5, 7]


def test_serve_settles_the_heap_once_the_bridge_is_built(tmp_path: Path) -> None:
    path = tmp_path / "bridge.toml"
    path.write_text(BRIDGE)
    seen = child(AT_SERVE, "serve", "--config", str(path), "--port", free_port())
    assert seen["app"] == "BridgeApp"
    assert seen["http"] == "BatchedHTTP"
    assert isinstance(seen["frozen"], int) and seen["frozen"] > 10_000
    assert seen["threshold"][0] == YOUNG_THRESHOLD  # type: ignore[index]


def test_each_worker_process_settles_its_own_heap(tmp_path: Path) -> None:
    path = tmp_path / "bridge.toml"
    path.write_text(BRIDGE)
    # The parent of ``--workers 2`` only names the factory; its workers call it.
    parent = child(
        AT_SERVE, "serve", "--config", str(path), "--port", free_port(), "--workers", "2"
    )
    assert parent["app"] == "good_agent.server.serve:app_from_env"
    assert parent["http"] == "BatchedHTTP"  # (each worker's uvicorn serves with it)
    assert parent["frozen"] == 0
    code = """
import gc, json
from good_agent.server.serve import app_from_env
app = app_from_env()
print(json.dumps({"frozen": gc.get_freeze_count(), "threshold": gc.get_threshold(),
                  "app": type(app).__name__}))
"""
    worker = child(code, GOOD_AGENT_BRIDGE_CONFIG=str(path))
    assert worker["app"] == "BridgeApp"
    assert isinstance(worker["frozen"], int) and worker["frozen"] > 10_000
    assert worker["threshold"][0] == YOUNG_THRESHOLD  # type: ignore[index]


def test_serve_agent_settles_the_heap_once_the_app_is_built(tmp_path: Path) -> None:
    (tmp_path / "my_agent.py").write_text(AGENT_MODULE)
    seen = child(AT_SERVE, "serve-agent", "my_agent:agent", "--port", free_port(), cwd=tmp_path)
    assert seen["http"] == "BatchedHTTP"
    assert isinstance(seen["frozen"], int) and seen["frozen"] > 10_000
    assert seen["threshold"][0] == YOUNG_THRESHOLD  # type: ignore[index]


def test_mcp_over_http_settles_the_heap_once_the_app_is_built() -> None:
    target = "tests.extensions.mcp_serve_target:agent"
    seen = child(AT_SERVE, "mcp-serve", target, "--http", "--port", free_port())
    assert seen["app"] == "Starlette"
    assert seen["http"] == "BatchedHTTP"
    assert isinstance(seen["frozen"], int) and seen["frozen"] > 10_000
    assert seen["threshold"][0] == YOUNG_THRESHOLD  # type: ignore[index]
