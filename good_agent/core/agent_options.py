"""The keyword arguments of `Agent` and of its runs, as typed dicts.

They let the typed overloads of ``Agent(...)``, ``run``, ``run_sync`` and ``stream``
(which pick the output type) list the other options once. Each option is described
on `Agent` and `run`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal, TypedDict

from good_agent.core.approvals import Approval
from good_agent.core.components import AgentComponent
from good_agent.core.history_processors import HistoryProcessor
from good_agent.core.instructions import Instruction, InstructionsFunction
from good_agent.core.output import EndStrategy, OutputMode
from good_agent.models.base import LanguageModel
from good_agent.providers.types import ToolChoice
from good_agent.tools.tool import Tool
from good_agent.tools.toolset import Toolset
from good_agent.types.messages import Message
from good_agent.types.usage import RunUsage, UsageLimits

__all__ = ["AgentOptions", "RunOptionsDict"]


class AgentOptions(TypedDict, total=False):
    """The options of ``Agent(...)`` besides the system prompt, output and deps types."""

    model: str | LanguageModel | None
    tools: Iterable[Tool | Toolset | Callable[..., Any]]
    extensions: Iterable[AgentComponent]
    mcp_servers: Iterable[str | AgentComponent]
    max_iterations: int
    max_tool_retries: int
    tool_choice: ToolChoice | None
    tool_errors: Literal["report", "raise"]
    tool_timeout: float | None
    max_concurrency: int | None
    model_settings: dict[str, Any] | None
    base_url: str | None
    api_key: str | None
    context: dict[str, Any] | None
    messages: Iterable[Message]
    output_mode: OutputMode
    output_retries: int
    end_strategy: EndStrategy
    usage_limits: UsageLimits | None
    instructions: str | InstructionsFunction | Iterable[Instruction] | None
    history_processors: Iterable[HistoryProcessor]
    name: str | None


class RunOptionsDict(TypedDict, total=False):
    """The options of one run besides its prompt, output type and deps."""

    output_mode: OutputMode | None
    usage_limits: UsageLimits | None
    approvals: Mapping[str, Approval] | None
    tool_choice: ToolChoice | None
    tools: Iterable[Tool | Toolset | Callable[..., Any]]
    usage: RunUsage | None
    message_history: Iterable[Message] | None
    model: str | LanguageModel | None
    model_settings: Mapping[str, Any] | None
    instructions: str | InstructionsFunction | Iterable[Instruction] | None
    end_strategy: EndStrategy | None
