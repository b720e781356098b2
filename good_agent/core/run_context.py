"""The `RunContext`: what one run knows, for the code that serves it.

Tools that ask for it by annotation, instructions functions, output validators and
history processors receive it; adapter hooks reach it as ``ctx.run`` on their
`CallContext`. It carries the run's dependencies (``deps``),
which are the application's objects: never sent to the model, written into the
history, logged, put in a cache key or a span.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar, Generic

from typing_extensions import TypeVar

from good_agent.types.content import UserPrompt
from good_agent.types.usage import RunUsage

if TYPE_CHECKING:
    from good_agent.core.conversation import Conversation
    from good_agent.core.definition import AgentDefinition
    from good_agent.models.base import LanguageModel
    from good_agent.types.messages import Message, ToolCall

DepsT = TypeVar("DepsT", default=Any)
"""The type of a run's dependencies (``Agent(deps_type=...)``)."""

__all__ = ["DepsT", "RunContext", "takes_context"]


@dataclass(frozen=True, slots=True)
class RunContext(Generic[DepsT]):
    """One run as its tools, instructions, output validators and history processors see it.

    A tool receives it by annotating a parameter ``RunContext[MyDeps]`` (the
    parameter is not part of the schema the model sees); adapters read it as
    ``ctx.run``. ``deps`` is left out of the context's ``repr``.

    Attributes:
        deps: The run's dependencies: ``agent.run(prompt, deps=...)``.
        agent: The agent running.
        usage: The run's usage totals so far (updated as the run goes on).
        messages: The agent's history, this run's messages included (read it; the
            run appends to it).
        run_id: The run's identifier (the one on ``RUN_START`` / ``RUN_END``).
        prompt: The run's prompt (``None`` when it continues without one).
        retry: How many times the current step failed before: the tool's failed
            calls in this run for a tool, the rejected answers for an output
            validator, 0 elsewhere.
        tool_name: The tool being called (``None`` outside a tool call).
        tool_call_id: The id of the call being run (``None`` outside a tool call).
        conversation: The [`Conversation`][good_agent.Conversation] the run belongs to
            (its ``state`` holds what components keep for it).
        run_model: The model given to this run (``model=``), if any.
    """

    __tool_injection__: ClassVar[str] = "run"

    deps: DepsT = field(repr=False)
    agent: AgentDefinition = field(repr=False)
    usage: RunUsage
    messages: list[Message] = field(repr=False)
    run_id: str
    prompt: UserPrompt | None = None
    retry: int = 0
    tool_name: str | None = None
    tool_call_id: str | None = None
    conversation: Conversation | None = field(default=None, repr=False, compare=False)
    run_model: LanguageModel | None = field(default=None, repr=False, compare=False)

    @property
    def model(self) -> LanguageModel:
        """The model the run talks to (a run's ``model=`` or the agent's)."""
        return self.run_model if self.run_model is not None else self.agent.model

    def for_call(self, call: ToolCall, attempt: int) -> RunContext[DepsT]:
        """This context for one tool call (``attempt`` 1 is its first try)."""
        return replace(self, retry=attempt - 1, tool_name=call.name, tool_call_id=call.id)

    def with_retry(self, retry: int) -> RunContext[DepsT]:
        """This context with another [`retry`][good_agent.RunContext] count."""
        return self if retry == self.retry else replace(self, retry=retry)


def takes_context(function: Callable[..., Any], arguments: int) -> bool:
    """Whether ``function`` takes a `RunContext` before its ``arguments`` others.

    It does when it accepts ``arguments + 1`` positional parameters, or when its first
    parameter is annotated ``RunContext`` (the annotation is read as written, so a
    string annotation counts too).
    """
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return False
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if any(p.kind is p.VAR_POSITIONAL for p in parameters):
        first = positional[0].annotation if positional else None
        return _names_run_context(first)
    return len(positional) > arguments or (
        bool(positional) and _names_run_context(positional[0].annotation)
    )


def _names_run_context(annotation: Any) -> bool:
    if isinstance(annotation, str):
        return annotation.startswith("RunContext")
    origin = getattr(annotation, "__origin__", annotation)
    return origin is RunContext
