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
        {
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)},
        }
    ]
    return completion(
        {"role": "assistant", "content": None, "tool_calls": tool_calls}, "tool_calls"
    )


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


@pytest.fixture(scope="module")
def sqlite_crash(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, Any]]]:
    """The crash-and-resume run on an SQLite file (shared by the tests that read it)."""
    tmp_path = tmp_path_factory.mktemp("sqlite")
    server = Upstream(three_tools_reply)
    try:
        db = sqlite_url(tmp_path)
        yield db, crash_and_resume(db, server, tmp_path)
    finally:
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
        tables = [
            r[0] for r in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")
        ]
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
    plain_id = f"plain-{uuid.uuid4().hex[:8]}"
    resumed, plain = finish(worker("recover", db, upstream, effects, f"{workflow_id},{plain_id}"))
    return {
        "id": workflow_id,
        "plain_id": plain_id,
        "requests_at_kill": requests_at_kill,
        "effects_at_kill": effects_at_kill,
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
    # The recovered run sent only requests 3 and 4 (none already answered again),
    # then the uninterrupted run its 4.
    assert seen["requests_total"] == 8
    asked = [json.dumps(body["messages"], sort_keys=True) for body in seen["bodies"]]
    assert len(set(asked[:4])) == 4 and asked[4:] == asked[:4]
    assert seen["resumed"] == seen["plain"]
    assert seen["resumed"].count("done for ada") == 3


def test_a_run_killed_after_its_second_tool_resumes_without_repeats_sqlite(
    sqlite_crash: tuple[str, dict[str, Any]],
) -> None:
    assert_resumed_without_repeats(sqlite_crash[1])


def assert_no_canary(seen: dict[str, Any], values: list[str]) -> None:
    # the tools received the canary and returned it; what the model saw was redacted
    assert seen["resumed"].count("with [REDACTED]") == 3
    assert CANARY not in json.dumps(seen["bodies"])
    assert any("good_agent.tool_call" in v for v in values)  # the steps are stored
    # the tool results are checkpointed, redacted
    assert leaked(values, "gamma done for ada with [REDACTED]")
    assert leaked(values, CANARY) == []


def test_deps_and_injected_credentials_never_reach_the_sqlite_database(
    sqlite_crash: tuple[str, dict[str, Any]],
) -> None:
    db, seen = sqlite_crash
    assert_no_canary(seen, sqlite_dump(db))
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


# -- Postgres ----------------------------------------------------------------


def postgres_dump(url: str) -> list[str]:
    """Every value of every table outside Postgres's own schemas, as text."""
    import psycopg

    with psycopg.connect(url) as connection:
        tables = connection.execute(
            "SELECT table_schema, table_name FROM information_schema.tables "
            "WHERE table_schema NOT IN ('pg_catalog', 'information_schema')"
        ).fetchall()
        assert tables, "the DBOS schema has no tables"
        return [
            str(value)
            for schema, table in tables
            for row in connection.execute(f'SELECT * FROM "{schema}"."{table}"').fetchall()
            for value in row
        ]


@pytest.fixture(scope="module")
def postgres_crash(
    postgres_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, dict[str, Any]]]:
    """The crash-and-resume run on the Postgres server."""
    tmp_path = tmp_path_factory.mktemp("postgres")
    server = Upstream(three_tools_reply)
    try:
        yield postgres_url, crash_and_resume(postgres_url, server, tmp_path)
    finally:
        server.close()


def test_a_run_killed_after_its_second_tool_resumes_without_repeats_postgres(
    postgres_crash: tuple[str, dict[str, Any]],
) -> None:
    assert_resumed_without_repeats(postgres_crash[1])


def test_deps_and_injected_credentials_never_reach_the_postgres_database(
    postgres_crash: tuple[str, dict[str, Any]],
) -> None:
    db, seen = postgres_crash
    assert_no_canary(seen, postgres_dump(db))


