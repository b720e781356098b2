"""``ScriptedModel(repeat=True)``: a script that starts over, for a model answering any
number of conversations (the served-agent example's)."""

from __future__ import annotations

import pytest

from good_agent import Agent, ScriptExhaustedError
from good_agent.models.base import ModelRequest
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio


async def test_a_repeating_script_starts_over_after_its_last_reply() -> None:
    model = ScriptedModel(["one", "two"], repeat=True)
    agent = Agent(model=model)
    answers = [(await agent.call(f"q{n}")).content for n in range(5)]
    assert answers == ["one", "two", "one", "two", "one"]
    assert model.remaining == 1


async def test_a_callable_entry_repeated_answers_each_conversation_at_its_own_step() -> None:
    def answer(request: ModelRequest) -> str:
        return f"turn {sum(m.role == 'user' for m in request.messages)}"

    model = ScriptedModel([answer], repeat=True)
    first, second = Agent(model=model), Agent(model=model)
    assert (await first.call("a")).content == "turn 1"
    assert (await second.call("b")).content == "turn 1"


async def test_without_repeat_or_with_an_empty_script_it_still_runs_out() -> None:
    with pytest.raises(ScriptExhaustedError):
        await Agent(model=ScriptedModel([], repeat=True)).call("a")
    model = ScriptedModel(["only"])
    await Agent(model=model).call("a")
    with pytest.raises(ScriptExhaustedError):
        await Agent(model=model).call("b")
