"""A model name no rule knows, served from a ``base_url``, is native with fallback."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from good_agent import Agent, ToolMessage, resolve_model, tool
from good_agent.providers.strategies import ToolCallingMode

pytestmark = pytest.mark.anyio


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def text(content: str) -> tuple[int, dict[str, Any]]:
    return 200, {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10},
    }


REFUSAL = (400, {"error": {"message": "model my-house-model does not support tools"}})


def test_unknown_names_on_a_base_url_start_native_in_auto() -> None:
    model = resolve_model("my-house-model", base_url="http://127.0.0.1:1/v1")
    assert model.mode is ToolCallingMode.AUTO  # type: ignore[attr-defined]
    assert model.tool_strategy.mode is ToolCallingMode.NATIVE  # type: ignore[attr-defined]
    without = resolve_model("my-house-model", api_key="k")
    assert without.tool_strategy.mode is ToolCallingMode.VALIDATED  # type: ignore[attr-defined]
    local = resolve_model("ollama:my-house-model")
    assert local.tool_strategy.mode is ToolCallingMode.NATIVE  # type: ignore[attr-defined]
    assert local.mode is ToolCallingMode.AUTO  # type: ignore[attr-defined]


async def test_a_tools_refusal_falls_back_to_prompted(
    fake_upstream: Callable[[list[Any]], Any],
) -> None:
    hermes = '<tool_call>{"name": "add", "arguments": {"a": 2, "b": 3}}</tool_call>'
    upstream = fake_upstream([REFUSAL, text(hermes), text("It is 5.")])
    agent = Agent(model="my-house-model", base_url=f"{upstream.url}/v1", tools=[add])
    assert (await agent.call("2+3?")).content == "It is 5."
    assert "tools" in upstream.bodies[0]
    assert "tools" not in upstream.bodies[1]
    results = [m for m in agent.messages if isinstance(m, ToolMessage)]
    assert [(m.tool_name, m.content) for m in results] == [("add", "5")]


async def test_calls_written_in_content_are_parsed(
    fake_upstream: Callable[[list[Any]], Any],
) -> None:
    leaked = json.dumps({"tool_calls": [{"name": "add", "arguments": {"a": 20, "b": 22}}]})
    upstream = fake_upstream([text(leaked), text("42.")])
    agent = Agent(model="grok-ish-local", base_url=f"{upstream.url}/v1", tools=[add])
    assert (await agent.call("20+22?")).content == "42."
    results = [m for m in agent.messages if isinstance(m, ToolMessage)]
    assert [(m.tool_name, m.content) for m in results] == [("add", "42")]


async def test_what_a_model_learned_stays_in_that_model(
    fake_upstream: Callable[[list[Any]], Any],
) -> None:
    """The fallback is a runtime decision of one model object, not of the process: a
    second model for the same server starts native again, and learns on its own."""
    hermes = '<tool_call>{"name": "add", "arguments": {"a": 2, "b": 3}}</tool_call>'
    upstream = fake_upstream(
        [REFUSAL, text(hermes), text("It is 5."), REFUSAL, text(hermes), text("5.")]
    )
    first = Agent(model="my-house-model", base_url=f"{upstream.url}/v1", tools=[add])
    assert (await first.call("2+3?")).content == "It is 5."
    second = Agent(model="my-house-model", base_url=f"{upstream.url}/v1", tools=[add])
    assert (await second.call("2+3?")).content == "5."
    assert ["tools" in body for body in upstream.bodies] == [True, False, False] * 2
    assert first.model.learned_mode is ToolCallingMode.VALIDATED  # type: ignore[attr-defined]
    assert second.model.learned_mode is ToolCallingMode.VALIDATED  # type: ignore[attr-defined]
