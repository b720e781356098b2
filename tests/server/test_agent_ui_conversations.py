"""One shared Agent served to many threads at once (no factory): each run is a
conversation of its own, so threads overlap, never see each other's messages, and a
client that stops reading its stream does not hold up the others."""

from __future__ import annotations

import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
from ag_ui import core as ag
from ui_harness import ag_ui, run_input, served, text_of, user

from good_agent import Agent, ModelRequest, ModelResponse, ToolCall, UserMessage, tool
from good_agent.providers.streaming.deltas import FinishDelta, TextDelta
from good_agent.server.ui import agent_app
from good_agent.server.ui.threads import SQLiteThreadStore

FLOOD_CHUNK = "x" * 4096
FLOOD_CHUNKS = 6000  # 24 MiB: more than loopback socket buffers hold


class ThreadModel:
    """Echoes the user messages of each request; a prompt ``flood`` streams 24 MiB."""

    def __init__(self) -> None:
        self.requests: list[ModelRequest] = []
        self.flood_started = threading.Event()
        self.flood_done = threading.Event()

    @property
    def model_name(self) -> str:
        return "threads"

    @staticmethod
    def _said(request: ModelRequest) -> list[str]:
        return [str(m.content) for m in request.messages if isinstance(m, UserMessage)]

    async def request(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(request)
        return ModelResponse(content=" | ".join(self._said(request)), finish_reason="stop")

    async def stream(self, request: ModelRequest) -> AsyncIterator[Any]:
        self.requests.append(request)
        said = self._said(request)
        if said[-1] == "flood":
            self.flood_started.set()
            for _ in range(FLOOD_CHUNKS):
                yield TextDelta(FLOOD_CHUNK)
            self.flood_done.set()
            yield FinishDelta("stop")
            yield ModelResponse(content=FLOOD_CHUNK * FLOOD_CHUNKS, finish_reason="stop")
            return
        text = " | ".join(said)
        yield TextDelta(text)
        yield FinishDelta("stop")
        yield ModelResponse(content=text, finish_reason="stop")


def test_threads_of_one_shared_agent_run_at_once_and_keep_their_own_history() -> None:
    entered, release = threading.Event(), threading.Event()

    @tool
    def wait_here() -> str:
        """Blocks until the test lets it go."""
        entered.set()
        assert release.wait(20)
        return "released"

    class Model(ThreadModel):
        async def stream(self, request: ModelRequest) -> AsyncIterator[Any]:
            said = self._said(request)
            if said[-1] == "secret-A: block" and not any(
                m.role == "tool" for m in request.messages
            ):
                self.requests.append(request)
                response = ModelResponse(
                    tool_calls=[_call("wait_here")], finish_reason="tool_calls"
                )
                yield response
                return
            async for item in super().stream(request):
                yield item

    model = Model()
    agent = Agent("Sys.", model=model, tools=[wait_here])
    app = agent_app(agent, store=None)
    outcome: dict[str, Any] = {}
    with served(app) as server:

        def run_a() -> None:
            outcome["a"] = ag_ui(server, run_input("thread-a", [user("secret-A: block")]))

        first = threading.Thread(target=run_a)
        first.start()
        assert entered.wait(20)
        # thread A's run is in a tool call; thread B runs and finishes meanwhile
        started = time.monotonic()
        events = ag_ui(server, run_input("thread-b", [user("secret-B")]))
        assert time.monotonic() - started < 10
        assert text_of(events) == "secret-B"
        assert first.is_alive()  # A is still running
        release.set()
        first.join(20)
    assert "released" not in text_of(outcome["a"])
    for request in model.requests:
        said = " ".join(str(m.content) for m in request.messages)
        assert not ("secret-A" in said and "secret-B" in said)
    assert [m.role for m in agent.messages] == ["system"]  # the definition's own history


def _call(name: str) -> ToolCall:
    return ToolCall(id=f"call-{name}", name=name, arguments={})


def test_a_client_that_never_reads_its_stream_does_not_block_other_threads(
    tmp_path: Any,
) -> None:
    model = ThreadModel()
    agent = Agent(model=model)
    store = SQLiteThreadStore(str(tmp_path / "threads.db"))
    with served(agent_app(agent, store=store)) as server, httpx.stream(
        "POST", f"{server.url}/ag-ui", json=run_input("slow", [user("flood")]), timeout=60
    ) as stalled:
        assert stalled.status_code == 200
        assert model.flood_started.wait(20)
        time.sleep(0.5)  # the socket buffers fill up; this client reads nothing
        assert not model.flood_done.is_set(), "the run should wait for its reader"
        started = time.monotonic()
        events = ag_ui(server, run_input("other", [user("hello")]))
        assert time.monotonic() - started < 10
        assert text_of(events) == "hello"
        assert any(isinstance(e, ag.RunFinishedEvent) for e in events)
        assert not model.flood_done.is_set()
