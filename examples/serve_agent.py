"""Serve an agent to user interfaces: AG-UI, the Vercel AI UI stream and a chat page.

Offline, with a scripted model. ``python examples/serve_agent.py`` starts the app on a
loopback port, asks it one question over AG-UI as the user ``ada``, shows that another
user cannot approve (or even see) ada's thread, approves the call that needs it, prints
the events and exits. ``python examples/serve_agent.py --serve`` keeps it running: open
http://127.0.0.1:7286/ for the chat page (or ``good-agent serve-agent
examples.serve_agent:shared``, run from the checkout). It needs only the ``ui`` extra
(``pip install ".[ui]"``).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import httpx2
from ag_ui import core as ag
from pydantic import TypeAdapter
from starlette.requests import Request

# --8<-- [start:app]
from good_agent import Agent, ModelRequest, RunContext, tool
from good_agent.messages import ToolMessage
from good_agent.server.background import BackgroundServer
from good_agent.server.ui import agent_app
from good_agent.testing import ScriptedModel, StreamedReply


@dataclass
class Deps:
    user: str


@tool
def get_weather(city: str) -> str:
    """Weather for a city."""
    return f"Sunny, 21 °C in {city}"


@tool(requires_approval=True)
def delete_file(ctx: RunContext[Deps], path: str) -> str:
    """Delete a file."""
    # ``good-agent serve-agent`` builds the app itself, with no deps hook: no user then
    who = ctx.deps.user if ctx.deps is not None else "someone"
    return f"{who} deleted {path}"


def tidy_up(request: ModelRequest) -> StreamedReply:
    """The scripted model's next reply, read off the conversation so far: look up the
    weather, then delete the file (which waits for the user's approval), then answer."""
    last = request.messages[-1]
    if not isinstance(last, ToolMessage):  # a new question
        return ScriptedModel.streamed(
            "Checking. ", ScriptedModel.call("get_weather", {"city": "Paris"})
        )
    if last.tool_name == "get_weather":
        return ScriptedModel.streamed(ScriptedModel.call("delete_file", {"path": "/tmp/old.txt"}))
    if last.is_error or "denied" in last.content:
        return ScriptedModel.streamed("Sunny in Paris; ", "/tmp/old.txt is **still there**.")
    return ScriptedModel.streamed("Sunny in Paris, ", "and `/tmp/old.txt` is **gone**.")


def build_agent() -> Agent:
    """A scripted model, a tool, and a tool that needs the user's approval. The model
    answers every conversation (``repeat=True``: its one entry serves every request)."""
    model = ScriptedModel([tidy_up], repeat=True)
    return Agent("You tidy up.", model=model, tools=[get_weather, delete_file], deps_type=Deps)


def user_of(request: Request) -> str:
    """The signed-in user; here a header that a login proxy in front would set."""
    return request.headers.get("x-user", "guest")


# An Agent serves its threads one run at a time (a function returning a new agent
# would give each run its own).
# `owner` makes each thread its starter's: another user naming it gets a 404.
shared = build_agent()
app = agent_app(
    shared,
    deps=lambda request: Deps(user=user_of(request)),
    owner=user_of,
)
# --8<-- [end:app]

EVENT: TypeAdapter[ag.Event] = TypeAdapter(ag.Event)


def post(server: BackgroundServer, body: dict, user: str = "ada") -> list:
    response = httpx2.post(f"{server.url}/ag-ui", json=body, headers={"x-user": user}, timeout=30)
    response.raise_for_status()
    lines = [line[6:] for line in response.text.splitlines() if line.startswith("data: ")]
    return [EVENT.validate_json(line) for line in lines]


def show(events: list) -> None:
    for event in events:
        detail = getattr(event, "delta", None) or getattr(event, "content", None) or ""
        print(f"  {event.type.value:<20} {detail}")


def main() -> None:
    with BackgroundServer(app) as server:
        # --8<-- [start:client]
        first = post(
            server,
            {
                "threadId": "t1",
                "runId": "r1",
                "messages": [{"id": "u1", "role": "user", "content": "Weather, then tidy up"}],
            },
        )
        show(first)
        (waiting,) = first[-1].outcome.interrupts  # the call needing approval, by its id
        print(f"approve {waiting.metadata['toolName']}({waiting.metadata['arguments']})")
        resume = [{"interruptId": waiting.id, "status": "resolved", "payload": {"approved": True}}]
        second = post(server, {"threadId": "t1", "runId": "r2", "messages": [], "resume": resume})
        show(second)
        # --8<-- [end:client]
        # another user naming ada's thread (even with her approval id) finds nothing
        bob = httpx2.post(
            f"{server.url}/ag-ui",
            json={"threadId": "t1", "runId": "r3", "messages": [], "resume": resume},
            headers={"x-user": "bob"},
            timeout=30,
        )
        print(f"bob on ada's thread: {bob.status_code} {bob.json()['error']['message']}")
        assert bob.status_code == 404
        # the scripted model answers any number of conversations: a new thread starts over
        third = post(
            server,
            {
                "threadId": "t2",
                "runId": "r3",
                "messages": [{"id": "u2", "role": "user", "content": "Again, please"}],
            },
        )
        print("a second conversation:")
        show(third)
    result = next(e for e in second if isinstance(e, ag.ToolCallResultEvent))
    assert result.content == "ada deleted /tmp/old.txt"
    assert third[-1].outcome.type == "interrupt"  # waiting for the approval again


if __name__ == "__main__":
    if "--serve" in sys.argv:
        import uvicorn

        print("chat page on http://127.0.0.1:7286/")
        uvicorn.run(app, host="127.0.0.1", port=7286, log_level="warning")
    else:
        main()
