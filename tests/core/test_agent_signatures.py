"""The typed dicts behind the overloads of Agent(...), run, run_sync and stream list
every option of the implementations (an option missing there is refused by mypy)."""

from __future__ import annotations

import inspect

from good_agent import Agent
from good_agent.core.agent import _RUN_KEYS
from good_agent.core.agent_options import AgentOptions, RunOptionsDict

TYPED_APART = {"self", "prompt", "system_prompt_parts", "output_type", "deps_type", "deps"}


def options_of(function: object) -> set[str]:
    return set(inspect.signature(function).parameters) - TYPED_APART  # type: ignore[arg-type]


def test_agent_options_list_every_constructor_option() -> None:
    assert options_of(Agent.__init__) == set(AgentOptions.__annotations__)


def test_run_options_list_every_run_option() -> None:
    # The run methods take the typed dict itself, and read each of its keys.
    for method in (Agent.run, Agent.stream, Agent.iter):
        assert options_of(method) == {"options"}
        annotation = str(inspect.signature(method).parameters["options"].annotation)
        assert "Unpack[RunOptionsDict]" in annotation
    assert _RUN_KEYS | {"message_history"} == set(RunOptionsDict.__annotations__)
