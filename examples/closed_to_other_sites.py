"""An agent served on loopback, closed to other sites, with a tool cache per user.

Offline, with a scripted model. The app answers only to loopback names and the hosts
it is told (a foreign ``Host``, as after DNS rebinding, is a 421), takes ``POST``s from
browser pages of its own origin and of the listed front end only (403 otherwise), JSON
bodies only (415), and cuts off a body that does not arrive in time (408). The tool
that lists the current user's files is cached per user: a scope that reads the run's
deps.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import httpx

# --8<-- [start:app]
from good_agent import Agent, RunContext, tool
from good_agent.extensions import ToolCache
from good_agent.server.background import BackgroundServer
from good_agent.server.ui import agent_app
from good_agent.testing import ScriptedModel


@dataclass
class Deps:
    user: str


@tool
def my_files(ctx: RunContext[Deps], folder: str) -> list[str]:
    """The current user's files in a folder."""
    return [f"/home/{ctx.deps.user}/{folder}/notes.txt"]


# Without a scope, caching a tool that reads the RunContext is refused at install.
cache = ToolCache(tools=["my_files"], scope=lambda ctx, tool, params: ctx.deps.user)


def build_agent() -> Agent:
    """Each run lists the files, then answers."""
    step = ScriptedModel.tool_call("my_files", {"folder": "docs"})
    model = ScriptedModel([step, "Here they are."] * 4)
    return Agent(model=model, tools=[my_files], extensions=[cache], deps_type=Deps)


app = agent_app(
    build_agent(),
    deps=lambda request: Deps(user=request.headers.get("x-user", "guest")),
    allowed_hosts=["agent.example.com"],  # the name a proxy in front would use
    allowed_origins=["http://localhost:3000"],  # a front end served apart
    body_timeout=10,
)
# --8<-- [end:app]


def ask(server: BackgroundServer, user: str, **headers: str) -> httpx.Response:
    body = {
        "threadId": f"t-{uuid.uuid4().hex[:8]}",
        "runId": "r1",
        "messages": [{"id": "u1", "role": "user", "content": "list my docs"}],
    }
    return httpx.post(
        f"{server.url}/ag-ui", json=body, headers={"x-user": user, **headers}, timeout=30
    )


def main() -> None:
    with BackgroundServer(app) as server:
        for label, response in [
            ("a client (no Origin)", ask(server, "ada")),
            ("Host agent.example.com", ask(server, "ada", host="agent.example.com")),
            ("the listed front end", ask(server, "bob", origin="http://localhost:3000")),
            ("Host evil.example", ask(server, "ada", host="evil.example")),
            ("a page on evil.example", ask(server, "ada", origin="http://evil.example")),
            ("a text/plain body", ask(server, "ada", **{"content-type": "text/plain"})),
        ]:
            allow = response.headers.get("access-control-allow-origin", "-")
            print(f"{label:<26} {response.status_code}  CORS: {allow}")
            if response.status_code >= 400:
                error = response.json()["error"]
                assert error["param"] in ("Host", "Origin", "Content-Type")
    # ada's second run was a hit on her own entry; bob's a miss: never ada's files
    print(f"cache: {cache.stats.hits} hit, {cache.stats.misses} misses")
    assert (cache.stats.hits, cache.stats.misses) == (1, 2)


if __name__ == "__main__":
    main()
