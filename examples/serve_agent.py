"""Serve an agent to user interfaces: AG-UI, the Vercel AI UI stream and a chat page.

Offline, with a scripted model. ``python examples/serve_agent.py`` starts the app on a
loopback port, asks it one question over AG-UI as the user ``ada``, shows that another
user cannot approve (or even see) ada's thread, approves the call that needs it, prints
the events and exits. ``python examples/serve_agent.py --serve`` keeps it running: open
http://127.0.0.1:7286/ for the chat page (or ``good-agent serve-agent
examples.serve_agent:shared``, run from the checkout).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import httpx
from ag_ui import core as ag
from pydantic import TypeAdapter
from starlette.requests import Request

# --8<-- [start:app]
from good_agent import Agent, RunContext, tool
from good_agent.server.background import BackgroundServer
from good_agent.server.ui import agent_app
from good_agent.testing import ScriptedModel


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
    return f"{ctx.deps.user} deleted {path}"


def build_agent() -> Agent:
    """A scripted model, a tool, and a tool that needs the user's approval."""
    model = ScriptedModel(
        [
            ScriptedModel.streamed(
                "Checking. ", ScriptedModel.call("get_weather", {"city": "Paris"})
            ),
            ScriptedModel.streamed(ScriptedModel.call("delete_file", {"path": "/tmp/old.txt"})),
            ScriptedModel.streamed("Sunny in Paris, ", "and /tmp/old.txt is gone."),
        ]
    )
    return Agent("You tidy up.", model=model, tools=[get_weather, delete_file], deps_type=Deps)


def user_of(request: Request) -> str:
    """The signed-in user; here a header that a login proxy in front would set."""
    return request.headers.get("x-user", "guest")


# An Agent serves its threads one run at a time (a function returning a new agent
# would give each run its own); here the scripted replies go on from run to run.
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
    response = httpx.post(f"{server.url}/ag-ui", json=body, headers={"x-user": user}, timeout=30)
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
        bob = httpx.post(
            f"{server.url}/ag-ui",
            json={"threadId": "t1", "runId": "r3", "messages": [], "resume": resume},
            headers={"x-user": "bob"},
            timeout=30,
        )
        print(f"bob on ada's thread: {bob.status_code} {bob.json()['error']['message']}")
        assert bob.status_code == 404
    result = next(e for e in second if isinstance(e, ag.ToolCallResultEvent))
    assert result.content == "ada deleted /tmp/old.txt"


if __name__ == "__main__":
    if "--serve" in sys.argv:
        import uvicorn

        print("chat page on http://127.0.0.1:7286/")
        uvicorn.run(app, host="127.0.0.1", port=7286, log_level="warning")
    else:
        main()
