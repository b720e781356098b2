"""``good-agent serve-agent`` as an operator meets it: the documented example with only
the ``ui`` extra, the startup report, ``--store`` checked at startup, a model failure
logged with its URL, and a scripted example that answers any number of conversations.

Each server runs in a subprocess with this checkout first on the path. "Only the ``ui``
extra" is the process with the modules of the other extras made unimportable.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from ag_ui import core as ag
from ui_harness import EVENT, refusal, run_input, served, sse_data, user

from good_agent import Agent
from good_agent.server.ui import RedisThreadStore, agent_app
from good_agent.testing import ScriptedModel

ROOT = Path(__file__).parents[2]
NOT_IN_UI = "httpx,dbos,google,redis,psycopg,respx,hypothesis,playwright,anthropic,mcp"
"""Top-level modules of the extras other than ``ui`` (and of ``dev``)."""

LAUNCH = (
    "import sys; sys.modules.update(dict.fromkeys(sys.argv.pop(1).split(','))); "
    "from good_agent.cli import main; sys.exit(main(sys.argv[1:]))"
)
"""``good-agent`` with the modules named by its first argument unimportable."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.pop("GOOD_AGENT_UI_KEYS", None)
    return {**env, "PYTHONPATH": os.pathsep.join([str(ROOT), *sys.path]), **extra}


def command(*args: str, blocked: str = "", cwd: Path = ROOT, **env: str) -> subprocess.Popen[str]:
    launcher = (
        [sys.executable, "-c", LAUNCH, blocked]
        if blocked
        else [
            sys.executable,
            "-m",
            "good_agent.cli",
        ]
    )
    return subprocess.Popen(
        [*launcher, "serve-agent", *args],
        cwd=cwd,
        env=environment(**env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def refused(*args: str, cwd: Path = ROOT, **env: str) -> str:
    """Run a ``serve-agent`` that must stop at startup: its error output."""
    process = command(*args, "--port", str(free_port()), cwd=cwd, **env)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 1, out + err
    assert "Traceback" not in err, err
    return err


@contextmanager
def serving(*args: str, blocked: str = "", cwd: Path = ROOT, **env: str) -> Iterator[Any]:
    """A running ``serve-agent``; yields (url, a function giving its stderr so far)."""
    port = free_port()
    process = command(*args, "--port", str(port), blocked=blocked, cwd=cwd, **env)
    url = f"http://127.0.0.1:{port}"
    output: list[str] = []

    def stderr() -> str:
        process.terminate()
        output.append(process.communicate(timeout=20)[1])
        return output[0]

    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None:
                pytest.fail(f"serve-agent stopped: {process.communicate()[1]}")
            assert time.monotonic() < deadline, "serve-agent did not start"
            time.sleep(0.1)
        yield url, stderr
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=20)


def post(url: str, body: dict[str, Any]) -> list[Any]:
    response = httpx.post(f"{url}/ag-ui", json=body, timeout=30)
    assert response.status_code == 200, response.text
    return [EVENT.validate_json(data) for data in sse_data(response)]


def text(events: list[Any]) -> str:
    return "".join(e.delta for e in events if isinstance(e, ag.TextMessageContentEvent))


def conversation(url: str, thread: str) -> str:
    """One conversation with the example: a question, its approval, the answer."""
    first = post(url, run_input(thread, [user("Weather, then tidy up")]))
    assert first[-1].outcome.type == "interrupt", first[-1]
    (waiting,) = first[-1].outcome.interrupts
    resume = [{"interruptId": waiting.id, "status": "resolved", "payload": {"approved": True}}]
    second = post(url, run_input(thread, [], resume=resume))
    assert isinstance(second[-1], ag.RunFinishedEvent), second[-1]
    return text(second)


def test_the_documented_command_serves_the_example_with_only_the_ui_extra() -> None:
    # ``good-agent serve-agent examples.serve_agent:shared`` after ``pip install ".[ui]"``
    with serving("examples.serve_agent:shared", blocked=NOT_IN_UI) as (url, stderr):
        assert httpx.get(url + "/").status_code == 200
        answers = [conversation(url, f"thread-{n}") for n in range(3)]
        report = stderr()
    # the scripted model answers every conversation, not only the first
    assert answers == ["Sunny in Paris, and `/tmp/old.txt` is **gone**."] * 3
    assert "examples.serve_agent:shared on http://127.0.0.1:" in report
    assert "POST /ag-ui" in report and "POST /vercel" in report and "GET /models" in report
    assert "model 'default': scripted (ScriptedModel, no upstream)" in report
    assert "store: in memory" in report
    assert "client keys: off" in report and "GOOD_AGENT_UI_KEYS" in report
    assert "warning" not in report.lower() and "Traceback" not in report


@pytest.mark.parametrize(
    ("script", "extra"),
    [("durable_run.py", "'dbos' extra"), ("bridge_gemini_and_embeddings.py", "'google' extra")],
)
def test_an_example_names_the_extra_it_needs(script: str, extra: str) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import runpy, sys; sys.modules.update(dict.fromkeys(sys.argv[1].split(','))); "
            "runpy.run_path(sys.argv[2], run_name='__main__')",
            NOT_IN_UI,
            str(ROOT / "examples" / script),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env=environment(),
        check=False,
    )
    assert result.returncode == 1
    assert extra in result.stderr and "pip install" in result.stderr
    assert "Traceback" not in result.stderr and "ModuleNotFoundError" not in result.stderr


