"""The run context: per-run deps reach tools (by annotation) and adapters (ctx.run)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import anyio
import pytest
from pydantic import SecretStr

from good_agent import (
    Agent,
    AgentComponent,
    AgentEvents,
    AgentRunError,
    CallContext,
    RunContext,
    RunStartPayload,
    ToolAdapter,
    ToolRetry,
    tool,
)
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio


@dataclass
class Deps:
    user: str
    token: str


@tool
def whoami(ctx: RunContext[Deps], greeting: str) -> str:
    """Who is asking."""
    return f"{greeting}, {ctx.deps.user}"


async def test_a_tool_receives_the_run_context_and_the_model_never_sees_it() -> None:
    seen: list[RunContext[Any]] = []
    requests: list[int] = []

    @tool
    def probe(ctx: RunContext[Deps], text: str) -> str:
        """Probe."""
        seen.append(ctx)
        requests.append(ctx.usage.requests)
        return text

    model = ScriptedModel([ScriptedModel.tool_call("probe", {"text": "x"}, id="c1"), "done"])
    agent = Agent(model=model, tools=[probe], deps_type=Deps)
    starts: list[RunStartPayload] = []
    agent.events.on(AgentEvents.RUN_START, lambda ctx: starts.append(ctx.payload))
    deps = Deps("ada", "t")
    result = await agent.run("hi", deps=deps)
    assert result.output == "done"
    parameters = model.requests[0].tools[0]["function"]["parameters"]
    assert set(parameters["properties"]) == {"text"} and parameters.get("required") == ["text"]
    [ctx] = seen
    assert ctx.deps is deps
    assert ctx.run_id == starts[0].run_id
    assert ctx.tool_name == "probe" and ctx.tool_call_id == "c1" and ctx.retry == 0
    assert ctx.prompt == "hi" and ctx.model is model
    assert requests == [1]  # the request that asked for this call
    assert ctx.usage is result.usage
    assert ctx.messages is agent.messages
    assert "ada" not in repr(ctx)


async def test_the_retry_count_follows_the_tool_failures_of_the_run() -> None:
    retries: list[int] = []

    @tool
    def flaky(ctx: RunContext[None]) -> str:
        """Fails twice."""
        retries.append(ctx.retry)
        if ctx.retry < 2:
            raise ToolRetry("again")
        return "ok"

    model = ScriptedModel([ScriptedModel.tool_call("flaky")] * 3 + ["done"])
    await Agent(model=model, tools=[flaky]).run("go")
    assert retries == [0, 1, 2]


@pytest.mark.parametrize("entry", ["run", "call", "stream"])
async def test_deps_reach_the_tool_from_every_entry_point(entry: str) -> None:
    model = ScriptedModel([ScriptedModel.tool_call("whoami", {"greeting": "hello"}), "ok"])
    agent = Agent(model=model, tools=[whoami])
    deps = Deps("grace", "t")
    if entry == "run":
        await agent.run("hi", deps=deps)
    elif entry == "call":
        await agent.call("hi", deps=deps)
    else:
        async with agent.stream("hi", deps=deps) as run:
            await run.wait()
    assert agent.messages[-2].content == "hello, grace"


def test_run_sync_takes_deps() -> None:
    model = ScriptedModel([ScriptedModel.tool_call("whoami", {"greeting": "hey"}), "ok"])
    agent = Agent(model=model, tools=[whoami])
    agent.run_sync("hi", deps=Deps("linus", "t"))
    assert agent.messages[-2].content == "hey, linus"


class UserToken(AgentComponent):
    """Puts the run's user token into the ``token`` parameter (hidden from the model)."""

    def __init__(self) -> None:
        super().__init__()
        self.register_tool_adapter(_TokenAdapter(self))


class _TokenAdapter(ToolAdapter):
    def should_adapt(self, tool: Any, agent: Any) -> bool:
        return "token" in tool.parameters.get("properties", {})

    def adapt_signature(self, tool: Any, signature: dict[str, Any], agent: Any) -> Any:
        function = dict(signature["function"])
        parameters = dict(function["parameters"])
        parameters["properties"] = {
            k: v for k, v in parameters["properties"].items() if k != "token"
        }
        parameters["required"] = [r for r in parameters.get("required", []) if r != "token"]
        function["parameters"] = parameters
        return {**signature, "function": function}

    def adapt_parameters(
        self, tool_name: str, parameters: dict[str, Any], agent: Any, ctx: CallContext | None = None
    ) -> dict[str, Any]:
        assert ctx is not None
        return {**parameters, "token": SecretStr(ctx.run.deps.token)}


@tool
def fetch_profile(token: SecretStr, name: str) -> str:
    """The profile of a user."""
    return f"{name}: authorized={token.get_secret_value().startswith('tok-')}"


async def test_an_adapter_injects_a_per_user_credential_from_deps() -> None:
    model = ScriptedModel([ScriptedModel.tool_call("fetch_profile", {"name": "ada"}), "ok"])
    agent = Agent(model=model, tools=[fetch_profile], extensions=[UserToken()])
    await agent.run("profile?", deps=Deps("ada", "tok-ada"))
    assert agent.messages[-2].content == "ada: authorized=True"
    sent = model.requests[0].tools[0]["function"]["parameters"]["properties"]
    assert set(sent) == {"name"}


async def test_a_second_run_of_one_agent_is_refused_and_the_first_keeps_its_deps() -> None:
    gate = anyio.Event()
    users: list[str] = []

    @tool
    async def slow(ctx: RunContext[Deps]) -> str:
        """Waits."""
        await gate.wait()
        users.append(ctx.deps.user)
        return ctx.deps.user

    model = ScriptedModel([ScriptedModel.tool_call("slow"), "done"])
    agent = Agent(model=model, tools=[slow])
    async with anyio.create_task_group() as group:
        group.start_soon(lambda: agent.run("first", deps=Deps("first", "t")))
        await anyio.wait_all_tasks_blocked()
        with pytest.raises(AgentRunError, match="another run of this agent is in progress"):
            await agent.run("second", deps=Deps("second", "t"))
        gate.set()
    assert users == ["first"]


async def test_concurrent_runs_on_agents_sharing_tools_see_only_their_own_deps() -> None:
    both_inside = anyio.Event()
    inside = 0
    seen: dict[str, list[str]] = {"a": [], "b": []}

    @tool
    async def record(ctx: RunContext[Deps], label: str) -> str:
        """Records who called."""
        nonlocal inside
        inside += 1
        if inside == 2:
            both_inside.set()
        await both_inside.wait()  # both runs are inside a tool call at once
        seen[label].append(ctx.deps.user)
        return ctx.deps.user

    def agent_for(label: str) -> Agent:
        script = [ScriptedModel.tool_call("record", {"label": label}), "done"]
        return Agent(model=ScriptedModel(script), tools=[record, fetch_profile])

    first, second = agent_for("a"), agent_for("b")
    async with anyio.create_task_group() as group:
        group.start_soon(lambda: first.run("go", deps=Deps("alice", "tok-a")))
        group.start_soon(lambda: second.run("go", deps=Deps("bob", "tok-b")))
    assert seen == {"a": ["alice"], "b": ["bob"]}


async def test_invoke_gives_a_run_context_without_deps() -> None:
    seen: list[RunContext[Any]] = []

    @tool
    def probe(ctx: RunContext[None]) -> str:
        """Probe."""
        seen.append(ctx)
        return "ok"

    agent = Agent(tools=[probe])
    response = await agent.invoke("probe")
    assert response.response == "ok"
    assert seen[0].deps is None and seen[0].tool_name == "probe"
