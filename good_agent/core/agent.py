"""The :class:`Agent`: history, tools, components and one adapter chain, around a model."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from types import TracebackType
from typing import Any, ClassVar, Literal, TypeVar

from good_agent.adapters import AdapterChain
from good_agent.core._execution import current_plans, execute_call
from good_agent.core._loop import run_loop
from good_agent.core.components import AgentComponent
from good_agent.core.errors import GoodAgentError, ModelConfigError
from good_agent.core.events import AgentEvents, EventBus
from good_agent.core.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolMessage,
    ToolResponse,
    UserMessage,
)
from good_agent.core.specs import resolve_spec
from good_agent.models.base import LanguageModel
from good_agent.models.resolve import resolve_model
from good_agent.providers.types import ToolChoice
from good_agent.tools.registry import ToolRegistry
from good_agent.tools.tool import Tool

C = TypeVar("C", bound=AgentComponent)


class Agent:
    """An LLM agent: a conversation, tools, components and a model.

    Args:
        *system_prompt_parts: Joined with blank lines into the system message.
        model: A model name (``"gpt-4o-mini"``, ``"openai:..."``) or a
            :class:`~good_agent.models.LanguageModel` such as ``ScriptedModel``.
        tools: Tools or plain functions the model may call.
        extensions: Components to install on entering the agent.
        mcp_servers: MCP servers whose tools the agent uses: a command line
            (``"python -m my_server"``), a URL (``"http://127.0.0.1:8000/mcp"``) or a
            ready ``MCPTools``; needs the ``mcp`` extra.
        max_iterations: Model requests allowed in one :meth:`call`.
        max_tool_retries: Failed calls allowed per tool in one :meth:`call`.
        tool_choice: ``"auto"`` (default when tools exist), ``"required"``,
            ``"none"`` or ``{"type": "function", "function": {"name": ...}}``.
        tool_errors: ``"report"`` sends an exception raised by a tool back to the
            model as an error result (and logs it); ``"raise"`` propagates it.
        model_settings: Sampling settings sent with every request.
        base_url: Endpoint for a model given by name.
        api_key: Key for a model given by name.
        context: Free-form state, e.g. for conditional adapters.
    """

    __tool_injection__: ClassVar[str] = "agent"

    def __init__(
        self,
        *system_prompt_parts: str,
        model: str | LanguageModel | None = None,
        tools: Iterable[Tool | Callable[..., Any]] = (),
        extensions: Iterable[AgentComponent] = (),
        mcp_servers: Iterable[str | AgentComponent] = (),
        max_iterations: int = 10,
        max_tool_retries: int = 3,
        tool_choice: ToolChoice | None = None,
        tool_errors: Literal["report", "raise"] = "report",
        model_settings: dict[str, Any] | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        context: dict[str, Any] | None = None,
    ) -> None:
        self.events = EventBus(self)
        self.tools = ToolRegistry(tools)
        self.adapter_chain = AdapterChain(self)
        self.messages: list[Message] = []
        system = "\n\n".join(part for part in system_prompt_parts if part)
        if system:
            self.messages.append(SystemMessage(content=system))
        self._model_spec = model
        self._model: LanguageModel | None = None
        self._base_url, self._api_key = base_url, api_key
        self.components: list[AgentComponent] = list(extensions)
        self.components += [
            resolve_spec("mcp_servers", s) if isinstance(s, str) else s for s in mcp_servers
        ]
        self.max_iterations = max_iterations
        self.max_tool_retries = max_tool_retries
        self.tool_choice = tool_choice
        self.tool_errors = tool_errors
        self.model_settings = dict(model_settings or {})
        self.context: dict[str, Any] = dict(context or {})
        self._installed: list[AgentComponent] = []
        self._entered = False
        self._invocations = itertools.count(1)

    @property
    def model(self) -> LanguageModel:
        """The model this agent talks to (resolved from its name on first use)."""
        if self._model is None:
            if self._model_spec is None:
                raise ModelConfigError("this agent has no model: pass model=... to Agent()")
            self._model = resolve_model(
                self._model_spec, base_url=self._base_url, api_key=self._api_key
            )
        return self._model

    async def __aenter__(self) -> Agent:
        await self.install()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def install(self) -> None:
        """Install the components (idempotent). ``async with`` and :meth:`call` do this."""
        if self._entered:
            return
        self._entered = True
        try:
            for component in self.components:
                await component.install(self)
                self._installed.append(component)
                await self.events.emit(AgentEvents.EXTENSION_INSTALL, component)
            await self.events.emit(AgentEvents.AGENT_INIT, self)
        except BaseException:
            await self.close()
            raise

    async def close(self) -> None:
        """Uninstall the components in reverse order, even if one of them fails."""
        if not self._entered:
            return
        errors: list[BaseException] = []
        try:
            await self.events.emit(AgentEvents.AGENT_CLOSE, self)
        finally:
            while self._installed:
                component = self._installed.pop()
                try:
                    await component.uninstall(self)
                    await self.events.emit(AgentEvents.EXTENSION_UNINSTALL, component)
                except Exception as exc:
                    errors.append(exc)
            self._entered = False
        if errors:
            raise GoodAgentError(f"{len(errors)} component(s) failed to uninstall") from errors[0]

    def __getitem__(self, component_type: type[C]) -> C:
        for component in self.components:
            if isinstance(component, component_type):
                return component
        raise KeyError(f"no {component_type.__name__} is installed on this agent")

    async def append(self, message: Message) -> Message:
        """Append ``message`` to the history through :attr:`AgentEvents.MESSAGE_APPEND`."""
        message = await self.events.emit(AgentEvents.MESSAGE_APPEND, message)
        self.messages.append(message)
        return message

    async def call(self, prompt: str | None = None) -> AssistantMessage:
        """Add ``prompt`` as a user message and run the tool loop to a text answer."""
        await self.install()
        if prompt is not None:
            await self.append(UserMessage(content=prompt))
        return await run_loop(self)

    async def invoke(self, tool_name: str, **arguments: Any) -> ToolResponse:
        """Run a tool as if the model had called it, through the same pipeline.

        ``arguments`` are what the model would send (the adapted signature's
        parameters). The call and its result are recorded in the history.
        """
        await self.install()
        plans = await current_plans(self)
        call = ToolCall(id=f"invoke_{next(self._invocations)}", name=tool_name, arguments=arguments)
        await self.append(AssistantMessage(tool_calls=[call]))
        response = await execute_call(self, call, plans)
        await self.append(ToolMessage.from_response(response))
        return response

    async def tool_signatures(self) -> list[dict[str, Any]]:
        """The tool definitions the model would see now (after adapters)."""
        return [plan.signature for plan in (await current_plans(self)).values()]