REMOTE_AGENT = """
from good_agent import Agent

vendor = Agent("Be brief.", model="openai:gpt-4o-mini")
local = Agent("Be brief.", model="openai:llama3", base_url="{url}", api_key="sk-local-secret-99")
"""


def test_the_startup_report_names_each_model_its_upstream_and_a_missing_key(
    tmp_path: Path,
) -> None:
    (tmp_path / "remote_agent.py").write_text(REMOTE_AGENT.format(url="http://127.0.0.1:9/v1"))
    with serving("remote_agent:vendor", cwd=tmp_path) as (_, stderr):
        report = stderr()
    assert "model 'default': openai gpt-4o-mini, upstream https://api.openai.com/v1" in report
    assert "warning: model 'default': no API key for model 'gpt-4o-mini'" in report
    assert "OPENAI_API_KEY" in report

    with serving("remote_agent:vendor", cwd=tmp_path, OPENAI_API_KEY="sk-from-env-77") as (_, s):
        report = s()
    assert "warning" not in report and "sk-from-env-77" not in report

    with serving(
        "remote_agent:local",
        "--store",
        str(tmp_path / "t.db"),
        cwd=tmp_path,
        GOOD_AGENT_UI_KEYS="k1,k2",
    ) as (_, stderr):
        report = stderr()
    assert "model 'default': openai llama3, upstream http://127.0.0.1:9/v1" in report
    assert f"store: SQLite file {tmp_path / 't.db'}" in report
    assert "client keys: on (from GOOD_AGENT_UI_KEYS)" in report
    assert "sk-local-secret-99" not in report and "k1" not in report


def test_an_unreachable_upstream_is_logged_with_its_url(tmp_path: Path) -> None:
    closed = free_port()  # nothing listens there
    upstream = f"http://127.0.0.1:{closed}/v1"
    (tmp_path / "remote_agent.py").write_text(REMOTE_AGENT.format(url=upstream))
    with serving("remote_agent:local", cwd=tmp_path) as (url, stderr):
        events = post(url, run_input("t", [user("hi")]))
        log = stderr()
    assert isinstance(events[-1], ag.RunErrorEvent)
    assert "cannot be reached" in events[-1].message
    assert upstream not in events[-1].message  # the browser is not told where
    assert f"cannot reach openai at {upstream}/chat/completions" in log
    assert "WARNING" in log and "sk-local-secret-99" not in log


AGENT_MODULE = """
from good_agent import Agent
from good_agent.testing import ScriptedModel

agent = Agent(model=ScriptedModel(["First.", "Second."]))
"""


def test_store_takes_the_sqlite_url_form_and_keeps_threads_across_restarts(
    tmp_path: Path,
) -> None:
    (tmp_path / "my_agent.py").write_text(AGENT_MODULE)
    database = tmp_path / "threads.db"
    with serving("my_agent:agent", "--store", f"sqlite:///{database}", cwd=tmp_path) as (url, s):
        assert text(post(url, run_input("kept", [user("one")]))) == "First."
        assert f"store: SQLite file {database}" in s()
    assert database.exists()
    with serving("my_agent:agent", "--store", f"sqlite:///{database}", cwd=tmp_path) as (url, _):
        events = post(url, run_input("kept", [user("two")]))
    (snapshot,) = [e for e in events if isinstance(e, ag.MessagesSnapshotEvent)]
    said = [m.content for m in snapshot.messages if m.role in ("user", "assistant")]
    assert said[:2] == ["one", "First."]  # the thread outlived the restart
    relative = "sqlite:///relative.db"  # relative to the working directory
    with serving("my_agent:agent", "--store", relative, cwd=tmp_path) as (url, _):
        post(url, run_input("kept", [user("one")]))
    assert (tmp_path / "relative.db").exists()


