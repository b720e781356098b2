"""Durable runs on DBOS, with real worker processes and real system databases.

Each worker is ``durable_worker.py`` in a subprocess; the model is an OpenAI-shaped
upstream on loopback in this process, which counts the requests it answers. The
system database is an SQLite file, or a Postgres server started for the session
(``postgres_url``, skipped with a printed reason when its binaries are missing).
"""

from __future__ import annotations

import base64
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FakeUpstream

WORKER = Path(__file__).parent / "durable_worker.py"
ROOT = Path(__file__).parent.parent.parent
CANARY = "canary-5e1f0b-durable-do-not-leak"
LABELS = ("alpha", "beta", "gamma")


def completion(message: dict[str, Any], finish: str) -> tuple[int, dict[str, Any]]:
    return 200, {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "gpt-4o-mini",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13},
    }


def call(name: str, arguments: dict[str, Any], call_id: str) -> tuple[int, dict[str, Any]]:
    tool_calls = [
        {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
    ]
    return completion({"role": "assistant", "content": None, "tool_calls": tool_calls}, "tool_calls")


def three_tools_reply(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """Call ``record`` for alpha, beta, gamma in turn, then answer with what they said."""
    results = [m["content"] for m in body["messages"] if m["role"] == "tool"]
    if len(results) < len(LABELS):
        label = LABELS[len(results)]
        return call("record", {"label": label}, f"call_{label}")
    return completion({"role": "assistant", "content": " | ".join(results)}, "stop")


def approval_reply(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    results = [m["content"] for m in body["messages"] if m["role"] == "tool"]
    if not results:
        return call("charge", {"amount": 42}, "call_charge")
    return completion({"role": "assistant", "content": f"Done: {results[0]}"}, "stop")


class Upstream(FakeUpstream):
    """A fake upstream that answers every request with ``reply(body)``."""

    def __init__(self, reply: Callable[[dict[str, Any]], tuple[int, dict[str, Any]]]) -> None:
        super().__init__([])
        self.reply = reply
        self.replies = _Endless(reply)


class _Endless(list[Any]):
    def __init__(self, reply: Any) -> None:
        super().__init__([reply])
        self.reply = reply

    def pop(self, index: Any = -1) -> Any:
        return self.reply


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    server = Upstream(three_tools_reply)
    yield server
    server.close()


def worker(
    mode: str, db: str, upstream: FakeUpstream, effects: Path, arg: str, **env: str
) -> subprocess.Popen[str]:
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "CANARY": CANARY,
        **env,
    }
    return subprocess.Popen(
        [sys.executable, str(WORKER), mode, db, upstream.url, str(effects), arg],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
        cwd=ROOT,
    )


def finish(process: subprocess.Popen[str], timeout: float = 60) -> Any:
    out, err = process.communicate(timeout=timeout)
    assert process.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def wait_for(path: Path, process: subprocess.Popen[str], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if process.poll() is not None:
            pytest.fail(f"the worker ended early: {process.communicate()[1]}")
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.05)


def kill(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=30)


def effects_of(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


# -- the databases -----------------------------------------------------------


def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'dbos.sqlite'}"


def sqlite_dump(url: str) -> list[str]:
    """Every value of every table of the SQLite system database, as text."""
    connection = sqlite3.connect(url.removeprefix("sqlite:///"))
    try:
        tables = [r[0] for r in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return [
            str(value)
            for table in tables
            for row in connection.execute(f'SELECT * FROM "{table}"')
            for value in row
        ]
    finally:
        connection.close()


def file_bytes(url: str) -> bytes:
    """The bytes of the SQLite file and its journal files."""
    base = Path(url.removeprefix("sqlite:///"))
    return b"".join(p.read_bytes() for p in base.parent.glob(base.name + "*"))


def leaked(values: list[str], canary: str) -> list[str]:
    """The stored values that hold ``canary``, as text or inside a base64 pickle."""
    found = []
    needle = canary.encode()
    for value in values:
        if canary in value:
            found.append(value)
            continue
        try:
            decoded = base64.b64decode(value, validate=True)
        except ValueError:
            continue
        if needle in decoded:
            found.append(value)
    return found


# -- crash and resume --------------------------------------------------------


def crash_and_resume(db: str, upstream: Upstream, tmp_path: Path) -> dict[str, Any]:
    """Run the three-tool workflow, SIGKILL it after the 2nd tool, recover it in a new
    process; then one uninterrupted run. Returns what the tests check."""
    effects = tmp_path / "effects.txt"
    workflow_id = f"crash-{uuid.uuid4().hex[:8]}"
    first = worker("run", db, upstream, effects, workflow_id, HANG_BEFORE_REQUEST="3")
    wait_for(Path(f"{effects}.ready"), first)
    requests_at_kill = len(upstream.bodies)
    kill(first)
    effects_at_kill = effects_of(effects)
    resumed = finish(worker("recover", db, upstream, effects, workflow_id))
    requests_resumed = len(upstream.bodies)
    plain_id = f"plain-{uuid.uuid4().hex[:8]}"
    plain = finish(worker("run", db, upstream, effects, plain_id))
    return {
        "id": workflow_id,
        "plain_id": plain_id,
        "requests_at_kill": requests_at_kill,
        "effects_at_kill": effects_at_kill,
        "requests_resumed": requests_resumed,
        "requests_total": len(upstream.bodies),
        "effects": effects_of(effects),
        "resumed": resumed,
        "plain": plain,
        "bodies": list(upstream.bodies),
    }


def assert_resumed_without_repeats(seen: dict[str, Any]) -> None:
    crash_id = seen["id"]
    assert seen["effects_at_kill"] == [f"{crash_id} alpha", f"{crash_id} beta"]
    assert seen["requests_at_kill"] == 2
    # alpha and beta did not run again; gamma ran once
    mine = [line for line in seen["effects"] if line.startswith(crash_id)]
    assert mine == [f"{crash_id} alpha", f"{crash_id} beta", f"{crash_id} gamma"]
    # the recovered process sent only requests 3 and 4: none already answered again
    assert seen["requests_resumed"] == 4
    asked = [json.dumps(body["messages"], sort_keys=True) for body in seen["bodies"][:4]]
    assert len(set(asked)) == 4
    assert seen["resumed"] == seen["plain"]
    assert seen["resumed"].count("done for ada") == 3
    assert seen["requests_total"] == 8


def test_a_run_killed_after_its_second_tool_resumes_without_repeats_sqlite(
    upstream: Upstream, tmp_path: Path
) -> None:
    seen = crash_and_resume(sqlite_url(tmp_path), upstream, tmp_path)
    assert_resumed_without_repeats(seen)


def test_deps_and_injected_credentials_never_reach_the_sqlite_database(
    upstream: Upstream, tmp_path: Path
) -> None:
    db = sqlite_url(tmp_path)
    seen = crash_and_resume(db, upstream, tmp_path)
    # the tools received the canary and returned it; the model saw it redacted
    assert CANARY not in json.dumps(seen["bodies"])
    assert "[REDACTED]" in seen["resumed"] or "***" in seen["resumed"]
    values = sqlite_dump(db)
    assert any("good_agent.tool_call" in v for v in values)  # the steps are there
    assert leaked(values, CANARY) == []
    assert CANARY.encode() not in file_bytes(db)


def test_the_canary_scan_finds_a_value_that_was_stored(tmp_path: Path) -> None:
    """The scan reads DBOS's encoding: a stored canary is found (so a clean scan means
    something)."""
    db = sqlite_url(tmp_path)
    script = (
        "import sys\n"
        "from dbos import DBOS\n"
        "DBOS(config={'name': 'scan-check', 'system_database_url': sys.argv[1], "
        "'run_admin_server': False, 'log_level': 'WARNING'})\n"
        "@DBOS.step()\n"
        "def leak() -> str:\n"
        f"    return 'x {CANARY} y'\n"
        "@DBOS.workflow()\n"
        "def flow() -> None:\n"
        "    leak()\n"
        "DBOS.launch()\n"
        "flow()\n"
        "DBOS.destroy()\n"
    )
    subprocess.run([sys.executable, "-c", script, db], check=True, timeout=60, cwd=tmp_path)
    assert leaked(sqlite_dump(db), CANARY)
