"""What a durable run adds per step: SQLite and Postgres next to a plain run.

A run of ``CALLS`` sequential tool calls (``CALLS + 1`` model requests, so
``2 * CALLS + 1`` steps) on a ``ScriptedModel``, with ``Durable()`` installed:

* ``plain``: ``agent.run`` outside a workflow (Durable does nothing);
* ``durable``: the same run inside a DBOS workflow, each request and call a step
  checkpointed in the system database;
* ``DBOS alone``: a workflow of as many empty async steps, for scale: what DBOS
  itself costs per step on that database.

Each backend runs in a process of its own (one DBOS instance per process), where
rounds interleave the plain and the durable run; medians of wall time (the
checkpoints are database writes, so wall time is what they cost). The figure is
``(durable - plain) / steps``.

SQLite is a file in a temporary directory. Postgres is the server at
``DBOS_POSTGRES_URL``, else one started here with ``initdb`` + ``pg_ctl`` in a
temporary directory (skipped when the binaries are missing).

Run: ``python benchmarks/durable.py``
"""

from __future__ import annotations

import json
import os
import platform
import pwd
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CALLS = 10
ROUNDS = 15


def measure(url: str) -> dict[str, Any]:
    """In a worker process: interleaved plain and durable runs on the database at ``url``."""
    import anyio
    from dbos import DBOS, SetWorkflowID

    from good_agent import Agent, tool
    from good_agent.extensions.durable import Durable
    from good_agent.models.base import ModelRequest, ModelResponse
    from good_agent.testing import ScriptedModel

    @tool
    def step(n: int) -> str:
        """One step."""
        return f"step {n} done"

    def reply(request: ModelRequest) -> ModelResponse:
        done = sum(1 for m in request.messages if m.role == "tool")
        if done < CALLS:
            return ScriptedModel.tool_call("step", {"n": done}, id=f"c{done}")
        return ScriptedModel.text("all done")

    def agent() -> Agent[Any]:
        model = ScriptedModel([reply] * (CALLS + 1))
        return Agent(model=model, tools=[step], extensions=[Durable()], max_iterations=CALLS + 1)

    @DBOS.workflow(name="bench_run")
    async def bench_run(prompt: str) -> str:
        async with agent() as bot:
            return str((await bot.run(prompt)).output)

    @DBOS.step(name="bench_empty_step")
    async def empty_step(n: int) -> str:
        return f"step {n} done"

    @DBOS.workflow(name="bench_floor")
    async def bench_floor(steps: int) -> str:
        for n in range(steps):
            await empty_step(n)
        return "all done"

    async def plain() -> float:
        started = time.perf_counter()
        async with agent() as bot:
            await bot.run("go")
        return time.perf_counter() - started

    async def durable() -> float:
        started = time.perf_counter()
        with SetWorkflowID(f"bench-{uuid.uuid4().hex}"):
            handle = await DBOS.start_workflow_async(bench_run, "go")
        assert await handle.get_result() == "all done"
        return time.perf_counter() - started

    async def floor() -> float:
        started = time.perf_counter()
        with SetWorkflowID(f"floor-{uuid.uuid4().hex}"):
            handle = await DBOS.start_workflow_async(bench_floor, 2 * CALLS + 1)
        assert await handle.get_result() == "all done"
        return time.perf_counter() - started

    async def rounds() -> dict[str, list[float]]:
        times: dict[str, list[float]] = {"plain": [], "durable": [], "floor": []}
        await plain(), await durable(), await floor()  # warm-up
        for _ in range(ROUNDS):
            times["plain"].append(await plain())
            times["durable"].append(await durable())
            times["floor"].append(await floor())
        return times

    DBOS(
        config={
            "name": "durable-bench",
            "system_database_url": url,
            "run_admin_server": False,
            "log_level": "WARNING",
        }
    )
    DBOS.launch()
    try:
        times = anyio.run(rounds)
    finally:
        DBOS.destroy()
    steps = 2 * CALLS + 1
    plain_s, durable_s = statistics.median(times["plain"]), statistics.median(times["durable"])
    floor_s = statistics.median(times["floor"])
    return {
        "plain_ms": plain_s * 1e3,
        "durable_ms": durable_s * 1e3,
        "floor_ms": floor_s * 1e3,
        "steps": steps,
        "added_per_step_ms": (durable_s - plain_s) / steps * 1e3,
        "floor_per_step_ms": floor_s / steps * 1e3,
    }


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def postgres() -> Iterator[str | None]:
    """The URL of a Postgres database: ``DBOS_POSTGRES_URL`` or a temporary server."""
    if os.environ.get("DBOS_POSTGRES_URL"):
        yield os.environ["DBOS_POSTGRES_URL"]
        return
    initdb = shutil.which("initdb") or next(
        (str(p) for p in Path("/usr/lib/postgresql").glob("*/bin/initdb")), None
    )
    if initdb is None:
        yield None
        return
    bin_dir = Path(initdb).resolve().parent
    base = Path(tempfile.mkdtemp(prefix="durable-bench-pg-"))
    prefix: list[str] = []
    if os.geteuid() == 0:  # Postgres refuses to run as root
        prefix = ["runuser", "-u", "postgres", "--"]
        os.chown(base, pwd.getpwnam("postgres").pw_uid, -1)
    data, port = base / "data", _free_port()
    quiet: dict[str, Any] = {"check": True, "capture_output": True}
    subprocess.run([*prefix, str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres",
                    "--auth=trust"], **quiet)  # fmt: skip
    options = f"-p {port} -k {base} -c listen_addresses=127.0.0.1"
    subprocess.run([*prefix, str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options, "-w",
                    "-l", str(base / "log"), "start"], **quiet)  # fmt: skip
    try:
        subprocess.run([str(bin_dir / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U",
                        "postgres", "durable_bench"], **quiet)  # fmt: skip
        yield f"postgresql://postgres@127.0.0.1:{port}/durable_bench"
    finally:
        subprocess.run([*prefix, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "fast",
                        "stop"], capture_output=True)  # fmt: skip
        shutil.rmtree(base, ignore_errors=True)


def run_backend(url: str) -> dict[str, Any]:
    """:func:`measure` in a process of its own."""
    out = subprocess.run(
        [sys.executable, __file__, "--measure", url], capture_output=True, text=True, check=True
    )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--measure":
        print(json.dumps(measure(sys.argv[2])))
        return
    print(f"Python {platform.python_version()}, {CALLS} sequential tool calls per run, "
          f"medians of {ROUNDS} interleaved rounds (wall time)\n")  # fmt: skip
    header = ["plain run", "durable run", "added per step", "DBOS alone per step"]
    print(f"{'backend':<10}" + "".join(f"{h:>21}" for h in header))
    with tempfile.TemporaryDirectory() as tmp:
        results = {"SQLite": run_backend(f"sqlite:///{Path(tmp) / 'dbos.sqlite'}")}
    with postgres() as url:
        if url is None:
            print("(Postgres skipped: initdb/pg_ctl not found; set DBOS_POSTGRES_URL)")
        else:
            results["Postgres"] = run_backend(url)
    for name, r in results.items():
        cells = [r["plain_ms"], r["durable_ms"], r["added_per_step_ms"], r["floor_per_step_ms"]]
        print(f"{name:<10}" + "".join(f"{c:>19.2f}ms" for c in cells))


if __name__ == "__main__":
    main()
