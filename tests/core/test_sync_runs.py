"""``run_sync`` and ``close_sync``: one event loop per agent, closed with it, no tracebacks."""

from __future__ import annotations

import asyncio
import gc
import subprocess
import sys
import textwrap
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from good_agent import Agent, AgentComponent, capture_run_messages
from good_agent.testing import ScriptedModel


class LoopWatcher(AgentComponent):
    """Records the event loop it was installed on, and whether it was uninstalled."""

    def __init__(self) -> None:
        super().__init__()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.uninstalled = False

    async def install(self, agent: Any) -> None:
        await super().install(agent)
        self.loop = asyncio.get_running_loop()

    async def uninstall(self, agent: Any) -> None:
        await super().uninstall(agent)
        self.uninstalled = True


def test_leaving_with_closes_the_agent_and_its_loop() -> None:
    watcher = LoopWatcher()
    with Agent(model=ScriptedModel(["one", "two"]), extensions=[watcher]) as agent:
        assert agent.run_sync("a").output == "one"
        assert agent.run_sync("b").output == "two"
    assert watcher.uninstalled
    assert watcher.loop is not None and watcher.loop.is_closed()


def test_close_sync_closes_the_loop_and_the_agent_stays_usable() -> None:
    first, second = LoopWatcher(), LoopWatcher()
    agent = Agent(model=ScriptedModel(["one", "two"]), extensions=[first])
    agent.run_sync("a")
    agent.close_sync()
    assert first.uninstalled and first.loop is not None and first.loop.is_closed()
    agent.components = [second]
    assert agent.run_sync("b").output == "two"  # a new loop
    agent.close_sync()
    agent.close_sync()  # closing twice is harmless
    assert second.loop is not None and second.loop.is_closed()


@pytest.mark.parametrize("inside_a_loop", [False, True])
def test_a_dropped_agent_has_its_loop_closed(inside_a_loop: bool) -> None:
    loops: list[asyncio.AbstractEventLoop] = []

    def reply(request: Any) -> str:
        loops.append(asyncio.get_running_loop())
        return "one"

    agent = Agent(model=ScriptedModel([reply]))
    agent.run_sync("a")
    del agent  # the agent is a reference cycle: the collector frees it

    async def collect() -> None:
        gc.collect()

    if inside_a_loop:  # collected while another event loop runs in this thread
        asyncio.run(collect())
    else:
        gc.collect()
    deadline = time.monotonic() + 10
    while not loops[0].is_closed() and time.monotonic() < deadline:
        time.sleep(0.01)  # the loop's own thread closes it
    assert loops[0].is_closed()


@pytest.mark.anyio
async def test_close_sync_refuses_inside_a_running_event_loop() -> None:
    agent = Agent(model=ScriptedModel(["x"]))
    with pytest.raises(RuntimeError, match="inside a running event loop"):
        agent.close_sync()
    with pytest.raises(RuntimeError, match="inside a running event loop"), agent:
        pass


SCRIPT = """
import asyncio, gc, json, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from good_agent import Agent

REPLY = json.dumps({
    "id": "r", "object": "chat.completion", "model": "m",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"},
                 "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
}).encode()

class Upstream(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: pooled connections stay open

    def do_POST(self):
        self.rfile.read(int(self.headers["content-length"]))
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(REPLY)))
        self.end_headers()
        self.wfile.write(REPLY)

    def log_message(self, *args):
        pass

server = ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
threading.Thread(target=server.serve_forever, daemon=True).start()
url = f"http://127.0.0.1:{server.server_address[1]}/v1"

for _ in range(6):
    print(Agent(model="openai:gpt-4o-mini", base_url=url, api_key="sk-test").run_sync("hi").output)

async def collect():
    gc.collect()

dropped = Agent(model="openai:gpt-4o-mini", base_url=url, api_key="sk-test")
dropped.run_sync("hi")
del dropped  # an agent is a reference cycle: freed while another event loop runs
asyncio.run(collect())
with Agent(model="openai:gpt-4o-mini", base_url=url, api_key="sk-test") as agent:
    print(agent.run_sync("hi").output)
print("ok")
"""


def test_sequential_sync_agents_leave_no_traceback_on_stderr() -> None:
    done = subprocess.run(
        [sys.executable, "-W", "always", "-c", textwrap.dedent(SCRIPT)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["hi"] * 7 + ["ok"]
    assert done.stderr == ""


def test_run_sync_from_many_threads_at_once_runs_the_calls_side_by_side() -> None:
    # A web framework's worker threads share one agent, each thread on a conversation
    # of its own: every call gets its own answer, and the calls overlap (each model
    # call waits until all have started).
    callers = 4
    started = 0
    all_started: asyncio.Event | None = None

    async def reply(request: Any) -> str:
        nonlocal started, all_started
        if all_started is None:
            all_started = asyncio.Event()
        started += 1
        if started == callers:
            all_started.set()
        await asyncio.wait_for(all_started.wait(), timeout=10)
        return f"answer to {request.messages[-1].text}"

    agent = Agent(model=ScriptedModel([reply] * callers))
    with ThreadPoolExecutor(callers) as pool:
        outputs = list(
            pool.map(lambda n: agent.conversation().run_sync(f"q{n}").output, range(callers))
        )
    agent.close_sync()
    assert outputs == [f"answer to q{n}" for n in range(callers)]


def test_run_sync_sees_the_calling_threads_context() -> None:
    agent = Agent(model=ScriptedModel(["one"]))
    with capture_run_messages() as messages:
        agent.run_sync("hello")
    agent.close_sync()
    assert [m.text for m in messages if m.role == "user"] == ["hello"]


def test_an_interrupt_while_waiting_cancels_the_run() -> None:
    cancelled = threading.Event()

    async def reply(request: Any) -> str:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "late"

    agent = Agent(model=ScriptedModel([reply]))
    loop = agent._sync_loop()
    future = asyncio.run_coroutine_threadsafe(agent.run("x"), loop.loop)
    time.sleep(0.2)
    future.cancel()  # what SyncLoop.run does when its wait is interrupted
    assert cancelled.wait(10)
    agent.close_sync()
