"""The `CallContext`: everything a per-call adapter hook may know about the call."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from good_agent.tools.tool import Tool
from good_agent.types.messages import ToolCall, ToolResponse


@dataclass(frozen=True, slots=True)
class CallContext:
    """One tool call as the adapter hooks see it. Frozen: make a changed copy with
    [`with_parameters`][good_agent.CallContext.with_parameters].

    Attributes:
        agent: The agent running the call.
        call: The model's [`ToolCall`][good_agent.ToolCall] (its ``id`` addresses the answer).
        tool: The [`Tool`][good_agent.Tool] that will run.
        arguments: The arguments exactly as the model sent them (adapted signature).
        attempt: 1 for the first call of this tool in a run, 2 after one failed call, ...
        parameters: What the tool will receive. In ``adapt_parameters`` these are the
            model's arguments (the unwrapping is in progress); in ``around_call`` and
            ``adapt_response`` they are the fully unwrapped parameters.
        run: The run's [`RunContext`][good_agent.RunContext] (its ``deps``, usage, model...).
            The agent and the run context are typed ``Any`` here, as in every adapter
            hook: the adapter layer sits below the agent core and does not import it.
    """

    agent: Any
    call: ToolCall
    tool: Tool
    arguments: Mapping[str, Any]
    attempt: int
    parameters: Mapping[str, Any]
    run: Any

    @property
    def tool_name(self) -> str:
        """The called tool's name."""
        return self.call.name

    def with_parameters(self, parameters: Mapping[str, Any]) -> CallContext:
        """This context with other ``parameters`` (pass it to ``call_next``); they are
        validated again before the tool runs."""
        return replace(self, parameters=parameters)

    def respond(self, value: Any = None) -> ToolResponse:
        """A successful [`ToolResponse`][good_agent.ToolResponse] to this call (no tool run)."""
        return ToolResponse(tool_name=self.call.name, tool_call_id=self.call.id, response=value)

    def fail(self, error: str) -> ToolResponse:
        """An error [`ToolResponse`][good_agent.ToolResponse] to this call; the model reads
        ``error``."""
        return ToolResponse(
            tool_name=self.call.name, tool_call_id=self.call.id, success=False, error=error
        )


_SLOTS = tuple(
    CallContext.__dict__[name].__set__
    for name in ("agent", "call", "tool", "arguments", "attempt", "parameters", "run")
)


def make_context(
    agent: Any,
    call: ToolCall,
    tool: Tool,
    arguments: Mapping[str, Any],
    attempt: int,
    parameters: Mapping[str, Any],
    run: Any,
) -> CallContext:
    """``CallContext(...)`` for the agent's hot path: the frozen instance is filled
    through its slots, without the per-field checks of the generated ``__init__``."""
    ctx = object.__new__(CallContext)
    set_agent, set_call, set_tool, set_arguments, set_attempt, set_parameters, set_run = _SLOTS
    set_agent(ctx, agent)
    set_call(ctx, call)
    set_tool(ctx, tool)
    set_arguments(ctx, arguments)
    set_attempt(ctx, attempt)
    set_parameters(ctx, parameters)
    set_run(ctx, run)
    return ctx


CallNext = Callable[[CallContext], Awaitable[ToolResponse]]
"""What ``around_call`` calls to run the rest of the chain and the tool."""