def test_two_workers_complete_twenty_queued_runs_once_each_when_one_is_killed(
    postgres_url: str, tmp_path: Path
) -> None:
    from dbos import DBOSClient

    requests, held, hold, killed = [0], [0], threading.Event(), threading.Event()
    lock = threading.Lock()

    def slow(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with lock:
            requests[0] += 1
        if hold.is_set() and not killed.is_set():
            # Once held, every run waits on the model until the kill: the kill lands
            # between steps, never inside a tool's step (a step cut short runs
            # again on recovery: at least once, by design).
            with lock:
                held[0] += 1
            assert killed.wait(300), "the held request was never released"
        time.sleep(0.02)
        return three_tools_reply(body)

    upstream = Upstream(slow)
    effects = tmp_path / "effects.txt"
    workers = {
        name: worker("worker", postgres_url, upstream, effects, name) for name in ("w1", "w2")
    }
    client = DBOSClient(system_database_url=postgres_url)
    try:
        for process in workers.values():
            assert process.stdout is not None
            assert process.stdout.readline().strip() == "ready"
        batch = uuid.uuid4().hex[:6]
        handles = [
            client.enqueue(
                {
                    "queue_name": "agent_runs",
                    "workflow_name": "three_tools",
                    "workflow_id": f"q{batch}-{n}",
                },
                "do the task",
            )
            for n in range(20)
        ]

        def in_flight(executor: str) -> set[str]:
            found = client.list_workflows(
                workflow_id_prefix=f"q{batch}-",
                status="PENDING",
                executor_id=executor,
                load_input=False,
                load_output=False,
            )
            return {status.workflow_id for status in found}

        deadline = time.monotonic() + 60
        while requests[0] < 8 or not in_flight("w1"):
            assert time.monotonic() < deadline, "the first worker took no run"
            time.sleep(0.01)
        hold.set()
        # Tools already running finish; their runs then wait on the model too, and
        # runs taken from the queue from now on wait at their first request. Each
        # held request is a PENDING run, so when the held count equals the count of
        # PENDING runs (unchanged around the listing), no run is inside a tool; the
        # first worker must hold some (it takes new runs if its runs just ended).
        deadline = time.monotonic() + 120
        while True:
            before = held[0]
            cut, other = in_flight("w1"), in_flight("w2")
            if cut and before == held[0] == len(cut | other):
                break
            assert time.monotonic() < deadline, (
                f"{held[0]} requests held, runs in flight: {len(cut)} on the first "
                f"worker, {len(other)} on the second: a run never reached its next "
                "model request"
            )
            time.sleep(0.05)
        kill(workers["w1"])
        killed.set()
        # The killed worker's runs are PENDING under executor id w1: a process
        # launched with that id recovers them (as a restarted worker does; DBOS puts
        # a recovered queued run back on its queue, so either worker may finish it).
        workers["w1"] = worker("worker", postgres_url, upstream, effects, "w1")
        outputs = [handle.get_result() for handle in handles]
        statuses = {handle.get_status().status for handle in handles}
    finally:
        killed.set()  # release any held request, so the upstream can close
        client.destroy()
        for process in workers.values():
            if process.poll() is None:
                kill(process)
        upstream.close()
    expected = " | ".join(f"{label} done for ada with [REDACTED]" for label in LABELS)
    assert outputs == [expected] * 20
    assert statuses == {"SUCCESS"}
    lines = effects_of(effects)
    for handle in handles:
        mine = [line for line in lines if line.startswith(handle.workflow_id + " ")]
        assert mine == [f"{handle.workflow_id} {label}" for label in LABELS]


# -- approvals ---------------------------------------------------------------


def decide(db: str, workflow_id: str, decision: str) -> list[str]:
    """Approve or deny (with a reason) the waiting calls from this process, as an
    approver's process does: a ``DBOSClient``, no DBOS launch."""
    from dbos import DBOSClient

    from good_agent.extensions.durable import send_decision, waiting_calls

    client = DBOSClient(system_database_url=db)
    try:
        pending = waiting_calls(workflow_id, client=client)
        for waiting in pending:
            choice = waiting.approve() if decision == "approve" else decision
            send_decision(workflow_id, waiting.call_id, choice, client=client)
        return [waiting.call_id for waiting in pending]
    finally:
        client.destroy()


def test_a_waiting_approval_survives_a_crash_and_concurrent_approvals_run_the_tool_once(
    tmp_path: Path,
) -> None:
    db, effects = sqlite_url(tmp_path), tmp_path / "effects.txt"
    upstream = Upstream(approval_reply)
    workflow_id = f"approval-{uuid.uuid4().hex[:8]}"
    decided: list[list[str]] = []
    try:
        first = worker("approval", db, upstream, effects, workflow_id)
        from dbos import DBOSClient

        from good_agent.extensions.durable import PENDING_EVENT

        client = DBOSClient(system_database_url=db)
        try:
            pending = client.get_event(workflow_id, PENDING_EVENT, 60)
        finally:
            client.destroy()
        assert [(p.call_id, p.tool_name, p.arguments) for p in pending] == [
            ("call_charge", "charge", {"amount": 42})
        ]
        kill(first)  # the run was waiting: it waits on in the database
        second = worker("recover", db, upstream, effects, workflow_id)
        approvers = [
            threading.Thread(target=lambda: decided.append(decide(db, workflow_id, "approve")))
            for _ in range(2)
        ]
        for approver in approvers:
            approver.start()
        for approver in approvers:
            approver.join(60)
        output = finish(second)
        again = decide(db, workflow_id, "approve")
    finally:
        upstream.close()
    assert decided == [["call_charge"], ["call_charge"]]  # both approvals were sent
    assert output == "Done: charged 42"
    assert effects_of(effects) == [f"{workflow_id} charge 42"]
    assert again == []  # nothing waits any more
    assert len(upstream.bodies) == 2  # the request answered before the crash was not resent


def test_a_durable_run_denied_from_another_process_runs_nothing(tmp_path: Path) -> None:
    db, effects = sqlite_url(tmp_path), tmp_path / "effects.txt"
    upstream = Upstream(approval_reply)
    workflow_id = f"deny-{uuid.uuid4().hex[:8]}"
    try:
        run = worker("approval", db, upstream, effects, workflow_id)
        decided = decide(db, workflow_id, "not today")
        output = finish(run)
    finally:
        upstream.close()
    assert decided == ["call_charge"]
    assert output == "Done: Error: The user denied this tool call: not today"
    assert effects_of(effects) == []


def test_a_call_with_no_decision_in_time_is_denied(tmp_path: Path) -> None:
    db, effects = sqlite_url(tmp_path), tmp_path / "effects.txt"
    upstream = Upstream(approval_reply)
    try:
        run = worker("approval", db, upstream, effects, "timeout", APPROVAL_TIMEOUT="0.5")
        output = finish(run)
    finally:
        upstream.close()
    assert output == "Done: Error: The user denied this tool call: no decision within 0.5 seconds"
    assert effects_of(effects) == []


# -- streaming ---------------------------------------------------------------


def test_a_live_listener_sees_each_message_once_across_a_crash(
    upstream: Upstream, tmp_path: Path
) -> None:
    from dbos import DBOSClient

    db, effects = sqlite_url(tmp_path), tmp_path / "effects.txt"
    workflow_id = f"stream-{uuid.uuid4().hex[:8]}"
    first = worker("stream", db, upstream, effects, workflow_id, HANG_BEFORE_REQUEST="3")
    wait_for(Path(f"{effects}.ready"), first)
    client = DBOSClient(system_database_url=db)
    received: list[dict[str, Any]] = []

    def listen() -> None:
        for record in client.read_stream(workflow_id, "events", polling_interval_sec=0.05):
            received.append(record)

    listener = threading.Thread(target=listen, daemon=True)
    try:
        listener.start()
        deadline = time.monotonic() + 30
        while len(received) < 5:
            assert time.monotonic() < deadline, f"the listener got {received}"
            time.sleep(0.02)
        kill(first)
        before = list(received)
        output = finish(worker("recover", db, upstream, effects, workflow_id))
        listener.join(30)
    finally:
        client.destroy()
    assert not listener.is_alive()  # the stream ends with the workflow
    roles = [record["role"] for record in received]
    assert roles == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
    ]
    assert received[:5] == before[:5] and len(before) == 5
    assert received[-1]["content"] == output
    assert [r["tool_call_id"] for r in received if r["role"] == "tool"] == [
        f"call_{label}" for label in LABELS
    ]
    assert leaked([json.dumps(received)], CANARY) == []
