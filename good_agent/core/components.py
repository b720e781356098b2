"""Components: reusable pieces that plug tools, event handlers and tool adapters into an agent."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

# The adapter vocabulary components declare adapters with, importable from here.
from good_agent.adapters._adapter import AdapterMetadata as AdapterMetadata
from good_agent.adapters._adapter import ConflictStrategy as ConflictStrategy
from good_agent.core.events import AgentEvents, Handler
from good_agent.tools.tool import Tool

if TYPE_CHECKING:
    from good_agent.adapters import ToolAdapter
    from good_agent.core.definition import AgentDefinition
    from good_agent.models.base import ModelRequest, ModelResponse

F = TypeVar("F", bound=Callable[..., Any])

ModelCall = Callable[["ModelRequest"], Awaitable["ModelResponse"]]
"""What sends one model request (whole or streamed) and returns the reply."""

_HANDLER_MARK = "__good_agent_handlers__"


def on(event: AgentEvents, *, priority: int = 0) -> Callable[[F], F]:
    """Mark a component method as a handler of ``event``, connected while installed."""

    def mark(method: F) -> F:
        marks: list[tuple[AgentEvents, int]] = list(getattr(method, _HANDLER_MARK, []))
        marks.append((event, priority))
        setattr(method, _HANDLER_MARK, marks)
        return method

    return mark


class AgentComponent:
    """Base class for components (extensions) of an [`Agent`][good_agent.Agent].

    Subclasses declare handlers with [`on`][good_agent.on], tools with ``@tool`` on methods, and
    register tool adapters with
    [`register_tool_adapter`][good_agent.AgentComponent.register_tool_adapter], at install
    time or later.
    Override [`install`][good_agent.AgentComponent.install] /
    [`uninstall`][good_agent.AgentComponent.uninstall] for extra setup; call ``super()``.
    A component that overrides
    [`around_model_request`][good_agent.AgentComponent.around_model_request] wraps every
    model request of the agent's runs.
    """

    def __init__(self) -> None:
        self.agent: AgentDefinition | None = None
        self._adapters: list[ToolAdapter] = []
        self._connected: list[tuple[AgentEvents, Handler]] = []
        self._tool_names: list[str] = []

    @property
    def tool_adapters(self) -> list[ToolAdapter]:
        """The adapters this component has registered."""
        return list(self._adapters)

    def component_tools(self) -> list[Tool]:
        """The tools declared on this component with ``@tool`` (bound to it)."""
        found: list[Tool] = []
        for klass in reversed(type(self).__mro__):
            for name, value in vars(klass).items():
                if isinstance(value, Tool) and all(t.name != value.name for t in found):
                    found.append(getattr(self, name))
        return found

    def _handler_methods(self) -> list[tuple[AgentEvents, int, Handler]]:
        result = []
        seen: set[str] = set()
        for klass in type(self).__mro__:
            for name, value in vars(klass).items():
                if name in seen or not hasattr(value, _HANDLER_MARK):
                    continue
                seen.add(name)
                for event, priority in getattr(value, _HANDLER_MARK):
                    result.append((event, priority, getattr(self, name)))
        return result

    async def install(self, agent: AgentDefinition) -> None:
        """Attach to ``agent``: connect handlers, add tools, register pending adapters."""
        self.agent = agent
        for event, priority, handler in self._handler_methods():
            agent.events.on(event, handler, priority=priority)
            self._connected.append((event, handler))
        for item in self.component_tools():
            agent.tools.add(item)
            self._tool_names.append(item.name)
        for adapter in self._adapters:
            agent.adapter_chain.add(adapter)
        if self._wraps_model_requests():
            agent.model_wrappers.append(self.around_model_request)

    async def uninstall(self, agent: AgentDefinition) -> None:
        """Detach from ``agent``: disconnect handlers, remove tools and adapters."""
        for event, handler in self._connected:
            agent.events.off(event, handler)
        self._connected.clear()
        for name in self._tool_names:
            agent.tools.remove(name)
        self._tool_names.clear()
        for adapter in self._adapters:
            agent.adapter_chain.remove(adapter)
        if self._wraps_model_requests():
            agent.model_wrappers.remove(self.around_model_request)
        self.agent = None

    def _wraps_model_requests(self) -> bool:
        return type(self).around_model_request is not AgentComponent.around_model_request

    def around_model_request(
        self, request: ModelRequest, call_next: ModelCall
    ) -> Awaitable[ModelResponse]:
        """Wrap one model request: return ``call_next(request)`` or an answer of your own.

        Called for each request of a run, after ``LLM_REQUEST_BEFORE`` and before
        ``LLM_RESPONSE_AFTER``; for a streamed run ``call_next`` streams the deltas
        to the run's listener and returns the whole reply. The components that
        override it wrap the request in install order, the first outermost.
        """
        return call_next(request)

    def register_tool_adapter(self, adapter: ToolAdapter) -> ToolAdapter:
        """Register ``adapter``; it joins the agent's chain now or at install."""
        if adapter not in self._adapters:
            self._adapters.append(adapter)
            if self.agent is not None:
                self.agent.adapter_chain.add(adapter)
        return adapter

    def unregister_tool_adapter(self, adapter: ToolAdapter) -> None:
        """Remove ``adapter`` from this component and from the agent's chain."""
        if adapter in self._adapters:
            self._adapters.remove(adapter)
            if self.agent is not None:
                self.agent.adapter_chain.remove(adapter)
