"""Conversations: the state one exchange with an agent keeps, apart from its definition.

An [`Agent`][good_agent.Agent] is a definition (model, tools, adapter chain,
components, instructions, limits) shared by every conversation run on it. A
[`Conversation`][good_agent.Conversation] holds what belongs to one exchange: its
history, the calls waiting for approval, the usage of its runs and the state
components keep for it ([`ConversationState`][good_agent.ConversationState]).
``agent.messages`` is the agent's own conversation; ``agent.conversation()`` and
``agent.run(..., message_history=[...])`` start others, which run at the same time.

This module is part of the run engine: it never imports the agent.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Generic, Unpack, overload

from typing_extensions import TypeVar

from good_agent.core.agent_options import RunOptionsDict
from good_agent.core.approvals import unanswered_calls
from good_agent.core.events import AgentEvents
from good_agent.core.run_context import DepsT
from good_agent.types.errors import GoodAgentError
from good_agent.types.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from good_agent.types.usage import RunUsage

if TYPE_CHECKING:
    from good_agent.core.events import EventBus
    from good_agent.core.iteration import AgentRun
    from good_agent.core.results import RunResult
    from good_agent.core.streaming import StreamedRun
    from good_agent.types.content import UserPrompt

T = TypeVar("T")
OutputT = TypeVar("OutputT", default=Any)

__all__ = [
    "Conversation",
    "ConversationState",
    "HistoryError",
    "StateKey",
    "check_history",
    "current_conversation",
]

_MESSAGE_TYPES = (SystemMessage, UserMessage, AssistantMessage, ToolMessage)

_current: ContextVar[Conversation | None] = ContextVar("good_agent_conversation", default=None)


def current_conversation() -> Conversation | None:
    """The conversation whose run (or ``append``) is executing in this task, if any.

    Components read their per-conversation state through it, in event handlers,
    adapters and tools: ``current_conversation().state[KEY]``.
    """
    return _current.get()


class HistoryError(GoodAgentError, ValueError):
    """A ``message_history`` that is not a valid history; the message names the position."""


class StateKey(Generic[T]):
    """A typed key of [`ConversationState`][good_agent.ConversationState].

    ``default`` builds the value the first time a conversation asks for it, so each
    conversation gets its own (``StateKey("citations", CitationIndex)``).
    """

    __slots__ = ("default", "name")

    def __init__(self, name: str, default: Callable[[], T]) -> None:
        self.name = name
        self.default = default

    def __repr__(self) -> str:
        return f"StateKey({self.name!r})"


class ConversationState:
    """What components keep for one conversation, by [`StateKey`][good_agent.StateKey].

    ``state[key]`` returns the conversation's value, built by the key's default on
    first use; ``state[key] = value`` replaces it. Nothing here is shared between
    conversations; state shared by all of them (caches, stores, rate limits) lives
    on the component itself.
    """

    __slots__ = ("_values",)

    def __init__(self) -> None:
        self._values: dict[StateKey[Any], Any] = {}

    def __getitem__(self, key: StateKey[T]) -> T:
        try:
            value: T = self._values[key]
        except KeyError:
            value = self._values[key] = key.default()
        return value

    def __setitem__(self, key: StateKey[T], value: T) -> None:
        self._values[key] = value

    def __contains__(self, key: object) -> bool:
        return key in self._values

    def __len__(self) -> int:
        return len(self._values)


class Conversation(Generic[DepsT, OutputT]):
    """One conversation on an agent's definition: its history and its own state.

    Built by [`Agent.conversation`][good_agent.Agent.conversation] (or for one run by
    ``message_history=``); the agent's own conversation is ``agent.messages``. It
    has the agent's run methods (``run``, ``run_sync``, ``stream``, ``iter``,
    ``call``) and its ``append``; its runs go one after the other, while runs of
    different conversations of one agent overlap freely. Creating one installs
    nothing: ``async with conversation`` installs the agent's components if they
    are not yet, and leaves them installed (they are the agent's).

    Attributes:
        messages: The history.
        state: What components keep for this conversation
            ([`ConversationState`][good_agent.ConversationState]).
        usage: The usage of this conversation's runs, added up.
    """

    def __init__(self, agent: Any, messages: Iterable[Message] = (), *, own: bool = False) -> None:
        self.agent = agent
        """The definition this conversation runs on."""
        self.messages: list[Message] = list(messages)
        self.state = ConversationState()
        self.usage = RunUsage()
        self.own = own
        """Whether this is the agent's own conversation (``agent.messages``)."""
        self.running = False
        """Whether a run of this conversation is under way."""
        self.deferred: dict[str, str] = {}
        """The calls the last run of this conversation deferred: their id and digest."""

    def __repr__(self) -> str:
        return f"<Conversation of {len(self.messages)} messages>"

    @property
    def events(self) -> EventBus:
        """The agent's event bus."""
        bus: EventBus = self.agent.events
        return bus

    async def append(self, message: Message) -> Message:
        """Append ``message`` through ``MESSAGE_APPEND`` (handlers see this conversation
        as [`current_conversation`][good_agent.current_conversation])."""
        if _current.get() is self:  # inside this conversation's run: the usual case
            message = await self.agent.events.emit(AgentEvents.MESSAGE_APPEND, message)
        else:
            token = _current.set(self)
            try:
                message = await self.agent.events.emit(AgentEvents.MESSAGE_APPEND, message)
            finally:
                _current.reset(token)
        self.messages.append(message)
        return message

    @contextmanager
    def active(self) -> Iterator[Conversation[DepsT, OutputT]]:
        """Make this the [`current_conversation`][good_agent.current_conversation] inside
        the block, for code outside its runs that reads per-conversation state (say,
        ``CitationManager.render_markdown`` of this conversation's answer)."""
        token = _current.set(self)
        try:
            yield self
        finally:
            _current.reset(token)

    async def __aenter__(self) -> Conversation[DepsT, OutputT]:
        await self.agent.install()
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    # The run methods: the agent's, on this conversation.

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
        output_type: Any,
        deps: DepsT | None = None,
        **options: Unpack[RunOptionsDict],
    ) -> RunResult[Any]: ...

    async def run(self, prompt: UserPrompt | None = None, **options: Any) -> RunResult[Any]:
        """[`Agent.run`][good_agent.Agent.run] on this conversation (without
        ``message_history``: the history is this conversation's)."""
        result: RunResult[Any] = await self.agent._run_in(self, prompt, options)
        return result

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
        output_type: Any,
        deps: DepsT | None = None,
        **options: Unpack[RunOptionsDict],
    ) -> RunResult[Any]: ...

    def run_sync(self, prompt: UserPrompt | None = None, **options: Any) -> RunResult[Any]:
        """[`Agent.run_sync`][good_agent.Agent.run_sync] on this conversation."""
        result: RunResult[Any] = self.agent._run_sync_in(self, prompt, options)
        return result

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
        output_type: Any,
        deps: DepsT | None = None,
        **options: Unpack[RunOptionsDict],
    ) -> StreamedRun[Any]: ...

    def stream(self, prompt: UserPrompt | None = None, **options: Any) -> StreamedRun[Any]:
        """[`Agent.stream`][good_agent.Agent.stream] on this conversation."""
        run: StreamedRun[Any] = self.agent._stream_in(self, prompt, options)
        return run

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
        output_type: Any,
        deps: DepsT | None = None,
        **options: Unpack[RunOptionsDict],
    ) -> AgentRun[Any]: ...

    def iter(self, prompt: UserPrompt | None = None, **options: Any) -> AgentRun[Any]:
        """[`Agent.iter`][good_agent.Agent.iter] on this conversation."""
        run: AgentRun[Any] = self.agent._iter_in(self, prompt, options)
        return run

    async def call(
        self, prompt: UserPrompt | None = None, *, deps: DepsT | None = None, **options: Any
    ) -> AssistantMessage:
        """[`Agent.call`][good_agent.Agent.call] on this conversation."""
        result: RunResult[str] = await self.run(prompt, output_type=str, deps=deps, **options)
        return result.message

    @property
    def pending_calls(self) -> list[Any]:
        """The tool calls at the end of the history still waiting for a result."""
        return unanswered_calls(self.messages)


