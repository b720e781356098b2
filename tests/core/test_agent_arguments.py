"""``Agent(...)`` refuses a wrong model type or tool_choice at construction, with the fix."""

from __future__ import annotations

from typing import Any

import pytest

from good_agent import Agent, ModelConfigError
from good_agent.testing import ScriptedModel


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"model": 42}, "not int"),
        ({"model": ScriptedModel}, "model=ScriptedModel(...)"),
        ({"model": "  "}, "empty string"),
        ({"model": ScriptedModel(["x"]), "tool_choice": "any_tool"}, "unknown tool_choice"),
        ({"model": ScriptedModel(["x"]), "tool_choice": {"type": "function"}}, '"required"'),
    ],
    ids=["int", "class", "empty", "unknown-choice", "nameless-function"],
)
def test_bad_arguments_are_refused_at_construction(kwargs: dict[str, Any], expected: str) -> None:
    with pytest.raises(ModelConfigError) as caught:
        Agent(**kwargs)
    assert expected in str(caught.value)


@pytest.mark.parametrize(
    "choice",
    ["auto", "none", "required", {"type": "function", "function": {"name": "f"}}, None],
)
def test_valid_tool_choices_and_models_pass(choice: Any) -> None:
    Agent(model=ScriptedModel(["x"]), tool_choice=choice)
    Agent(model="gpt-4o-mini", tool_choice=choice)
    Agent(tool_choice=choice)
