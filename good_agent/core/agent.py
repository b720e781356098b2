"""The [`Agent`][good_agent.Agent]: history, tools, components and one adapter chain,
around a model."""

from __future__ import annotations

import enum
import itertools
import logging
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from types import TracebackType
from typing import Any, ClassVar, Generic, Literal, Self, Unpack, overload

import anyio
from typing_extensions import TypeVar

from good_agent.adapters import AdapterChain
from good_agent.core._execution import current_plans, execute_call
from good_agent.core._loop import RunOptions, StepHook, run_engine
from good_agent.core.agent_options import AgentOptions, RunOptionsDict
from good_agent.core.approvals import Approval
from good_agent.core.arguments import check_agent_arguments, check_tool_limits
from good_agent.core.components import AgentComponent, ModelCall
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
from good_agent.core.sync_loop import SyncLoop, close_models, refuse_inside_a_loop
from good_agent.models.base import LanguageModel, ModelRequest, ModelResponse
from good_agent.models.resolve import resolve_model
from good_agent.providers.types import ToolChoice
from good_agent.tools.registry import ToolRegistry
from good_agent.tools.tool import Tool
from good_agent.tools.toolset import Toolset
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


"""The output type of an agent's runs (``Agent(output_type=...)``)."""


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
        name: The agent's name, for logs: [`logger`][good_agent.Agent.logger] is
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
        self.messages: list[Message] = list(messages)
        system = "\n\n".join(part for part in system_prompt_parts if part)
        if system and not any(isinstance(m, SystemMessage) for m in self.messages):
            self.messages.insert(0, SystemMessage(content=system))
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
        self.context: dict[str, Any] = dict(context or {})
        self._installed: list[AgentComponent] = []
        self._model_wrappers: list[
            Callable[[ModelRequest, ModelCall], Awaitable[ModelResponse]]
        ] = []
        """The components' ``around_model_request`` hooks, first installed first."""
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
        self._deps_override: Any = _Unset.UNSET
        self._sync: SyncLoop | None = None
        self._own_models: list[LanguageModel] = []
        """The models this agent built from a name: it closes them."""
        self._running = False
        self._deferred: dict[str, str] = {}
        """The calls the last run of this agent deferred: their id and digest."""

    @property
    def model(self) -> LanguageModel:
        """The model this agent talks to (resolved from its name on first use)."""
        if self._model is None:
            if self._model_spec is None:
                raise ModelConfigError("this agent has no model: pass model=... to Agent()")
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
        [`AgentEvents.MESSAGE_APPEND`][good_agent.AgentEvents.MESSAGE_APPEND]."""
        message = await self.events.emit(AgentEvents.MESSAGE_APPEND, message)
        self.messages.append(message)
        return message

    async def call(
        self,
        prompt: UserPrompt | None = None,
        *,
        tools: Iterable[Tool | Toolset | Callable[..., Any]] = (),
        deps: DepsT | None = None,
        usage: RunUsage | None = None,
    ) -> AssistantMessage:
        """Add ``prompt`` as a user message and run the loop to a text answer.

        The same run as [`run`][good_agent.Agent.run] without an output type;
        returns its ``message``. ``tools`` are added for this run only; ``usage``
        as in [`run`][good_agent.Agent.run].
        """
        result = await self.run(prompt, output_type=str, tools=tools, deps=deps, usage=usage)
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
        output_mode: OutputMode | None = None,
        usage_limits: UsageLimits | None = None,
        approvals: Mapping[str, Approval] | None = None,
        tool_choice: ToolChoice | None = None,
        tools: Iterable[Tool | Toolset | Callable[..., Any]] = (),
        deps: Any = None,
        usage: RunUsage | None = None,
        end_strategy: EndStrategy | None = None,
    ) -> RunResult[Any]:
        """Run the loop once and return a [`RunResult`][good_agent.RunResult].

        Args:
            prompt: Added as a user message first (after resumed calls' results).
            output_type: The type of ``result.output`` (the agent's by default;
                ``str`` for text).
            output_mode: How the typed output is asked for (the agent's by default).
            usage_limits: Limits of this run (the agent's by default).
            approvals: Decisions on the calls a previous run left waiting:
                ``{call_id: pending.approve() | True | False | "reason"}`` (a bare
                ``True`` only for calls this agent deferred itself).
            tool_choice: This run's first-request tool choice (the agent's by default).
            tools: Tools, functions and toolsets added for this run only.
            deps: This run's dependencies, for its tools, adapters, instructions,
                output validators and history processors (as ``RunContext.deps``);
                never sent to the model.
            usage: Totals to count this run into, instead of new ones: a tool
                running a sub-agent passes ``usage=ctx.usage``, so the parent's
                ``result.usage`` holds the sub-agent's requests and the limits of
                both runs cover both (``result.usage`` is that same object).
            end_strategy: This run's end strategy (the agent's by default).
        """
        options = self._options(
            prompt, output_type, output_mode, usage_limits, approvals, tool_choice, tools, deps
        )
        options.usage = usage
        options.end_strategy = end_strategy or self.end_strategy
        await self.install()
        return await run_engine(self, options)

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
        output_mode: OutputMode | None = None,
        usage_limits: UsageLimits | None = None,
        approvals: Mapping[str, Approval] | None = None,
        tool_choice: ToolChoice | None = None,
        tools: Iterable[Tool | Toolset | Callable[..., Any]] = (),
        deps: Any = None,
        usage: RunUsage | None = None,
        end_strategy: EndStrategy | None = None,
    ) -> StreamedRun[Any]:
        """A streamed run: ``async with agent.stream(prompt) as run: async for event in run``.

        Takes the arguments of [`run`][good_agent.Agent.run]; events are listed in
        `good_agent.core.run_events`.
        """
        options = self._options(
            prompt, output_type, output_mode, usage_limits, approvals, tool_choice, tools, deps
        )
        options.usage = usage
        options.end_strategy = end_strategy or self.end_strategy

        async def engine(sink: Any) -> RunResult[Any]:
            await self.install()
            return await run_engine(self, options, sink)

        return StreamedRun(engine, options.output)

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
        run_options = self._options(
            prompt,
            output_type,
            options.get("output_mode"),
            options.get("usage_limits"),
            options.get("approvals"),
            options.get("tool_choice"),
            options.get("tools", ()),
            deps,
        )
        run_options.usage = options.get("usage")
        run_options.end_strategy = options.get("end_strategy") or self.end_strategy

        async def engine(on_step: StepHook) -> RunResult[Any]:
            await self.install()
            return await run_engine(self, run_options, on_step=on_step)

        return AgentRun(self, engine)

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
        restored on leaving the block. It changes the agent itself, so every run of
        the agent during the block sees it.
        """
        saved = self._model_spec, self._model, self._deps_override
        if model is not None:
            self._model_spec = model
            self._model = None if isinstance(model, str) else model
        if deps is not _Unset.UNSET:
            self._deps_override = deps
        try:
            yield
        finally:
            self._model_spec, self._model, self._deps_override = saved

    def _options(
        self,
        prompt: UserPrompt | None,
        output_type: Any,
        output_mode: OutputMode | None,
        usage_limits: UsageLimits | None,
        approvals: Mapping[str, Approval] | None,
        tool_choice: ToolChoice | None,
        tools: Iterable[Tool | Toolset | Callable[..., Any]] = (),
        deps: Any = None,
    ) -> RunOptions:
        kind = self.output_type if output_type is None else output_type
        mode = output_mode or self.output_mode
        output = None if is_text_type(kind) else OutputSpec(kind, mode, self.model)
        return RunOptions(
            prompt=prompt,
            output=output,
            limits=usage_limits or self.usage_limits,
            approvals=approvals,
            tool_choice=tool_choice,
            output_retries=self.output_retries,
            tools=Toolset(tools) if tools else None,
            deps=deps if self._deps_override is _Unset.UNSET else self._deps_override,
        )

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
