"""A durable run on DBOS that crashes once and resumes (offline, SQLite).

The run calls three tools one after the other. The first worker process dies
(``os._exit``) in the middle of the third tool; a second process launches DBOS,
which recovers the workflow: the first two tools are not run again, their
checkpointed results are read back, and the run finishes.

Needs the dbos extra: pip install ".[dbos]"
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
from pathlib import Path

try:
    from dbos import DBOS, SetWorkflowID
except ModuleNotFoundError as exc:  # not a bare traceback: name the extra
    raise SystemExit(
        f"this example needs the 'dbos' extra ({exc.name} is not installed): pip install '.[dbos]'"
    ) from None

from good_agent import Agent, tool
from good_agent.extensions.durable import Durable
from good_agent.models.base import ModelRequest, ModelResponse
from good_agent.testing import ScriptedModel

STEPS = ("book the flight", "book the hotel", "send the itinerary")


def next_move(request: ModelRequest) -> ModelResponse:
    """The scripted model: the next step not done yet, then a summary.

    It reads the conversation (a replayed run sends the model nothing for the
    turns already answered, so the reply must not depend on a call count)."""
    done = [m.content for m in request.messages if m.role == "tool"]
    if len(done) < len(STEPS):
        return ScriptedModel.tool_call("do_step", {"step": STEPS[len(done)]}, id=f"c{len(done)}")
    return ScriptedModel.text("Trip ready: " + "; ".join(str(d) for d in done))


def worker(database: str, journal: str) -> None:
    """One worker process: run (or recover) the workflow and print its output."""

    @tool
    def do_step(step: str) -> str:
        """Do one step of the trip."""
        if step == STEPS[-1] and not Path(journal + ".crashed").exists():
            Path(journal + ".crashed").touch()
            print("worker 1: crashing in the middle of the third tool", flush=True)
            os._exit(1)  # no cleanup: like a SIGKILL
        with open(journal, "a") as file:
            file.write(step + "\n")
        return f"{step}: done"

    @DBOS.workflow(name="plan_trip")
    async def plan_trip(prompt: str) -> str:
        agent = Agent(
            model=ScriptedModel([next_move] * 10), tools=[do_step], extensions=[Durable()]
        )
        result = await agent.run(prompt)
        return str(result.output)

    crashed_before = Path(journal + ".crashed").exists()

    async def main() -> None:
        DBOS(
            config={
                "name": "durable-example",
                "system_database_url": f"sqlite:///{database}",
                "run_admin_server": False,
                "log_level": "WARNING",
            }
        )
        DBOS.launch()  # recovers this executor's unfinished workflows
        if crashed_before:
            handle = await DBOS.retrieve_workflow_async("trip-1")
        else:
            with SetWorkflowID("trip-1"):
                handle = await DBOS.start_workflow_async(plan_trip, "Plan my trip")
        print(await handle.get_result(), flush=True)
        DBOS.destroy()

    asyncio.run(main())


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "worker":
        worker(sys.argv[2], sys.argv[3])
        sys.exit(0)
    with tempfile.TemporaryDirectory() as tmp:
        database, journal = str(Path(tmp) / "dbos.sqlite"), str(Path(tmp) / "journal.txt")
        command = [sys.executable, __file__, "worker", database, journal]
        first = subprocess.run(command, capture_output=True, text=True, check=False)
        print(first.stdout.strip(), f"(exit status {first.returncode})")
        second = subprocess.run(command, capture_output=True, text=True, check=True)
        print("worker 2:", second.stdout.strip())
        ran = Path(journal).read_text().splitlines()
        print("tools that ran:", ran)
        assert ran == list(STEPS), "each tool ran exactly once"
