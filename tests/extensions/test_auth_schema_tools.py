"""Credentials injected into a schema-defined tool (an MCP or HTTP tool) stay hidden."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import SecretStr

from good_agent import Agent, AgentEvents, AuthInjector, Tool
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio
CANARY = "canary-schema-secret-5150"


async def test_secret_reaches_a_schema_tool_as_text_and_nowhere_else() -> None:
    received: list[dict[str, Any]] = []
    remote = Tool.from_schema(
        "remote_search",
        {
            "type": "object",
            "properties": {"query": {"type": "string"}, "api_key": {"type": "string"}},
            "required": ["query", "api_key"],
        },
        "Search a remote index.",
        function=lambda **kw: received.append(kw) or "3 hits",
    )
    model = ScriptedModel([ScriptedModel.tool_call("remote_search", {"query": "llamas"}), "done"])
    agent = Agent(model=model, tools=[remote], extensions=[AuthInjector().api_key(CANARY)])
    payloads: list[str] = []
    for event in AgentEvents:
        agent.events.on(event, lambda ctx, e=event: payloads.append(f"{e}: {ctx.payload!r}"))
    async with agent:
        await agent.call("find llamas")
    assert received == [{"query": "llamas", "api_key": CANARY}]
    seen = model.requests[0].tools[0]["function"]["parameters"]["properties"]
    assert set(seen) == {"query"}
    everything = "\n".join(payloads) + repr(agent.messages) + repr(model.requests)
    assert "ToolCallBefore" in everything and CANARY not in everything


async def test_string_constraints_do_not_see_the_secret() -> None:
    tool = Tool.from_schema(
        "t", {"type": "object", "properties": {"k": {"type": "string", "maxLength": 3}}}
    )
    assert tool.validate({"k": SecretStr("much longer than three")})["k"].get_secret_value()