def test_store_problems_stop_the_server_at_startup_with_a_clear_message(tmp_path: Path) -> None:
    (tmp_path / "my_agent.py").write_text(AGENT_MODULE)
    missing = tmp_path / "no-such-dir" / "threads.db"
    for spec in (str(missing), f"sqlite:///{missing}"):
        err = refused("my_agent:agent", "--store", spec, cwd=tmp_path)
        assert f"the directory {missing.parent} does not exist" in err
    err = refused("my_agent:agent", "--store", "redis://127.0.0.1:1/0", cwd=tmp_path)
    assert "--store redis://127.0.0.1:1/0: the Redis server cannot be reached" in err
    err = refused("my_agent:agent", "--store", "postgresql://u:pw@127.0.0.1:1/db", cwd=tmp_path)
    assert "the Postgres server cannot be reached" in err and "pw" not in err
    err = refused("my_agent:agent", "--store", "mysql://127.0.0.1/db", cwd=tmp_path)
    for form in ("a file path", "sqlite:///", "redis://", "postgresql://"):
        assert form in err
    (tmp_path / "not-sqlite.db").write_text("plain text, not a database " * 100)
    err = refused("my_agent:agent", "--store", "not-sqlite.db", cwd=tmp_path)
    assert "cannot open it as an SQLite database" in err


def test_store_takes_a_redis_server_that_answers(tmp_path: Path, redis_port: int) -> None:
    (tmp_path / "my_agent.py").write_text(AGENT_MODULE)
    store = f"redis://127.0.0.1:{redis_port}/0"
    with serving("my_agent:agent", "--store", store, cwd=tmp_path) as (url, stderr):
        assert text(post(url, run_input("in-redis", [user("one")]))) == "First."
        assert f"store: Redis at {store}" in stderr()


def test_help_lists_every_store_form() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "good_agent.cli", "serve-agent", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        env=environment(),
        check=True,
    )
    flat = " ".join(result.stdout.split())
    for form in ("SQLite file", "sqlite:///", "redis://", "postgresql://", "in memory"):
        assert form in flat


def test_a_store_that_fails_after_startup_is_a_500_naming_the_request_not_the_bridge(
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = RedisThreadStore("redis://127.0.0.1:1/0")  # nothing listens there
    app = agent_app(Agent(model=ScriptedModel(["never"])), store=store)
    with served(app) as server:
        status, body = refusal(server, "/ag-ui", run_input("t", [user("hi")]))
    assert status == 500
    message = body["error"]["message"]
    assert message.startswith("the agent server failed on this request")
    assert "bridge" not in message
    request_id = message.rsplit(" ", 1)[-1]
    assert any(request_id in record.getMessage() for record in caplog.records)


def test_a_refused_key_is_told_as_the_servers_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def refuse(request: Request) -> JSONResponse:
        error = {"message": "Incorrect API key provided", "type": "invalid_request_error"}
        return JSONResponse({"error": error}, status_code=401)

    upstream = Starlette(routes=[Route("/v1/chat/completions", refuse, methods=["POST"])])
    with served(upstream) as fake:
        agent = Agent(model="openai:gpt-4o-mini", base_url=f"{fake.url}/v1", api_key="sk-bad-1")
        with served(agent_app(agent)) as server:
            response = httpx.post(
                f"{server.url}/ag-ui", json=run_input("t", [user("hi")]), timeout=30
            )
    events = [EVENT.validate_json(data) for data in sse_data(response)]
    assert isinstance(events[-1], ag.RunErrorEvent)
    assert events[-1].message == (
        "upstream 'model' (openai) refused the server's credentials (HTTP 401); "
        "check the model's API key"
    )
    logged = " ".join(record.getMessage() for record in caplog.records)
    assert "ModelAuthenticationError" in logged and "sk-bad-1" not in logged
