"""Output validators: see the validated output, may send the model back (ModelRetry)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic import BaseModel

from good_agent import (
    Agent,
    ModelRetry,
    OutputMode,
    OutputValidationError,
    RunContext,
    ToolMessage,
    ToolRetry,
    UserMessage,
    resolve_model,
)
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio


class City(BaseModel):
    name: str
    population: int


@dataclass
class Deps:
    minimum: int


def answer(mode: OutputMode, population: int) -> Any:
    """A scripted answer delivering ``City`` in ``mode``."""
    arguments = {"name": "Oslo", "population": population}
    if mode == "tool":
        return ScriptedModel.tool_call("final_result", arguments)
    return City(**arguments).model_dump_json()


def big_enough_agent(model: ScriptedModel, mode: OutputMode, retries: int = 1) -> Agent:
    agent = Agent(
        model=model, output_type=City, output_mode=mode, output_retries=retries, deps_type=Deps
    )

    @agent.output_validator
    async def big_enough(ctx: RunContext[Deps], city: City) -> City:
        if city.population < ctx.deps.minimum:
            raise ModelRetry(f"{city.name} is too small (retry {ctx.retry}): name a bigger city")
        return city

    return agent


def feedback(agent: Agent) -> list[str]:
    """What the run sent back to the model after a rejected answer."""
    sent = [
        m
        for m in agent.messages
        if isinstance(m, UserMessage) or (isinstance(m, ToolMessage) and m.is_error)
    ]
    return [str(m.content) for m in sent[1:]]


def test_model_retry_is_tool_retry() -> None:
    assert ModelRetry is ToolRetry


@pytest.mark.parametrize("mode", ["tool", "native", "prompted"])
async def test_a_rejected_answer_goes_back_to_the_model_in_every_mode(mode: OutputMode) -> None:
    model = ScriptedModel([answer(mode, 10), answer(mode, 700_000)])
    agent = big_enough_agent(model, mode)
    result = await agent.run("A city?", deps=Deps(minimum=1000))
    assert result.output == City(name="Oslo", population=700_000)
    [sent] = feedback(agent)
    assert "Oslo is too small (retry 0): name a bigger city" in sent
    assert len(model.requests) == 2


@pytest.mark.parametrize("mode", ["tool", "native", "prompted"])
async def test_rejections_count_against_output_retries(mode: OutputMode) -> None:
    model = ScriptedModel([answer(mode, 1), answer(mode, 2), answer(mode, 3)])
    agent = big_enough_agent(model, mode, retries=1)
    with pytest.raises(OutputValidationError, match="rejected the answer") as caught:
        await agent.run("A city?", deps=Deps(minimum=1000))
    assert caught.value.problems == ["Oslo is too small (retry 1): name a bigger city"]
    assert len(model.requests) == 2 and model.remaining == 1


async def test_schema_failures_and_rejections_share_the_retry_budget() -> None:
    model = ScriptedModel(['{"name": "Oslo"}', answer("native", 5), answer("native", 5000)])
    agent = big_enough_agent(model, "native", retries=2)
    result = await agent.run("A city?", deps=Deps(minimum=1000))
    assert result.output.population == 5000
    sent = feedback(agent)
    assert "population: Field required" in sent[0] and "(retry 1)" in sent[1]


async def test_a_validator_works_on_a_streamed_run() -> None:
    model = ScriptedModel(
        [
            ScriptedModel.streamed(
                ScriptedModel.call("final_result", {"name": "A", "population": 1})
            ),
            ScriptedModel.streamed(
                ScriptedModel.call("final_result", {"name": "B", "population": 5000})
            ),
        ]
    )
    agent = big_enough_agent(model, "tool")
    async with agent.stream("A city?", deps=Deps(minimum=1000)) as run:
        await run.wait()
    assert run.output == City(name="B", population=5000)
    assert "A is too small" in feedback(agent)[0]


async def test_a_validator_may_change_the_output_and_checks_text_answers() -> None:
    model = ScriptedModel(["  shouting  ", "calm"])
    agent = Agent(model=model)
    seen: list[str] = []

    @agent.output_validator
    def not_blank(text: str) -> str:
        seen.append(text)
        if text.strip() == "shouting":
            raise ModelRetry("Do not shout.")
        return text.upper()

    result = await agent.run("hi")
    assert result.output == "CALM" and seen == ["  shouting  ", "calm"]
    assert feedback(agent) == ["Do not shout."]


def chat_reply(content: str) -> tuple[int, dict[str, Any]]:
    message = {"role": "assistant", "content": content}
    return 200, {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
    }


async def test_a_prompted_model_over_http_is_sent_back_by_a_validator(
    fake_upstream: Callable[[list[Any]], Any],
) -> None:
    upstream = fake_upstream(
        [
            chat_reply('{"name": "Oslo", "population": 3}'),
            chat_reply('{"name": "Oslo", "population": 7000}'),
        ]
    )
    model = resolve_model("my-local-model", base_url=f"{upstream.url}/v1", mode="validated")
    agent = Agent(model=model, output_type=City, deps_type=Deps)

    @agent.output_validator
    def big_enough(ctx: RunContext[Deps], city: City) -> City:
        if city.population < ctx.deps.minimum:
            raise ModelRetry("too small")
        return city

    result = await agent.run("A city?", deps=Deps(minimum=1000))
    assert result.output.population == 7000
    last = upstream.bodies[1]["messages"][-1]
    assert last["role"] == "user" and last["content"].startswith("too small")
