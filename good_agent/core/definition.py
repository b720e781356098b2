"""What the run engine, components and run contexts know of an agent: its definition.

[`AgentDefinition`][good_agent.AgentDefinition] is the public face of an
[`Agent`][good_agent.Agent] that the engine (``core/_loop.py``, ``_run_state.py``,
``_turns.py``, ``_execution.py``), the components and a run's
[`RunContext`][good_agent.RunContext] use. Naming it instead of the ``Agent`` class keeps
``core/`` free of an import circle through ``agent.py``.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from good_agent.adapters import AdapterChain
    from good_agent.core.events import EventBus
    from good_agent.models.base import LanguageModel, ModelRequest, ModelResponse
    from good_agent.tools.registry import ToolRegistry
    from good_agent.types.messages import Message

__all__ = ["AgentDefinition"]


class AgentDefinition(Protocol):
    """An agent as its definition: model, tools, adapter chain, events and limits.

    [`Agent`][good_agent.Agent] is one; the run engine and components see an agent
    through these members only.
    """

    name: str | None
    logger: logging.Logger
    events: EventBus
    tools: ToolRegistry
    adapter_chain: AdapterChain
    model_wrappers: list[
        Callable[
            [ModelRequest, Callable[[ModelRequest], Awaitable[ModelResponse]]],
            Awaitable[ModelResponse],
        ]
    ]
    context: dict[str, Any]
    tool_timeout: float | None
    tool_errors: Literal["report", "raise"]
    max_concurrency: int | None

    @property
    def model(self) -> LanguageModel:
        """The agent's model."""
        ...

    @property
    def messages(self) -> list[Message]:
        """The history of the agent's own conversation."""
        ...

    async def install(self) -> None:
        """Install the agent's components (idempotent)."""
        ...
