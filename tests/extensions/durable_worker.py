"""A worker process for the durable-run tests: DBOS with a real system database.

    python durable_worker.py MODE DB_URL UPSTREAM_URL SIDE_EFFECTS [ARG]

Modes:

- ``run WORKFLOW_ID``: start the three-tool workflow and print its output (as JSON).
  With ``HANG_BEFORE_REQUEST=n`` in the environment the worker writes
  ``SIDE_EFFECTS.ready`` and hangs just before its n-th model request (the test
  kills it there).
- ``stream WORKFLOW_ID``: the same run, its messages published to the DBOS stream ``events``.
- ``approval WORKFLOW_ID``: start the workflow whose tool needs approval; print its output.
- ``recover WORKFLOW_ID[,PLAIN_ID]``: launch (DBOS recovers the pending workflows
  of this executor) and print the output of ``WORKFLOW_ID``; with ``PLAIN_ID``,
  then run the three-tool workflow uninterrupted and print both outputs.
- ``worker EXECUTOR_ID``: consume the queue ``agent_runs`` until killed.

Each tool run appends a line to SIDE_EFFECTS: the counter the tests read. Deps and
the credential come from the environment (``CANARY``), never from workflow inputs.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dbos import DBOS, SetWorkflowID
from pydantic import SecretStr

from good_agent import Agent, AuthInjector, RunContext, tool
from good_agent.core.components import AgentComponent
from good_agent.extensions.durable import Durable

MODE, DB_URL, UPSTREAM, SIDE_EFFECTS = sys.argv[1:5]
ARG = sys.argv[5] if len(sys.argv) > 5 else ""
CANARY = os.environ.get("CANARY", "no-canary")


@dataclass
class Deps:
    user: str
    token: str


def _effect(line: str) -> None:
    with open(SIDE_EFFECTS, "a") as file:
        file.write(line + "\n")
        file.flush()
        os.fsync(file.fileno())


@tool
def record(ctx: RunContext[Deps], token: SecretStr, label: str) -> str:
    """Record one step of the task."""
    assert ctx.deps.token == CANARY and token.get_secret_value() == CANARY
    _effect(f"{DBOS.workflow_id} {label}")
    return f"{label} done for {ctx.deps.user} with {token.get_secret_value()}"


@tool(requires_approval=True)
def charge(amount: int) -> str:
    """Charge the card."""
    _effect(f"{DBOS.workflow_id} charge {amount}")
    return f"charged {amount}"


def _ready() -> None:
    Path(SIDE_EFFECTS + ".ready").write_text("ready")


class HangBefore(AgentComponent):
    """Hangs before the n-th model request of this process, after saying so."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.n, self.seen = n, 0

    async def around_model_request(self, request: Any, call_next: Any) -> Any:
        self.seen += 1
        if self.seen == self.n:
            _ready()
            await asyncio.sleep(3600)
        return await call_next(request)


def agent(*tools: Any, stream: str | None = None) -> Agent[Any]:
    components: list[AgentComponent] = []
    hang = os.environ.get("HANG_BEFORE_REQUEST")
    if hang:
        components.append(HangBefore(int(hang)))
    components += [
        Durable(stream=stream),
        AuthInjector().inject("token", lambda ctx: ctx.deps.token, tools=["record"]),
    ]
    return Agent(
        model="openai:gpt-4o-mini",
        base_url=f"{UPSTREAM}/v1",
        api_key="sk-test",
        tools=list(tools),
        extensions=components,
        deps_type=Deps,
    )


@DBOS.workflow(name="three_tools")
async def three_tools(prompt: str) -> str:
    async with agent(record) as bot:
        result = await bot.run(prompt, deps=Deps("ada", CANARY))
    return str(result.output)


@DBOS.workflow(name="streamed")
async def streamed(prompt: str) -> str:
    """The three-tool run, its messages published to the DBOS stream "events"."""
    async with agent(record, stream="events") as bot:
        result = await bot.run(prompt, deps=Deps("ada", CANARY))
    return str(result.output)


@DBOS.workflow(name="needs_approval")
async def needs_approval(prompt: str) -> str:
    timeout = float(os.environ.get("APPROVAL_TIMEOUT", "60"))
    async with agent(charge) as bot:
        durable = next(c for c in bot.components if isinstance(c, Durable))
        result = await durable.run(prompt, approval_timeout=timeout, deps=Deps("ada", CANARY))
    return str(result.output)


def launch(executor_id: str = "local") -> None:
    DBOS(
        config={
            "name": "good-agent-tests",
            "system_database_url": DB_URL,
            "run_admin_server": False,
            "executor_id": executor_id,
            "application_version": "tests",
            "log_level": "WARNING",
        }
    )
    DBOS.launch()


async def main() -> None:
    if MODE == "worker":
        launch(ARG)
        # at most 4 runs at once over all workers, 2 per worker: each worker has runs in flight
        await DBOS.register_queue_async(
            "agent_runs", global_concurrency=4, worker_concurrency=2, polling_interval_sec=0.1
        )
        print("ready", flush=True)
        await asyncio.Event().wait()  # until killed
    launch()
    if MODE == "recover":
        workflow_id, _, plain_id = ARG.partition(",")
        handle = await DBOS.retrieve_workflow_async(workflow_id)
        if plain_id:  # then an uninterrupted run, to compare
            resumed = await handle.get_result()
            with SetWorkflowID(plain_id):
                handle = await DBOS.start_workflow_async(three_tools, "do the task")
            print(json.dumps([resumed, await handle.get_result()]), flush=True)
            DBOS.destroy()
            return
    else:
        workflow = {"run": three_tools, "stream": streamed, "approval": needs_approval}[MODE]
        with SetWorkflowID(ARG):
            handle = await DBOS.start_workflow_async(workflow, "do the task")
    print(json.dumps(await handle.get_result()), flush=True)
    DBOS.destroy()


if __name__ == "__main__":
    asyncio.run(main())
