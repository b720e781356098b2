"""Instructions: evaluated for every run, sent in the system slot, never stored."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic import BaseModel

from good_agent import Agent, RunContext, SystemMessage, resolve_model, tool
from good_agent.messages import dump_messages, load_messages
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio


@dataclass
class Deps:
    user: str


def system_text(model: ScriptedModel, index: int = 0) -> str:
    first = model.requests[index].messages[0]
    assert isinstance(first, SystemMessage)
    return str(first.content)


async def test_text_instructions_go_to_the_system_slot_and_not_into_the_history() -> None:
    model = ScriptedModel(["hi"])
    agent = Agent("You are terse.", model=model, instructions="Answer in French.")
    await agent.run("hello")
    assert system_text(model) == "You are terse.\n\nAnswer in French."
    assert [m.content for m in agent.messages if isinstance(m, SystemMessage)] == ["You are terse."]
    assert "French" not in dump_messages(agent.messages).decode()


async def test_without_a_system_prompt_the_instructions_are_the_system_message() -> None:
    model = ScriptedModel(["hi"])
    await Agent(model=model, instructions="Be brief.").run("hello")
    assert [m.role for m in model.requests[0].messages] == ["system", "user"]
    assert system_text(model) == "Be brief."


async def test_instruction_functions_are_evaluated_for_every_run_with_the_run_context() -> None:
    model = ScriptedModel(["one", "two"])
    agent = Agent(model=model, instructions="Fixed.", deps_type=Deps)
    runs: list[str] = []

    @agent.instructions
    def about_user(ctx: RunContext[Deps]) -> str:
        runs.append(ctx.run_id)
        return f"The user is {ctx.deps.user}."

    @agent.instructions
    async def nothing_today() -> str | None:
        return None

    @agent.instructions
    async def count() -> str:
        return f"Run {len(runs)}."

    await agent.run("a", deps=Deps("ada"))
    await agent.run("b", deps=Deps("grace"))
    assert system_text(model, 0) == "Fixed.\n\nThe user is ada.\n\nRun 1."
    assert system_text(model, 1) == "Fixed.\n\nThe user is grace.\n\nRun 2."
    assert len(set(runs)) == 2


async def test_every_request_of_a_run_carries_the_instructions_evaluated_once() -> None:
    calls = 0

    def once() -> str:
        nonlocal calls
        calls += 1
        return "Use the tool."

    @tool
    def ping() -> str:
        """Ping."""
        return "pong"

    model = ScriptedModel([ScriptedModel.tool_call("ping"), "done"])
    await Agent(model=model, tools=[ping], instructions=[once]).run("go")
    assert [system_text(model, i) for i in (0, 1)] == ["Use the tool."] * 2
    assert calls == 1


async def test_a_loaded_history_gets_the_instructions_of_the_agent_continuing_it() -> None:
    first = Agent("System.", model=ScriptedModel(["old"]), instructions="Old rules.")
    await first.run("hello")
    model = ScriptedModel(["new"])
    later = Agent(
        model=model, messages=load_messages(dump_messages(first.messages)), instructions="New."
    )
    await later.run("again")
    assert system_text(model) == "System.\n\nNew."


class Answer(BaseModel):
    value: int


async def test_instructions_come_before_the_prompted_output_schema() -> None:
    model = ScriptedModel(['{"value": 1}'])
    agent = Agent("System.", model=model, instructions="Rules.")
    result = await agent.run("n?", output_type=Answer, output_mode="prompted")
    assert result.output == Answer(value=1)
    text = system_text(model)
    assert text.startswith("System.\n\nRules.\n\nWhen you give your final answer")


def chat_reply(content: str) -> tuple[int, dict[str, Any]]:
    message = {"role": "assistant", "content": content}
    return 200, {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
    }


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


async def test_a_native_model_receives_the_instructions_in_its_system_message(
    fake_upstream: Callable[[list[Any]], Any],
) -> None:
    upstream = fake_upstream([chat_reply("5")])
    agent = Agent(
        "You add.",
        model="openai:gpt-4o-mini",
        base_url=f"{upstream.url}/v1",
        api_key="sk-test",
        tools=[add],
        instructions="Reply with digits only.",
    )
    await agent.run("2+3?")
    [body] = upstream.bodies
    assert body["tools"]  # native tool calling
    system = {"role": "system", "content": "You add.\n\nReply with digits only."}
    assert body["messages"][0] == system
    assert json.dumps(body["messages"][1:]).count("digits only") == 0


async def test_a_prompted_model_receives_the_instructions_in_its_system_message(
    fake_upstream: Callable[[list[Any]], Any],
) -> None:
    upstream = fake_upstream([chat_reply("5")])
    model = resolve_model("my-local-model", base_url=f"{upstream.url}/v1", mode="validated")
    agent = Agent("You add.", model=model, tools=[add], instructions="Reply with digits only.")
    await agent.run("2+3?")
    [body] = upstream.bodies
    assert "tools" not in body  # prompted: the tools are described in the system text
    system = body["messages"][0]
    assert system["role"] == "system"
    assert system["content"].startswith("You add.\n\nReply with digits only.")
    assert "add" in system["content"] and "# Tools" in system["content"]
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
