"""FallbackModel: the next model answers when one fails with a listed error."""

from __future__ import annotations

from typing import Any

import pytest

from good_agent import (
    Agent,
    AllModelsFailedError,
    FallbackModel,
    ModelBadRequestError,
    ModelConnectionError,
    ModelOverloadedError,
    TextDeltaEvent,
)
from good_agent.models.base import ModelRequest
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio


def failing(error: Exception) -> ScriptedModel:
    def raise_(request: ModelRequest) -> Any:
        raise error

    return ScriptedModel([raise_] * 5, name="failing")


async def test_the_next_model_answers_when_one_is_overloaded() -> None:
    backup = ScriptedModel(["from backup"], name="backup")
    primary = failing(ModelOverloadedError("busy", status_code=529))
    agent = Agent(model=FallbackModel(primary, backup))
    assert (await agent.call("hi")).content == "from backup"
    assert len(primary.requests) == 1 and len(backup.requests) == 1
    assert agent.model.model_name == "fallback:failing,backup"


async def test_an_error_not_listed_is_raised_at_once() -> None:
    backup = ScriptedModel(["never"])
    model = FallbackModel(failing(ModelBadRequestError("bad", status_code=400)), backup)
    with pytest.raises(ModelBadRequestError):
        await Agent(model=model).call("hi")
    assert backup.requests == []


async def test_on_chooses_the_errors_that_fall_back() -> None:
    backup = ScriptedModel(["ok"])
    model = FallbackModel(failing(ModelBadRequestError("bad")), backup, on=(ModelBadRequestError,))
    assert (await Agent(model=model).call("hi")).content == "ok"


async def test_all_models_failing_raises_one_error_with_each_failure() -> None:
    model = FallbackModel(
        failing(ModelOverloadedError("busy")), failing(ModelConnectionError("down"))
    )
    with pytest.raises(AllModelsFailedError) as caught:
        await Agent(model=model).call("hi")
    assert [type(e) for e in caught.value.errors] == [ModelOverloadedError, ModelConnectionError]
    assert "busy" in str(caught.value) and "down" in str(caught.value)


async def test_a_streamed_run_falls_back_before_anything_was_streamed() -> None:
    backup = ScriptedModel([ScriptedModel.streamed("back", "up")])
    agent = Agent(model=FallbackModel(failing(ModelOverloadedError("busy")), backup))
    async with agent.stream("hi") as run:
        texts = [e.text async for e in run if isinstance(e, TextDeltaEvent)]
    assert texts == ["back", "up"] and run.result.content == "backup"


async def test_models_given_by_name_are_resolved() -> None:
    model = FallbackModel("gpt-4o-mini", ScriptedModel(["x"]))
    assert model.models[0].model_name == "gpt-4o-mini"
