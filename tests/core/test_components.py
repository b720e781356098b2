"""Components: handlers, tools and lookup; install and uninstall, also on error."""

from __future__ import annotations

import pytest

from good_agent import Agent, AgentComponent, AgentEvents, EventContext, on, tool
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio


class Recorder(AgentComponent):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    @on(AgentEvents.MESSAGE_APPEND, priority=5)
    def record(self, ctx: EventContext) -> None:
        self.seen.append(ctx.payload.role)

    @tool
    def count_messages(self) -> int:
        """How many messages this component has seen."""
        return len(self.seen)


async def test_component_handlers_and_tools_work_while_installed() -> None:
    recorder = Recorder()
    model = ScriptedModel([ScriptedModel.tool_call("count_messages"), "done"])
    async with Agent("sys", model=model, extensions=[recorder]) as agent:
        assert agent[Recorder] is recorder
        await agent.call("hi")
    assert recorder.seen == ["user", "assistant", "tool", "assistant"]
    assert model.requests[0].tool_names == ["count_messages"]
    assert model.requests[1].messages[-1].content == "2"  # type: ignore[union-attr]


async def test_uninstall_removes_handlers_and_tools() -> None:
    recorder = Recorder()
    agent = Agent(model=ScriptedModel(["a"]), extensions=[recorder])
    async with agent:
        assert "count_messages" in agent.tools
    assert "count_messages" not in agent.tools
    assert not agent.events.has_handlers(AgentEvents.MESSAGE_APPEND)
    await agent.append(agent.messages[0] if agent.messages else _user())
    assert recorder.seen == []


def _user():  # type: ignore[no-untyped-def]
    from good_agent import UserMessage

    return UserMessage(content="after")


async def test_components_uninstall_in_reverse_even_when_the_body_raises() -> None:
    order: list[str] = []

    class Named(AgentComponent):
        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

        async def install(self, agent: Agent) -> None:
            await super().install(agent)
            order.append(f"install {self.name}")

        async def uninstall(self, agent: Agent) -> None:
            order.append(f"uninstall {self.name}")
            await super().uninstall(agent)

    with pytest.raises(RuntimeError, match="body failed"):
        async with Agent(extensions=[Named("a"), Named("b")]):
            raise RuntimeError("body failed")
    assert order == ["install a", "install b", "uninstall b", "uninstall a"]


async def test_failed_install_uninstalls_what_was_installed() -> None:
    order: list[str] = []

    class Good(AgentComponent):
        async def uninstall(self, agent: Agent) -> None:
            order.append("good uninstalled")
            await super().uninstall(agent)

    class Bad(AgentComponent):
        async def install(self, agent: Agent) -> None:
            raise RuntimeError("cannot install")

    with pytest.raises(RuntimeError, match="cannot install"):
        async with Agent(extensions=[Good(), Bad()]):
            pass
    assert order == ["good uninstalled"]


async def test_lookup_of_a_missing_component_is_a_key_error() -> None:
    with pytest.raises(KeyError, match="no Recorder is installed"):
        Agent()[Recorder]


async def test_component_tool_names_must_be_unique() -> None:
    from good_agent import ToolDefinitionError

    @tool
    def count_messages() -> int:
        return 0

    with pytest.raises(ToolDefinitionError, match="duplicate tool name 'count_messages'"):
        async with Agent(tools=[count_messages], extensions=[Recorder()]):
            pass
