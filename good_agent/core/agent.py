"""The [`Agent`][good_agent.Agent]: history, tools, components and one adapter chain,
around a model."""

from __future__ import annotations

import enum
import itertools
import logging
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from types import MappingProxyType, TracebackType
from typing import Any, ClassVar, Generic, Literal, Self, Unpack, overload

import anyio
from typing_extensions import TypeVar

from good_agent.adapters import AdapterChain
from good_agent.core._execution import current_plans, execute_call
from good_agent.core._loop import RunOptions, RunSetup, StepHook, run_engine
from good_agent.core.agent_options import AgentOptions, RunOptionsDict
from good_agent.core.arguments import check_agent_arguments, check_tool_limits
from good_agent.core.components import AgentComponent, ModelCall
from good_agent.core.conversation import Conversation, check_history
from good_agent.core.events import AgentEvents, EventBus
from good_agent.core.history_processors import HistoryProcessor, HistoryProcessors
from good_agent.core.instructions import Instruction, Instructions, InstructionsFunction
from good_agent.core.iteration import AgentRun
from good_agent.core.output import EndStrategy, OutputMode, OutputSpec, is_text_type
from good_agent.core.output_validators import OutputValidator, OutputValidators
from good_agent.core.results import RunResult
from good_agent.core.run_context import DepsT, RunContext
from good_agent.core.specs import resolve_spec
from good_agent.core.streaming import StreamedRun
from good_agent.core.sync_loop import (
    CREATION_LOCK,
    SyncLoop,
    close_models,
    refuse_inside_a_loop,
)
from good_agent.models.base import LanguageModel, ModelRequest, ModelResponse
from good_agent.providers.types import ToolChoice
from good_agent.tools.registry import ToolRegistry
from good_agent.tools.tool import Tool
from good_agent.tools.toolset import Toolset
from good_agent.types.builtin_tools import BuiltinTool
from good_agent.types.content import UserPrompt
from good_agent.types.errors import GoodAgentError, ModelConfigError
from good_agent.types.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolMessage,
    ToolResponse,
)
from good_agent.types.usage import RunUsage, UsageLimits

C = TypeVar("C", bound=AgentComponent)
T = TypeVar("T")
F = TypeVar("F", bound=InstructionsFunction)
V = TypeVar("V", bound=OutputValidator)
OutputT = TypeVar("OutputT", default=Any)


class _Unset(enum.Enum):
    UNSET = enum.auto()


@dataclass(frozen=True, slots=True)
class _Override:
    model: LanguageModel | None
    deps: Any


_OVERRIDES: ContextVar[Mapping[int, _Override]] = ContextVar(
    "good_agent_overrides", default=MappingProxyType({})
)
"""The ``Agent.override`` blocks in force in this task, by agent id."""

_RUN_KEYS = frozenset(
    {
        "output_mode",
        "usage_limits",
        "approvals",
        "tool_choice",
        "tools",
        "usage",
        "model",
        "model_settings",
        "builtin_tools",
        "instructions",
        "end_strategy",
    }
)


