"""Argument problems as data, the spec resolver registry, and ScriptedModel recording."""

from __future__ import annotations

from typing import Any

import pytest

from good_agent import (
    Agent,
    AgentComponent,
    AssistantMessage,
    GoodAgentError,
    ToolMessage,
    UserMessage,
    tool,
)
from good_agent.core.specs import register_spec_resolver, resolve_spec
from good_agent.models.base import ModelResponse
from good_agent.providers.codecs import get_codec
from good_agent.providers.strategies.prompted import ValidatedStrategy
from good_agent.testing import ScriptedModel
from good_agent.types.messages import ToolCall

pytestmark = pytest.mark.anyio


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def test_validated_calls_carry_each_problem_as_data() -> None:
    reply = {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": '<tool_call>{"name": "add", "arguments": {"a": "two"}}</tool_call>',
                },
                "finish_reason": "stop",
            }
        ]
    }
    decoded = ValidatedStrategy("m", get_codec("openai_chat")).decode(reply, [add.signature])
    call = decoded.tool_calls[0]
    assert isinstance(call, ToolCall)  # the decoded call is the history's call
    assert call.arguments == {} and len(call.arguments_problems) == 2
    assert all(not p.startswith("invalid arguments") for p in call.arguments_problems)


def test_undecodable_arguments_are_one_problem() -> None:
    from good_agent.providers.arguments import parsed_call

    call = parsed_call("c1", "add", '{"a": 1,')
    assert call.arguments == {} and call.arguments_problems == [call.arguments_error]
    assert call.raw_arguments == '{"a": 1,'


async def test_the_model_reads_the_problems_once_never_a_stripped_prefix() -> None:
    call = ToolCall(
        id="c1",
        name="add",
        raw_arguments='{"a": "two"}',
        arguments_error="the parser's own summary, which is not shown",
        arguments_problems=["a: expected integer, got 'two'", "b: required"],
    )
    model = ScriptedModel([ModelResponse(tool_calls=[call]), "ok"])
    agent = Agent(model=model, tools=[add])
    await agent.call("add")
    result = next(m for m in agent.messages if isinstance(m, ToolMessage))
    assert result.content == (
        "Error: invalid arguments for tool 'add': a: expected integer, got 'two'; b: required"
    )


def test_an_invalid_call_without_problems_keeps_its_error_as_the_problem() -> None:
    from good_agent.providers.arguments import invalid_call

    call = invalid_call("c1", "add", "x", "the arguments are not valid JSON")
    assert call.arguments_problems == ["the arguments are not valid JSON"]


def test_string_specs_go_through_the_registered_resolver() -> None:
    built: list[str] = []

    class Named(AgentComponent):
        def __init__(self, spec: str) -> None:
            super().__init__()
            self.spec = spec

    def resolve(spec: str) -> AgentComponent:
        built.append(spec)
        return Named(spec)

    register_spec_resolver("test_servers", resolve)
    assert isinstance(resolve_spec("test_servers", "one"), Named) and built == ["one"]
    with pytest.raises(GoodAgentError, match="no resolver is registered for nothing="):
        resolve_spec("nothing", "x")


def test_the_agent_module_imports_no_extension() -> None:
    import ast
    from pathlib import Path

    import good_agent.core.agent as module

    tree = ast.parse(Path(module.__file__).read_text())
    imported = [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    assert not [name for name in imported if name.startswith("good_agent.extensions")]


def test_mcp_server_specs_resolve_to_mcp_tools() -> None:
    pytest.importorskip("mcp")
    from good_agent.extensions.mcp import MCPTools

    agent = Agent(mcp_servers=["http://127.0.0.1:9/mcp"])
    assert isinstance(agent.components[0], MCPTools)


async def test_recorded_requests_keep_what_was_sent_and_share_unchanged_messages() -> None:
    model = ScriptedModel([ScriptedModel.tool_call("add", {"a": 1, "b": 2}), "three", "again"])
    agent = Agent(model=model, tools=[add])
    await agent.call("first")
    first, second = model.requests
    assert [m.role for m in first.messages] == ["user"]
    assert [m.role for m in second.messages] == ["user", "assistant", "tool"]
    # Each message object is copied once: the later request shares the earlier copy.
    assert second.messages[0] is first.messages[0]
    assert first.messages[0] is not agent.messages[0]
    # Changing the history afterwards changes no record.
    message = agent.messages[0]
    assert isinstance(message, UserMessage)
    agent.messages[0] = message.model_copy(update={"content": "rewritten"})
    await agent.call("second")
    third = model.requests[2]
    assert first.messages[0].content == "first"  # type: ignore[union-attr]
    assert third.messages[0].content == "rewritten"  # type: ignore[union-attr]
    assert [m.role for m in third.messages] == ["user", "assistant", "tool", "assistant", "user"]


async def test_a_scripted_reply_can_be_replayed_unchanged() -> None:
    reply = ScriptedModel.tool_call("add", {"a": 1, "b": 1})
    model = ScriptedModel([reply, "done", reply, "done"])
    agent = Agent(model=model, tools=[add])
    await agent.call("one")
    await agent.call("two")
    results: list[Any] = [m.content for m in agent.messages if isinstance(m, ToolMessage)]
    assert results == ["2", "2"] and len(reply.tool_calls) == 1


async def test_a_record_is_taken_when_sent_even_if_first_read_after_a_change_in_place() -> None:
    model = ScriptedModel(["one", "two"])
    agent = Agent(model=model)
    await agent.call("first")
    sent = agent.messages[0]
    assert isinstance(sent, UserMessage)
    sent.content = "changed in place"  # before any test read the record
    await agent.call("second")
    first, second = model.requests
    assert first.messages[0].content == "first"  # type: ignore[union-attr]
    assert [m.role for m in second.messages] == ["user", "assistant", "user"]


async def test_a_record_keeps_the_tool_calls_list_as_it_was_sent() -> None:
    model = ScriptedModel([ScriptedModel.tool_call("add", {"a": 1, "b": 2}), "three", "again"])
    agent = Agent(model=model, tools=[add])
    await agent.call("first")
    turn = agent.messages[1]
    assert isinstance(turn, AssistantMessage)
    turn.tool_calls.append(ToolCall(id="late", name="add", arguments={}))
    await agent.call("second")
    recorded = model.requests[1].messages[1]
    assert isinstance(recorded, AssistantMessage)
    assert [c.id for c in recorded.tool_calls] == [turn.tool_calls[0].id]
    assert recorded.model_fields_set == turn.model_fields_set
