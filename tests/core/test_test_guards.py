"""Test guards: real model requests can be switched off, and a failed run's messages captured."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import anyio
import pytest

import good_agent.models
from good_agent import (
    Agent,
    AssistantMessage,
    ToolMessage,
    UserMessage,
    capture_run_messages,
    tool,
)
from good_agent.models import ModelRequestsDisabledError, override_allow_model_requests
from good_agent.testing import ScriptedModel, TestModel
from good_agent.types.errors import AgentRunError, ScriptExhaustedError

pytestmark = pytest.mark.anyio


@pytest.fixture
def no_model_requests() -> Iterator[None]:
    before = good_agent.models.ALLOW_MODEL_REQUESTS
    good_agent.models.ALLOW_MODEL_REQUESTS = False
    yield
    good_agent.models.ALLOW_MODEL_REQUESTS = before


def text(content: str) -> tuple[int, dict[str, Any]]:
    return 200, {
        "id": "c",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-4o",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


@pytest.mark.usefixtures("no_model_requests")
@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
async def test_a_real_model_refuses_to_send_when_requests_are_off(
    stream: bool, fake_upstream: Callable[[list[Any]], Any]
) -> None:
    upstream = fake_upstream([text("hi")])
    agent = Agent(model="openai:gpt-4o", base_url=f"{upstream.url}/v1", api_key="k")
    with pytest.raises(ModelRequestsDisabledError, match="ALLOW_MODEL_REQUESTS"):
        if stream:
            async with agent.stream("Hello") as run:
                async for _ in run.text_deltas():
                    pass
        else:
            await agent.call("Hello")
    assert upstream.bodies == []  # nothing left the process


@pytest.mark.usefixtures("no_model_requests")
async def test_test_doubles_still_run_and_a_block_can_allow_requests(
    fake_upstream: Callable[[list[Any]], Any],
) -> None:
    assert (await Agent(model=TestModel()).call("Hello")).content
    assert (await Agent(model=ScriptedModel(["scripted"])).call("Hello")).content == "scripted"
    upstream = fake_upstream([text("allowed")])
    agent = Agent(model="openai:gpt-4o", base_url=f"{upstream.url}/v1", api_key="k")
    with override_allow_model_requests(True):
        assert (await agent.call("Hello")).content == "allowed"
    assert good_agent.models.ALLOW_MODEL_REQUESTS is False
    with pytest.raises(ModelRequestsDisabledError):
        await agent.call("Again")


async def test_requests_are_allowed_by_default(fake_upstream: Callable[[list[Any]], Any]) -> None:
    assert good_agent.models.ALLOW_MODEL_REQUESTS is True
    upstream = fake_upstream([text("ok")])
    agent = Agent(model="openai:gpt-4o", base_url=f"{upstream.url}/v1", api_key="k")
    assert (await agent.call("Hello")).content == "ok"


@tool
def add(a: int, b: int) -> int:
    """Add."""
    return a + b


async def test_capture_run_messages_holds_the_messages_of_a_run_that_raised() -> None:
    model = ScriptedModel([ScriptedModel.tool_call("add", {"a": 1, "b": 2}, id="c1")])
    agent = Agent(model=model, tools=[add])
    with capture_run_messages() as messages, pytest.raises(ScriptExhaustedError):
        await agent.run("1+2?")
    assert [type(m) for m in messages] == [UserMessage, AssistantMessage, ToolMessage]
    assert isinstance(messages[2], ToolMessage) and messages[2].content == "3"
    assert messages == agent.messages
    assert messages.new_messages == list(agent.messages)


async def test_only_the_first_run_of_a_block_is_captured_and_history_is_included() -> None:
    agent = Agent(model=ScriptedModel(["one", "two"]))
    await agent.run("before")
    with capture_run_messages() as messages:
        assert not messages.captured and list(messages) == []
        await agent.run("first")
        captured = list(messages)
        await Agent(model=ScriptedModel(["other"])).run("second")
    assert [m.content for m in captured] == ["before", "one", "first", "two"]
    assert [m.content for m in messages.new_messages] == ["first", "two"]
    assert messages == captured


async def test_captures_of_concurrent_tasks_are_their_own() -> None:
    results: dict[str, list[Any]] = {}

    async def one(name: str) -> None:
        agent = Agent(model=ScriptedModel([f"answer {name}"]))
        with capture_run_messages() as messages:
            await agent.run(f"question {name}")
        results[name] = [m.content for m in messages]

    async with anyio.create_task_group() as group:
        group.start_soon(one, "a")
        group.start_soon(one, "b")
    assert results == {"a": ["question a", "answer a"], "b": ["question b", "answer b"]}


async def test_no_capture_outside_a_block() -> None:
    with capture_run_messages() as messages:
        pass
    await Agent(model=ScriptedModel(["x"])).run("y")
    assert list(messages) == [] and not messages.captured
    assert issubclass(ModelRequestsDisabledError, RuntimeError)
    assert not issubclass(ModelRequestsDisabledError, AgentRunError)


async def test_capture_keeps_the_prompt_of_a_run_the_model_never_answered() -> None:
    # The conversation is left as before the run (no dangling prompt), but the capture
    # still shows what the failed run had sent.
    agent = Agent(model=ScriptedModel([]))
    with capture_run_messages() as messages, pytest.raises(ScriptExhaustedError):
        await agent.run("hello?")
    assert [type(m) for m in messages] == [UserMessage]
    assert messages.new_messages[0].content == "hello?"
    assert not any(isinstance(m, UserMessage) for m in agent.messages)