def check_history(history: Iterable[Any]) -> list[Message]:
    """``history`` as a list, checked: messages only, each tool result answering a call
    before it, and no call left without a result except in the last assistant turn
    (those wait for approvals). A problem raises
    [`HistoryError`][good_agent.HistoryError] naming the position."""
    if isinstance(history, (str, bytes, dict)):
        raise HistoryError(
            f"message_history must be a list of messages, not {type(history).__name__}"
        )
    messages: list[Message] = list(history)
    open_calls: dict[str, int] = {}
    for index, message in enumerate(messages):
        if not isinstance(message, _MESSAGE_TYPES):
            raise HistoryError(
                f"message_history[{index}] is {type(message).__name__}, not a message "
                "(UserMessage, AssistantMessage, ToolMessage, SystemMessage)"
            )
        if isinstance(message, ToolMessage):
            if message.tool_call_id not in open_calls:
                raise HistoryError(
                    f"message_history[{index}] is the result of call '{message.tool_call_id}', "
                    "which no assistant message before it made (or it was answered already)"
                )
            del open_calls[message.tool_call_id]
            continue
        if open_calls:
            call_id, at = next(iter(open_calls.items()))
            raise HistoryError(
                f"message_history[{at}] has the call '{call_id}' without a result before "
                f"message_history[{index}]"
            )
        if isinstance(message, AssistantMessage):
            for call in message.tool_calls:
                open_calls[call.id] = index
    return messages
