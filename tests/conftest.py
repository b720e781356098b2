"""Shared test configuration: async tests run on asyncio through anyio's pytest plugin;
a real ``redis-server`` (the Redis tests) and a real Postgres server (the durable-run
tests), each on a free loopback port."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# On a loaded machine (CI, or tests beside other work on two cores) drawing examples
# can be slow: that is no failure of the code under test. Timing is never asserted.
settings.register_profile("good-agent", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("good-agent")


@pytest.fixture
def anyio_backend() -> str:
    """Run ``@pytest.mark.anyio`` tests on asyncio."""
    return "asyncio"


class FakeUpstream:
    """An HTTP server on loopback that answers POSTs from a script of replies.

    Each reply is ``(status, json_body)``, ``(status, payload, headers)`` (a ``bytes``
    payload is sent as it is, with the headers given, say an event stream), or a
    callable taking the request body and returning one. ``bodies`` keeps every JSON
    body received, ``paths`` the paths, ``headers`` the request headers (names in
    lower case).
    """

    def __init__(self, replies: list[Any]) -> None:
        self.replies = list(replies)
        self.bodies: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.headers: list[dict[str, str]] = []
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                upstream.bodies.append(body)
                upstream.paths.append(self.path)
                upstream.headers.append({k.lower(): v for k, v in self.headers.items()})
                reply = (
                    upstream.replies.pop(0) if upstream.replies else (500, {"error": "no reply"})
                )
                status, payload, *extra = reply(body) if callable(reply) else reply
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                headers = {
                    "content-type": "application/json",
                    "content-length": str(len(data)),
                    **(extra[0] if extra else {}),
                }
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        """Stop serving."""
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fake_upstream() -> Iterator[Callable[[list[Any]], FakeUpstream]]:
    """Start fake upstreams on loopback; all are stopped after the test."""
    started: list[FakeUpstream] = []

    def start(replies: list[Any]) -> FakeUpstream:
        upstream = FakeUpstream(replies)
        started.append(upstream)
        return upstream

    yield start
    for upstream in started:
        upstream.close()


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _answers_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@pytest.fixture(scope="session")
def redis_server_binary() -> str:
    """The ``redis-server`` binary; skip the test without it (fail when ``CI`` is set).

    The reason is printed in the summary (``-rs`` in the project's pytest options).
    """
    binary = shutil.which("redis-server")
    if binary is None:
        message = "redis-server is not on PATH (apt-get install -y redis-server)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return binary


@pytest.fixture(scope="session")
def redis_port(redis_server_binary: str) -> Iterator[int]:
    """Start ``redis-server`` for the session on a free loopback port."""
    binary = redis_server_binary
    port = _free_port()
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while not _answers_ping(port):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"redis-server did not start on port {port}")
            time.sleep(0.02)
        yield port
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _postgres_bin_dir() -> Path | None:
    """The directory of ``initdb`` and ``pg_ctl``: on PATH, else Debian's layout."""
    found = shutil.which("initdb")
    if found is not None and shutil.which("pg_ctl") is not None:
        return Path(found).resolve().parent
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), reverse=True)
    return versions[0].parent if versions else None


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A Postgres server for the session, in a temporary directory on a free loopback
    port (``initdb`` + ``pg_ctl``); yields the URL of a database for DBOS.

    Skipped with a printed reason when the binaries are missing (failed when ``CI``
    is set). Postgres refuses to run as root: as root it runs as the ``postgres``
    user (else ``nobody``).
    """
    bin_dir = _postgres_bin_dir()
    if bin_dir is None:
        message = "Postgres (initdb, pg_ctl) is not installed (apt-get install -y postgresql)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    prefix: list[str] = []
    base = Path(tempfile.mkdtemp(prefix="good-agent-pg-"))
    if os.geteuid() == 0:
        user = "postgres"
        try:
            pwd.getpwnam(user)
        except KeyError:
            user = "nobody"
        prefix = ["runuser", "-u", user, "--"]
        os.chown(base, pwd.getpwnam(user).pw_uid, -1)
    data, port = base / "data", _free_port()
    subprocess.run(
        [*prefix, str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust"],
        check=True,
        capture_output=True,
        timeout=120,
    )
    options = f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c fsync=off"
    subprocess.run(
        [
            *prefix,
            str(bin_dir / "pg_ctl"),
            "-D",
            str(data),
            "-o",
            options,
            "-w",
            "-t",
            "60",
            "-l",
            str(base / "log"),
            "start",
        ],
        check=True,
        capture_output=True,
        timeout=90,
    )
    try:
        subprocess.run(
            [
                str(bin_dir / "createdb"),
                "-h",
                "127.0.0.1",
                "-p",
                str(port),
                "-U",
                "postgres",
                "good_agent_dbos",
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )
        yield f"postgresql://postgres@127.0.0.1:{port}/good_agent_dbos"
    finally:
        subprocess.run(
            [*prefix, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
            capture_output=True,
            timeout=60,
        )
        shutil.rmtree(base, ignore_errors=True)
