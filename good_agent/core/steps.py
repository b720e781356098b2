"""The steps of a run, as [`good_agent.Agent.iter`][good_agent.Agent.iter] yields them.

A run is a sequence of model turns: [`ModelStep`][good_agent.ModelStep] (a request and
the reply, already in the history), then, when the reply calls tools,
[`ToolCallsStep`][good_agent.ToolCallsStep] (before they run: change
[`ToolCallsStep.calls`][good_agent.ToolCallsStep.calls] to change what runs) and
[`ToolResultsStep`][good_agent.ToolResultsStep] (their results, in the history); the run
ends with [`EndStep`][good_agent.EndStep], which holds the
[`RunResult`][good_agent.RunResult].
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from good_agent.core.results import RunResult
from good_agent.models.base import ModelRequest
from good_agent.types.messages import AssistantMessage, ToolCall, ToolMessage

__all__ = ["EndStep", "ModelStep", "RunStep", "ToolCallsStep", "ToolResultsStep"]


@dataclass(frozen=True, slots=True)
class ModelStep:
    """One model request and its reply; the reply is already in the history.

    Attributes:
        request: What was sent (the history as processed, instructions, tools).
        message: The model's reply.
    """

    request: ModelRequest
    message: AssistantMessage


@dataclass(slots=True)
class ToolCallsStep:
    """The tool calls of the model's reply, before any of them runs.

    Change ``calls`` (edit a call's arguments with ``call.model_copy(update=...)``,
    drop calls, add others) and the run executes the calls as changed: the reply in
    the history is replaced by one holding them, so every call keeps its result.
    Emptied, the reply has no calls and is the run's answer.

    Attributes:
        message: The reply holding the calls (as the model sent them).
        calls: The calls that will run.
    """

    message: AssistantMessage
    calls: list[ToolCall]


@dataclass(frozen=True, slots=True)
class ToolResultsStep:
    """The calls of one turn have run; their results are in the history.

    Attributes:
        calls: The calls that ran.
        results: Their results, in call order.
    """

    calls: list[ToolCall]
    results: list[ToolMessage]


@dataclass(frozen=True, slots=True)
class EndStep:
    """The run ended; ``result`` is what [`run`][good_agent.Agent.run] returns."""

    result: RunResult[Any]


RunStep = ModelStep | ToolCallsStep | ToolResultsStep | EndStep
"""Any step of a run."""