class Agent(Generic[DepsT, OutputT]):
    """An LLM agent: a conversation, tools, components and a model.

    ``Agent[Deps, Output]`` is generic in the type of its runs' deps and its output
    type, both inferred from ``deps_type=`` and ``output_type=`` (text: ``str``).

    Args:
        *system_prompt_parts: Joined with blank lines into the system message.
        model: A model name (``"gpt-4o-mini"``, ``"openai:..."``) or a
            [`LanguageModel`][good_agent.LanguageModel] such as ``ScriptedModel``.
        tools: Tools, plain functions and toolsets ([`Toolset`][good_agent.Toolset]) the
            model may call.
        extensions: Components to install on entering the agent.
        mcp_servers: MCP servers whose tools the agent uses: a command line
            (``"python -m my_server"``), a URL (``"http://127.0.0.1:8000/mcp"``) or a
            ready ``MCPTools``; needs the ``mcp`` extra.
        max_iterations: Model requests allowed in one run.
        max_tool_retries: Failed calls allowed per tool in one run (a tool's own
            ``@tool(retries=...)`` overrides it).
        tool_timeout: Seconds a tool call may run before it is cancelled and the
            model told (a failed call); a tool's own ``@tool(timeout=...)``
            overrides it. ``None``: no limit.
        max_concurrency: Tool calls of one turn that run at the same time
            (``None``: all of them).
        tool_choice: ``"auto"`` (default when tools exist), ``"required"``,
            ``"none"`` or ``{"type": "function", "function": {"name": ...}}``. A
            forced choice applies to the first request of a run only.
        tool_errors: ``"report"`` sends an exception raised by a tool back to the
            model as an error result (and logs it); ``"raise"`` propagates it.
        model_settings: Sampling settings sent with every request.
        builtin_tools: Tools the provider runs itself
            ([`WebSearchTool`][good_agent.WebSearchTool],
            [`CodeExecutionTool`][good_agent.CodeExecutionTool]...), sent with every
            request in the provider's form; a model whose API has no form for one
            raises [`ModelCapabilityError`][good_agent.ModelCapabilityError] before any request.
        base_url: Endpoint for a model given by name.
        api_key: Key for a model given by name.
        context: Free-form state, e.g. for conditional adapters.
        messages: An earlier conversation to continue (e.g. from
            `good_agent.messages.load_messages`); when it holds a system
            message, ``system_prompt_parts`` are not added.
        output_type: The default output type of [`run`][good_agent.Agent.run] (``None``: text;
            a union with ``str`` also takes a text answer; a function is an output
            function, called with the model's answer as its arguments).
        output_mode: How typed output is asked for (see `good_agent.core.output`).
        output_retries: Invalid typed answers sent back to the model before
            [`OutputValidationError`][good_agent.OutputValidationError].
        end_strategy: The other tool calls of the turn that gives the final output
            (through the output tool): ``"early"`` answers each with a result saying
            it was not run; ``"exhaustive"`` runs them before the run ends (calls
            that need approval excepted).
        usage_limits: Default [`UsageLimits`][good_agent.UsageLimits] of every run.
        deps_type: The type of the dependencies runs take (``run(..., deps=...)``);
            it documents and types them, it is not checked at run time.
        instructions: Text, or functions computing it (sync or async, taking the
            [`RunContext`][good_agent.RunContext] or nothing), added to the system slot of
            every request; evaluated for each run and never stored in the history
            (see [`instructions`][good_agent.Agent.instructions]).
        history_processors: Functions (sync or async, taking the messages, or the
            [`RunContext`][good_agent.RunContext] and the messages) that return the messages
            to send before each model request; the stored history is unchanged.
        name: The agent's name, for logs: [`logger`][good_agent.Agent] is
            ``good_agent.agent.<name>`` (``good_agent.agent`` without a name).

    Attributes:
        logger: A standard `logging.Logger` named for the agent; the run
            engine logs each run's start and end on it at DEBUG (never the prompt,
            the answer or any argument).
    """

    __tool_injection__: ClassVar[str] = "agent"

    @overload
    def __init__(
        self: Agent[DepsT, str],
        *system_prompt_parts: str,
        output_type: None = None,
        deps_type: type[DepsT] | None = None,
        **options: Unpack[AgentOptions],
    ) -> None: ...

    @overload
    def __init__(
        self: Agent[DepsT, OutputT],
        *system_prompt_parts: str,
        output_type: type[OutputT],
        deps_type: type[DepsT] | None = None,
        **options: Unpack[AgentOptions],
    ) -> None: ...

    @overload
    def __init__(
        self: Agent[DepsT, OutputT],
        *system_prompt_parts: str,
        output_type: Callable[..., Awaitable[OutputT]],
        deps_type: type[DepsT] | None = None,
        **options: Unpack[AgentOptions],
    ) -> None: ...

    @overload
    def __init__(
        self: Agent[DepsT, OutputT],
        *system_prompt_parts: str,
        output_type: Callable[..., OutputT],
        deps_type: type[DepsT] | None = None,
        **options: Unpack[AgentOptions],
    ) -> None: ...

    @overload
    def __init__(
        self: Agent[DepsT, Any],
        *system_prompt_parts: str,
        output_type: Any,
        deps_type: type[DepsT] | None = None,
        **options: Unpack[AgentOptions],
    ) -> None: ...

    def __init__(
        self,
        *system_prompt_parts: str,
        model: str | LanguageModel | None = None,
        tools: Iterable[Tool | Toolset | Callable[..., Any]] = (),
        extensions: Iterable[AgentComponent] = (),
        mcp_servers: Iterable[str | AgentComponent] = (),
        max_iterations: int = 10,
        max_tool_retries: int = 3,
        tool_timeout: float | None = None,
        max_concurrency: int | None = None,
        tool_choice: ToolChoice | None = None,
        tool_errors: Literal["report", "raise"] = "report",
        model_settings: dict[str, Any] | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        context: dict[str, Any] | None = None,
        messages: Iterable[Message] = (),
        output_type: Any = None,
        builtin_tools: Iterable[BuiltinTool] = (),
        output_mode: OutputMode = "auto",
        output_retries: int = 1,
        end_strategy: EndStrategy = "early",
        usage_limits: UsageLimits | None = None,
        deps_type: type[Any] | None = None,
        instructions: str | InstructionsFunction | Iterable[Instruction] | None = None,
        history_processors: Iterable[HistoryProcessor] = (),
        name: str | None = None,
    ) -> None:
        check_agent_arguments(model, tool_choice)
        check_tool_limits(tool_timeout, max_concurrency)
        self.name = name
        self.logger = logging.getLogger(f"good_agent.agent.{name}" if name else "good_agent.agent")
        self.events = EventBus(self)
        self.tools = ToolRegistry(tools)
        self.adapter_chain = AdapterChain(self)
        history: list[Message] = list(messages)
        system = "\n\n".join(part for part in system_prompt_parts if part)
        if system and not any(isinstance(m, SystemMessage) for m in history):
            history.insert(0, SystemMessage(content=system))
        self._own: Conversation[DepsT, OutputT] = Conversation(self, history, own=True)
        self._model_spec = model
        self._model: LanguageModel | None = None
        self._base_url, self._api_key = base_url, api_key
        self.components: list[AgentComponent] = list(extensions)
        self.components += [
            resolve_spec("mcp_servers", s) if isinstance(s, str) else s for s in mcp_servers
        ]
        self.max_iterations = max_iterations
        self.max_tool_retries = max_tool_retries
        self.tool_timeout = tool_timeout
        self.max_concurrency = max_concurrency
        self.tool_choice = tool_choice
        self.tool_errors = tool_errors
        self.model_settings = dict(model_settings or {})
        self.builtin_tools: list[BuiltinTool] = list(builtin_tools)
        self.context: dict[str, Any] = dict(context or {})
        self._installed: list[AgentComponent] = []
        self.model_wrappers: list[
            Callable[[ModelRequest, ModelCall], Awaitable[ModelResponse]]
        ] = []
        """The installed components' ``around_model_request`` hooks, first installed first."""
        self._entered = False
        self._invocations = itertools.count(1)
        self.output_type = output_type
        self.output_mode: OutputMode = output_mode
        self.output_retries = output_retries
        self.end_strategy: EndStrategy = end_strategy
        self.usage_limits = usage_limits
        self.deps_type = deps_type
        self._instructions = Instructions(instructions)
        self._output_validators = OutputValidators()
        self._history_processors = HistoryProcessors(history_processors)
        self._sync: SyncLoop | None = None
        self._own_models: list[LanguageModel] = []
        """The models this agent built from a name: it closes them."""
        self._named: dict[str, LanguageModel] = {}
        """The models runs asked for by name (``run(model="...")``), built once."""

    @property
    def messages(self) -> list[Message]:
        """The history of the agent's own conversation (``agent.run`` continues it)."""
        return self._own.messages

    @messages.setter
    def messages(self, value: list[Message]) -> None:
        self._own.messages = value

    @property
    def own_conversation(self) -> Conversation[DepsT, OutputT]:
        """The agent's own [`Conversation`][good_agent.Conversation]: ``agent.messages``,
        ``agent.run(prompt)``."""
        return self._own

    def conversation(self, history: Iterable[Message] = ()) -> Conversation[DepsT, OutputT]:
        """A new conversation on this agent's definition, seeded from ``history``.

        It shares the model, tools, adapter chain, components and instructions (nothing
        is installed again) and keeps its own history, approvals, usage and component
        state; its runs may overlap with any other conversation's. Without a system
        message in ``history`` it opens with the agent's system prompt. An invalid
        history raises [`HistoryError`][good_agent.HistoryError] naming the position.
        """
        return Conversation(self, self._seeded(check_history(history)))

    def _seeded(self, history: list[Message]) -> list[Message]:
        if any(isinstance(m, SystemMessage) for m in history):
            return history
        return [m for m in self._own.messages if isinstance(m, SystemMessage)] + history

    @property
    def model(self) -> LanguageModel:
        """The model this agent talks to (resolved from its name on first use; inside
        [`override`][good_agent.Agent.override], the block's model)."""
        override = _OVERRIDES.get().get(id(self))
        if override is not None and override.model is not None:
            return override.model
        if self._model is None:
            if self._model_spec is None:
                raise ModelConfigError("this agent has no model: pass model=... to Agent()")
            from good_agent.models.resolve import resolve_model  # the vendors, on first use

            self._model = resolve_model(
                self._model_spec, base_url=self._base_url, api_key=self._api_key
            )
            if isinstance(self._model_spec, str):
                self._own_models.append(self._model)
        return self._model

    async def __aenter__(self) -> Self:
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
        """Install the components (idempotent). ``async with`` and
        [`call`][good_agent.Agent.call] do this."""
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

    def __enter__(self) -> Self:
        """``with Agent(...) as agent:`` for code without an event loop (see
        [`close_sync`][good_agent.Agent.close_sync])."""
        refuse_inside_a_loop("__enter__")
        self._sync_loop().run(self.install())
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close_sync()

    async def close(self) -> None:
        """Uninstall the components in reverse order, even if one of them fails, and close
        the connections of the model this agent built from a name (a model object given
        to it is its owner's to close). The agent stays usable: a later run reconnects."""
        try:
            await self._uninstall()
        finally:
            await close_models(self._own_models)

    def close_sync(self) -> None:
        """[`close`][good_agent.Agent.close] for code without an event loop; then
        close the event loop
        [`run_sync`][good_agent.Agent.run_sync] used. ``with Agent(...) as agent:``
        calls it on leaving."""
        refuse_inside_a_loop("close_sync")
        loop, self._sync = self._sync, None
        if loop is None:
            if not self._entered and not self._own_models:
                return
            loop = SyncLoop(self, [])
        loop.close(self.close())

    def _sync_loop(self) -> SyncLoop:
        with CREATION_LOCK:
            if self._sync is None:
                self._sync = SyncLoop(self, self._own_models)
            return self._sync

    async def _uninstall(self) -> None:
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

    def _named_model(self, name: str) -> LanguageModel:
        model = self._named.get(name)
        if model is None:
            from good_agent.models.resolve import resolve_model  # the vendors, on first use

            model = resolve_model(name, base_url=self._base_url, api_key=self._api_key)
            self._named[name] = model
            self._own_models.append(model)
        return model

    def __getitem__(self, component_type: type[C]) -> C:
        for component in self.components:
            if isinstance(component, component_type):
                return component
        raise KeyError(f"no {component_type.__name__} is installed on this agent")

    def instructions(self, function: F) -> F:
        """Decorator: ``function`` computes instructions for every run.

        It may be sync or async and take the run's [`RunContext`][good_agent.RunContext] (or
        nothing); what it returns (``None``: nothing) is added, after the agent's
        other instructions, to the system slot of the run's requests.
        """
        self._instructions.add(function)
        return function

    def output_validator(self, function: V) -> V:
        """Decorator: ``function`` checks the output of every run.

        It receives the validated output (the answer text for a run without an
        output type), and the run's [`RunContext`][good_agent.RunContext] first if it asks
        for it; sync or async. It returns the output (possibly changed) or raises
        [`ModelRetry`][good_agent.ModelRetry] to send the model back with the message, which
        counts against ``output_retries`` (then
        [`OutputValidationError`][good_agent.OutputValidationError]).
        """
        self._output_validators.add(function)
        return function

    async def append(self, message: Message) -> Message:
        """Append ``message`` to the history through
        [`AgentEvents.MESSAGE_APPEND`][good_agent.AgentEvents]."""
        return await self._own.append(message)

    async def call(
        self,
        prompt: UserPrompt | None = None,
        *,
        tools: Iterable[Tool | Toolset | Callable[..., Any]] = (),
        deps: DepsT | None = None,
        usage: RunUsage | None = None,
        message_history: Iterable[Message] | None = None,
        model: str | LanguageModel | None = None,
        model_settings: Mapping[str, Any] | None = None,
        instructions: str | InstructionsFunction | Iterable[Instruction] | None = None,
    ) -> AssistantMessage:
        """Add ``prompt`` as a user message and run the loop to a text answer.

        The same run as [`run`][good_agent.Agent.run] without an output type;
        returns its ``message``. The other arguments are those of
        [`run`][good_agent.Agent.run].
        """
        result = await self.run(
            prompt,
            output_type=str,
            tools=tools,
            deps=deps,
            usage=usage,
            message_history=message_history,
            model=model,
            model_settings=model_settings,
            instructions=instructions,
        )
        return result.message

    @overload
    async def run(
        self,
        prompt: UserPrompt | None = None,
        *,
        output_type: None = None,
        deps: DepsT | None = None,
        **options: Unpack[RunOptionsDict],
    ) -> RunResult[OutputT]: ...

    @overload
    async def run(
        self,
        prompt: UserPrompt | None = None,
        *,
        output_type: type[T],
        deps: DepsT | None = None,
        **options: Unpack[RunOptionsDict],
    ) -> RunResult[T]: ...

    @overload
    async def run(
        self,
        prompt: UserPrompt | None = None,
        *,
        output_type: Callable[..., Awaitable[T]],
        deps: DepsT | None = None,
        **options: Unpack[RunOptionsDict],
    ) -> RunResult[T]: ...

    @overload
    async def run(
        self,
        prompt: UserPrompt | None = None,
        *,
        output_type: Callable[..., T],
        deps: DepsT | None = None,
        **options: Unpack[RunOptionsDict],
    ) -> RunResult[T]: ...

    @overload
    async def run(
        self,
        prompt: UserPrompt | None = None,
        *,
        output_type: Any,
        deps: DepsT | None = None,
        **options: Unpack[RunOptionsDict],
    ) -> RunResult[Any]: ...

    async def run(
        self,
        prompt: UserPrompt | None = None,
        *,
        output_type: Any = None,
        deps: Any = None,
        **options: Unpack[RunOptionsDict],
    ) -> RunResult[Any]:
        """Run the loop once and return a [`RunResult`][good_agent.RunResult].

        Args:
            prompt: Added as a user message first (after resumed calls' results).
            output_type: The type of ``result.output`` (the agent's by default;
                ``str`` for text).
            deps: This run's dependencies, for its tools, adapters, instructions,
                output validators and history processors (as ``RunContext.deps``);
                never sent to the model.
            **options: The options of one run (all optional):
                ``message_history``: run on a new conversation seeded from these
                messages instead of the agent's own (``agent.messages`` is left
                untouched; ``result.all_messages()`` is the new conversation's
                history); such runs of one agent overlap freely. Invalid ones raise
                [`HistoryError`][good_agent.HistoryError] naming the position.
                ``model``: this run's model (an object or a name).
                ``model_settings``: merged over the agent's for this run.
                ``builtin_tools``: built-in tools added to the agent's for this run.
                ``instructions``: added after the agent's, for this run only.
                ``output_mode``: how the typed output is asked for (the agent's by
                default). ``usage_limits``: limits of this run (the agent's by
                default). ``approvals``: decisions on the calls a previous run left
                waiting: ``{call_id: pending.approve() | True | False | "reason"}``
                (a bare ``True`` only for calls this conversation deferred itself).
                ``tool_choice``: this run's first-request tool choice (the agent's
                by default). ``tools``: tools, functions and toolsets added for this
                run only. ``usage``: totals to count this run into, instead of new
                ones: a tool running a sub-agent passes ``usage=ctx.usage``, so the
                parent's ``result.usage`` holds the sub-agent's requests and the
                limits of both runs cover both (``result.usage`` is that same
                object).
        """
        history = options.pop("message_history", None)
        return await self._run_in(
            self._conversation_for(history),
            prompt,
            dict(options, output_type=output_type, deps=deps),
        )

    @overload
    def run_sync(
        self,
        prompt: UserPrompt | None = None,
        *,
        output_type: None = None,
        deps: DepsT | None = None,
        **options: Unpack[RunOptionsDict],
    ) -> RunResult[OutputT]: ...

    @overload
    def run_sync(
        self,
        prompt: UserPrompt | None = None,
        *,
        output_type: type[T],
        deps: DepsT | None = None,
        **options: Unpack[RunOptionsDict],
    ) -> RunResult[T]: ...

    @overload
    def run_sync(
        self,
        prompt: UserPrompt | None = None,
        *,
        output_type: Callable[..., Awaitable[T]],
        deps: DepsT | None = None,
        **options: Unpack[RunOptionsDict],
    ) -> RunResult[T]: ...

    @overload
    def run_sync(
        self,
        prompt: UserPrompt | None = None,
        *,
        output_type: Callable[..., T],
        deps: DepsT | None = None,
        **options: Unpack[RunOptionsDict],
    ) -> RunResult[T]: ...

    @overload
    def run_sync(
        self,
        prompt: UserPrompt | None = None,
        *,
        output_type: Any,
        deps: DepsT | None = None,
        **options: Unpack[RunOptionsDict],
    ) -> RunResult[Any]: ...

    def run_sync(self, prompt: UserPrompt | None = None, **kwargs: Any) -> RunResult[Any]:
        """[`run`][good_agent.Agent.run] for scripts and notebooks without an event loop.

        Every call uses the same event loop, so components stay usable between
        calls; [`close_sync`][good_agent.Agent.close_sync] (or leaving ``with
        agent:``) closes it, and an
        agent dropped without closing has it closed when it is garbage collected.
        Refuses (``RuntimeError``) inside a running event loop.
        """
        refuse_inside_a_loop("run_sync")
        return self._sync_loop().run(self.run(prompt, **kwargs))

    @overload
    def stream(
        self,
        prompt: UserPrompt | None = None,
        *,
        output_type: None = None,
        deps: DepsT | None = None,
        **options: Unpack[RunOptionsDict],
    ) -> StreamedRun[OutputT]: ...

    @overload
    def stream(
        self,
        prompt: UserPrompt | None = None,
        *,
        output_type: type[T],
        deps: DepsT | None = None,
        **options: Unpack[RunOptionsDict],
    ) -> StreamedRun[T]: ...

    @overload
    def stream(
        self,
        prompt: UserPrompt | None = None,
        *,
        output_type: Callable[..., Awaitable[T]],
        deps: DepsT | None = None,
        **options: Unpack[RunOptionsDict],
    ) -> StreamedRun[T]: ...

    @overload
    def stream(
        self,
        prompt: UserPrompt | None = None,
        *,
        output_type: Callable[..., T],
        deps: DepsT | None = None,
        **options: Unpack[RunOptionsDict],
    ) -> StreamedRun[T]: ...

    @overload
    def stream(
        self,
        prompt: UserPrompt | None = None,
        *,
        output_type: Any,
        deps: DepsT | None = None,
        **options: Unpack[RunOptionsDict],
    ) -> StreamedRun[Any]: ...

    def stream(
        self,
        prompt: UserPrompt | None = None,
        *,
        output_type: Any = None,
        deps: Any = None,
        **options: Unpack[RunOptionsDict],
    ) -> StreamedRun[Any]:
        """A streamed run: ``async with agent.stream(prompt) as run: async for event in run``.

        Takes the arguments of [`run`][good_agent.Agent.run]; events are listed in
        `good_agent.core.run_events`.
        """
        history = options.pop("message_history", None)
        return self._stream_in(
            self._conversation_for(history),
            prompt,
            dict(options, output_type=output_type, deps=deps),
        )

    @overload
    def iter(
        self,
        prompt: UserPrompt | None = None,
        *,
        output_type: None = None,
        deps: DepsT | None = None,
        **options: Unpack[RunOptionsDict],
    ) -> AgentRun[OutputT]: ...

    @overload
    def iter(
        self,
        prompt: UserPrompt | None = None,
        *,
        output_type: type[T],
        deps: DepsT | None = None,
        **options: Unpack[RunOptionsDict],
    ) -> AgentRun[T]: ...

    @overload
    def iter(
        self,
        prompt: UserPrompt | None = None,
        *,
        output_type: Callable[..., Awaitable[T]],
        deps: DepsT | None = None,
        **options: Unpack[RunOptionsDict],
    ) -> AgentRun[T]: ...

    @overload
    def iter(
        self,
        prompt: UserPrompt | None = None,
        *,
        output_type: Callable[..., T],
        deps: DepsT | None = None,
        **options: Unpack[RunOptionsDict],
    ) -> AgentRun[T]: ...

    @overload
    def iter(
        self,
        prompt: UserPrompt | None = None,
        *,
        output_type: Any,
        deps: DepsT | None = None,
        **options: Unpack[RunOptionsDict],
    ) -> AgentRun[Any]: ...

    def iter(
        self,
        prompt: UserPrompt | None = None,
        *,
        output_type: Any = None,
        deps: Any = None,
        **options: Unpack[RunOptionsDict],
    ) -> AgentRun[Any]:
        """A run step by step: ``async with agent.iter(prompt) as run: async for step in run``.

        Takes the arguments of [`run`][good_agent.Agent.run] and runs the same loop; the steps
        ([`ModelStep`][good_agent.ModelStep], [`ToolCallsStep`][good_agent.ToolCallsStep],
        [`ToolResultsStep`][good_agent.ToolResultsStep], [`EndStep`][good_agent.EndStep]) are
        listed in ``good_agent.core.steps``. The run waits at each step until the
        next is asked for; ``run.result`` holds the result once it ended.
        """
        history = options.pop("message_history", None)
        return self._iter_in(
            self._conversation_for(history),
            prompt,
            dict(options, output_type=output_type, deps=deps),
        )

    # The runs of one conversation (the agent's own, or another).

    def _conversation_for(self, history: Iterable[Message] | None) -> Conversation:
        return self._own if history is None else self.conversation(history)

    async def _run_in(
        self, conversation: Conversation, prompt: UserPrompt | None, kwargs: dict[str, Any]
    ) -> RunResult[Any]:
        setup, options = self._prepare(prompt, kwargs)
        await self.install()
        return await run_engine(conversation, setup, options)

    def _run_sync_in(
        self, conversation: Conversation, prompt: UserPrompt | None, kwargs: dict[str, Any]
    ) -> RunResult[Any]:
        refuse_inside_a_loop("run_sync")
        return self._sync_loop().run(self._run_in(conversation, prompt, kwargs))

    def _stream_in(
        self, conversation: Conversation, prompt: UserPrompt | None, kwargs: dict[str, Any]
    ) -> StreamedRun[Any]:
        setup, options = self._prepare(prompt, kwargs)

        async def engine(sink: Any) -> RunResult[Any]:
            await self.install()
            return await run_engine(conversation, setup, options, sink)

        return StreamedRun(engine, options.output)

    def _iter_in(
        self, conversation: Conversation, prompt: UserPrompt | None, kwargs: dict[str, Any]
    ) -> AgentRun[Any]:
        setup, options = self._prepare(prompt, kwargs)

        async def engine(on_step: StepHook) -> RunResult[Any]:
            await self.install()
            return await run_engine(conversation, setup, options, on_step=on_step)

        return AgentRun(conversation, engine)

    @contextmanager
    def override(
        self,
        *,
        model: str | LanguageModel | None = None,
        deps: DepsT | Literal[_Unset.UNSET] = _Unset.UNSET,
    ) -> Iterator[None]:
        """For tests: inside the block, runs use ``model`` and ``deps`` instead.

        ``model`` replaces the agent's model (a name is resolved as ``Agent(model=...)``
        would); ``deps`` replaces whatever deps a run is given, so code under test
        that calls ``agent.run(..., deps=real_deps)`` runs with the test's. Both are
        restored on leaving the block. It holds for the current task (a context
        variable, so tasks started inside the block see it too): other tasks using
        the same agent at the same time keep its own model and deps.
        """
        overrides = _OVERRIDES.get()
        outer = overrides.get(id(self), _Override(None, _Unset.UNSET))
        built = self._named_model(model) if isinstance(model, str) else model
        entry = _Override(
            built if built is not None else outer.model,
            deps if deps is not _Unset.UNSET else outer.deps,
        )
        token = _OVERRIDES.set({**overrides, id(self): entry})
        try:
            yield
        finally:
            _OVERRIDES.reset(token)

    def _prepare(
        self, prompt: UserPrompt | None, kwargs: dict[str, Any]
    ) -> tuple[RunSetup, RunOptions]:
        """The setup and options of one run from its keyword arguments."""
        unknown = set(kwargs) - _RUN_KEYS - {"output_type", "deps"}
        if unknown:
            raise TypeError(f"unexpected run argument(s): {', '.join(sorted(unknown))}")
        override = _OVERRIDES.get().get(id(self))
        chosen = kwargs.get("model")
        if chosen is None:
            model = self.model
        elif isinstance(chosen, str):
            model = self._named_model(chosen)
        else:
            model = chosen
        settings = kwargs.get("model_settings")
        extra = kwargs.get("instructions")
        instructions = self._instructions.plus(extra) if extra is not None else self._instructions
        merged = {**self.model_settings, **settings} if settings else self.model_settings
        builtin = [*self.builtin_tools, *(kwargs.get("builtin_tools") or ())]
        if builtin:
            merged = {**merged, "builtin_tools": builtin}
        setup = RunSetup(
            agent=self,
            model=model,
            settings=merged,
            events=self.events,
            logger=self.logger,
            instructions=instructions if instructions else None,
            validators=self._output_validators if self._output_validators else None,
            processors=self._history_processors if self._history_processors else None,
            model_wrappers=self.model_wrappers,
            max_iterations=self.max_iterations,
            max_tool_retries=self.max_tool_retries,
            tool_choice=self.tool_choice,
        )
        output_type = kwargs.get("output_type")
        kind = self.output_type if output_type is None else output_type
        mode = kwargs.get("output_mode") or self.output_mode
        output = None if is_text_type(kind) else OutputSpec(kind, mode, model)
        tools = kwargs.get("tools") or ()
        deps = kwargs.get("deps")
        if override is not None and override.deps is not _Unset.UNSET:
            deps = override.deps
        options = RunOptions(
            prompt=prompt,
            output=output,
            limits=kwargs.get("usage_limits") or self.usage_limits,
            approvals=kwargs.get("approvals"),
            tool_choice=kwargs.get("tool_choice"),
            output_retries=self.output_retries,
            tools=Toolset(tools) if tools else None,
            deps=deps,
            usage=kwargs.get("usage"),
            end_strategy=kwargs.get("end_strategy") or self.end_strategy,
        )
        return setup, options

    async def invoke(self, tool_name: str, **arguments: Any) -> ToolResponse:
        """Run a tool as if the model had called it, through the same pipeline.

        ``arguments`` are what the model would send (the adapted signature's
        parameters). The call and its result are recorded in the history. It is not
        a run: a tool or adapter asking for the [`RunContext`][good_agent.RunContext] gets
        one with ``deps=None`` and the call id as ``run_id``.
        """
        await self.install()
        call = ToolCall(id=f"invoke_{next(self._invocations)}", name=tool_name, arguments=arguments)
        run = RunContext(None, self, RunUsage(), self.messages, call.id)
        plans = await current_plans(self, run=run)
        await self.append(AssistantMessage(tool_calls=[call]))
        try:
            response = await execute_call(self, call, plans, run=run)
        except BaseException as error:
            with anyio.CancelScope(shield=True):
                reason = f"the call did not finish ({type(error).__name__})"
                await self.append(
                    ToolMessage(
                        tool_call_id=call.id,
                        tool_name=call.name,
                        content=f"Error: {reason}",
                        is_error=True,
                    )
                )
            raise
        await self.append(ToolMessage.from_response(response))
        return response

    async def tool_signatures(self) -> list[dict[str, Any]]:
        """The tool definitions the model would see now (after adapters)."""
        return [plan.signature for plan in (await current_plans(self)).values()]
