"""A user-registered provider, and the automatic fallback from native to prompted calling."""

from __future__ import annotations

import importlib.util
import json
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from good_agent import Agent, ModelBadRequestError, ToolMessage, get_adapter, resolve_model, tool

pytestmark = pytest.mark.anyio
ROOT = Path(__file__).parent.parent.parent


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def chat(message: dict[str, Any], finish: str = "stop") -> tuple[int, dict[str, Any]]:
    return 200, {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10},
    }


def text(content: str) -> tuple[int, dict[str, Any]]:
    return chat({"role": "assistant", "content": content})


NO_TOOLS = (
    400,
    {
        "error": {
            "message": "registry.ollama.ai/library/gemma3:4b does not support tools",
            "type": "api_error",
        }
    },
)


def toy_module() -> Any:
    spec = importlib.util.spec_from_file_location(
        "custom_provider", ROOT / "examples" / "custom_provider.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["custom_provider"] = module
    spec.loader.exec_module(module)
    return module


async def test_registered_toy_provider_runs_a_two_call_conversation() -> None:
    toy = toy_module()
    assert get_adapter("toy:toy-1").codec.name == "toy"
    with toy.fake_toy_upstream() as (url, bodies):
        async with Agent(model="toy:toy-1", base_url=url, tools=[add]) as agent:
            answer = await agent.call("1+2 and 3+4?")
    assert answer.content == "The sums are 3 and 7."
    assert [m.content for m in agent.messages if isinstance(m, ToolMessage)] == ["3", "7"]
    assert bodies[0]["model"] == "toy-1"
    assert bodies[0]["functions"][0]["id"] == "add"
    assert bodies[1]["turns"][-1] == {"who": "tool", "text": "7", "ref": "t2"}


async def test_rejected_tools_fall_back_to_prompted_and_remember_it(
    fake_upstream: Callable[[list[Any]], Any], caplog: pytest.LogCaptureFixture
) -> None:
    hermes = '<tool_call>{"name": "add", "arguments": {"a": 2, "b": 3}}</tool_call>'
    upstream = fake_upstream([NO_TOOLS, text(hermes), text("It is 5."), text("Hello again.")])
    agent = Agent(model="llama3.2", base_url=f"{upstream.url}/v1", tools=[add])
    with caplog.at_level(logging.WARNING, logger="good_agent.models.fallback"):
        assert (await agent.call("2+3?")).content == "It is 5."
        assert (await agent.call("hi")).content == "Hello again."
    assert "tools" in upstream.bodies[0]  # the native attempt
    assert all("tools" not in body for body in upstream.bodies[1:])  # prompted ever since
    assert len(upstream.bodies) == 4  # the second call went straight to prompt mode
    assert "add" in json.dumps(upstream.bodies[1]["messages"][0])  # tools rendered in the prompt
    result = [m for m in agent.messages if isinstance(m, ToolMessage)]
    assert [(m.tool_name, m.content) for m in result] == [("add", "5")]
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 1 and "does not support tools" in warnings[0]


async def test_tool_calls_written_in_content_become_real_calls(
    fake_upstream: Callable[[list[Any]], Any],
) -> None:
    leaked = json.dumps({"tool_calls": [{"name": "add", "arguments": {"a": 20, "b": 22}}]})
    upstream = fake_upstream([text(leaked), text("42.")])
    agent = Agent(model="qwen2.5", base_url=f"{upstream.url}/v1", tools=[add])
    assert (await agent.call("20+22?")).content == "42."
    call = agent.messages[1]
    assert call.tool_calls[0].name == "add" and call.tool_calls[0].arguments == {"a": 20, "b": 22}  # type: ignore[union-attr]
    assert not call.content  # type: ignore[union-attr]
    assert "tools" in upstream.bodies[1]  # still native: parsing content is what works


async def test_explicit_native_mode_surfaces_the_error(
    fake_upstream: Callable[[list[Any]], Any],
) -> None:
    upstream = fake_upstream([NO_TOOLS])
    model = resolve_model("llama3.2", base_url=f"{upstream.url}/v1", mode="native")
    with pytest.raises(ModelBadRequestError, match="does not support tools") as info:
        await Agent(model=model, tools=[add]).call("2+3?")
    assert info.value.status_code == 400
    assert len(upstream.bodies) == 1


async def test_other_bad_requests_are_not_mistaken_for_tool_refusals(
    fake_upstream: Callable[[list[Any]], Any],
) -> None:
    upstream = fake_upstream([(400, {"error": {"message": "context length exceeded"}})])
    with pytest.raises(ModelBadRequestError, match="context length"):
        await Agent(model="llama3.2", base_url=f"{upstream.url}/v1", tools=[add]).call("x")
    assert len(upstream.bodies) == 1
