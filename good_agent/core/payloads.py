"""Payloads of the tool events, as handlers receive them in ``ctx.payload``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from good_agent.tools.tool import Tool
from good_agent.types.content import UserPrompt
from good_agent.types.messages import ToolCall, ToolResponse


@dataclass(slots=True)
class SignaturePayload:
    """[`TOOLS_GENERATE_SIGNATURE`][good_agent.AgentEvents]: one tool's
    adapted signature.

    A handler may assign a new ``signature``; the model's arguments are then validated
    against it.
    """

    tool: Tool
    signature: dict[str, Any]


@dataclass(slots=True)
class ToolCallBefore:
    """[`TOOL_CALL_BEFORE`][good_agent.AgentEvents]: a call about to run.

    ``parameters`` are the unwrapped parameters the tool will receive; a handler may
    change them, or set ``response`` to answer the call without running the tool.
    """

    call: ToolCall
    tool: Tool
    parameters: dict[str, Any]
    response: ToolResponse | None = None

    def answer(self, value: Any = None, *, error: str | None = None) -> None:
        """Answer the call without running the tool: ``value``, or ``error`` for the model."""
        self.response = ToolResponse(
            tool_name=self.call.name,
            tool_call_id=self.call.id,
            response=value,
            success=error is None,
            error=error,
        )


@dataclass(slots=True)
class ToolCallAfter:
    """[`TOOL_CALL_AFTER`][good_agent.AgentEvents]: a call's (adapted) response."""

    call: ToolCall
    tool: Tool | None
    parameters: dict[str, Any]
    response: ToolResponse


@dataclass(frozen=True, slots=True)
class ToolCallErrorPayload:
    """[`TOOL_CALL_ERROR`][good_agent.AgentEvents]: a call that failed, and why."""

    call: ToolCall
    error: BaseException


@dataclass(frozen=True, slots=True)
class RunStartPayload:
    """[`RUN_START`][good_agent.AgentEvents]: a run (run, stream or call) begins.

    ``output_type`` is ``None`` for a text run; ``streamed`` says whether deltas are
    streamed; ``resumed`` whether the run resumes calls that waited for approval.
    """

    run_id: str
    prompt: UserPrompt | None
    output_type: Any
    streamed: bool
    resumed: bool


@dataclass(frozen=True, slots=True)
class RunEndPayload:
    """[`RUN_END`][good_agent.AgentEvents]: a run ended, with a result or an error.

    ``result`` is the [`RunResult`][good_agent.RunResult] (``None`` when the run failed or
    was cancelled); ``error`` the exception that ended it; ``usage`` the totals so far.
    """

    run_id: str
    result: Any
    error: BaseException | None
    usage: Any
