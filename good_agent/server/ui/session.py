"""One run of a served agent, whatever protocol asked for it.

A protocol module turns its request into a :class:`Turn`: the thread, the history the
client sent, the new prompt, the results of calls the frontend ran, and the decisions on
calls waiting for approval (each keyed by the digest of the call that was shown).
:meth:`ServedAgent.prepare` loads the thread (from the store; from the client only when
the server keeps no store), checks the turn against it and refuses a bad one with a 400
naming the field, before anything is streamed; :meth:`ServedAgent.stream` runs it and yields the
agent's own run events, saving the history however the run ends.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio

from good_agent.core.agent import Agent
from good_agent.core.approvals import Approval, Approved, call_digest, unanswered_calls
from good_agent.core.conversation import Conversation
from good_agent.core.run_events import RunEvent
from good_agent.models.base import LanguageModel
from good_agent.server.errors import bad_request
from good_agent.server.ui.threads import ThreadStore
from good_agent.tools.tool import Tool
from good_agent.types.messages import Message, SystemMessage, ToolCall, ToolMessage

AgentSource = Agent[Any, Any] | Callable[[], Agent[Any, Any]]
"""An agent to serve (a conversation of its own per run), or a function building one per run."""

DEFAULT_MODEL = "default"
"""The name the model picker shows for the agent's own model."""


@dataclass(frozen=True, slots=True)
class Decision:
    """A frontend's answer to one approval request: approve it, or deny it with a reason."""

    approved: bool
    reason: str | None = None
    field: str = "approval"
    """Where the answer was in the request, for an error naming it."""


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The result of a call the frontend ran, and where it was in the request."""

    call_id: str
    content: str
    is_error: bool = False
    field: str = "messages"


@dataclass(slots=True)
class Turn:
    """What one request asks of the agent, in protocol-neutral terms."""

    thread_id: str
    history: list[Message] = field(default_factory=list)
    prompt: str | None = None
    results: list[ToolResult] = field(default_factory=list)
    decisions: dict[str, Decision] = field(default_factory=dict)
    """Keyed by the digest of the call each one decides."""
    frontend_tools: list[Tool] = field(default_factory=list)
    model: str | None = None
    model_field: str = "model"


@dataclass(slots=True)
class PreparedRun:
    """A checked turn, ready to run."""

    turn: Turn
    history: list[Message]
    approvals: dict[str, Approval]
    model: LanguageModel | str | None
    deps: Any
    messages: list[Message] = field(default_factory=list)
    """The running agent's history (this run's messages included, as they are added)."""


def frontend_tool(name: str, description: str, parameters: Any) -> Tool:
    """A tool the frontend runs: the agent may call it, and the run stops at the call."""
    schema = parameters if isinstance(parameters, dict) and parameters else {"type": "object"}
    built = Tool.from_schema(name, schema, description)
    built.requires_approval = True  # the run stops before it, like an approval
    return built


class ServedAgent:
    """The agent behind the UI endpoints: its source, the thread store and the models.

    Args:
        agent: An [`Agent`][good_agent.Agent] (each run is a conversation of its own,
            seeded from its thread's history: threads run at the same time) or a
            function returning a new agent for each run.
        store: Where thread histories are kept; ``None`` keeps none (the client sends
            the whole history each time).
        models: The models a client may pick, by the name it sends (``None``: the
            agent's own model only, named ``"default"``).
    """

    def __init__(
        self,
        agent: AgentSource,
        *,
        store: ThreadStore | None,
        models: Mapping[str, LanguageModel | str] | None = None,
    ) -> None:
        self._factory = None if isinstance(agent, Agent) else agent
        self._shared = agent if isinstance(agent, Agent) else None
        self.store = store
        self.models: dict[str, LanguageModel | str | None] = (
            dict(models) if models else {DEFAULT_MODEL: None}
        )

    def _new_agent(self) -> Agent[Any, Any]:
        if self._shared is not None:
            return self._shared
        assert self._factory is not None
        built = self._factory()
        if not isinstance(built, Agent):
            raise TypeError(f"the agent factory returned {type(built).__name__}, not an Agent")
        return built

    async def prepare(self, turn: Turn, deps: Any) -> PreparedRun:
        """Load the thread and check ``turn`` against it (a 400 naming the field if wrong)."""
        if turn.model is not None and turn.model not in self.models:
            known = ", ".join(self.models)
            raise bad_request(
                f"unknown model '{turn.model}'; this server offers: {known}",
                turn.model_field,
                "model_not_found",
            )
        model = (
            self.models[turn.model] if turn.model is not None else next(iter(self.models.values()))
        )
        if self.store is None:
            history = list(turn.history)  # the client keeps the thread
        else:  # the server keeps it: what a client sends of the past is not taken
            history = list(await self.store.load(turn.thread_id) or [])
        agent_tools = set(self._agent_tool_names())
        for tool in turn.frontend_tools:
            if tool.name in agent_tools:
                raise bad_request(
                    f"the frontend tool '{tool.name}' has the name of one of the agent's tools",
                    "tools",
                )
        frontend = {tool.name for tool in turn.frontend_tools}
        history = _with_results(history, turn.results, frontend)
        approvals = _approvals(history, turn, agent_tools)
        return PreparedRun(turn, history, approvals, model, deps)

    def _agent_tool_names(self) -> list[str]:
        probe = self._shared if self._shared is not None else None
        if probe is None:
            return []  # a factory's agent is built per run; its tools are checked then
        return list(probe.tools.names())

    @asynccontextmanager
    async def _checkout(self, history: list[Message]) -> AsyncIterator[Conversation]:
        if self._shared is not None:
            # A conversation of its own per run: threads of one agent run at once.
            agent = self._shared
            yield agent.conversation(_with_system(agent.messages, history))
            return
        agent = self._new_agent()
        agent.messages = _with_system(agent.messages, history)
        try:
            yield agent.own_conversation
        finally:
            with anyio.CancelScope(shield=True):
                await agent.close()

    async def stream(self, prepared: PreparedRun) -> AsyncGenerator[RunEvent, None]:
        """Run the turn, yielding its events; the history is saved however the run ends."""
        turn = prepared.turn
        async with self._checkout(prepared.history) as conversation:
            prepared.messages = conversation.messages
            try:
                async with conversation.stream(
                    turn.prompt,
                    approvals=prepared.approvals or None,
                    tools=turn.frontend_tools,
                    deps=prepared.deps,
                    model=prepared.model,
                ) as run:
                    async for event in run:
                        prepared.messages = conversation.messages
                        yield event
            finally:
                if self.store is not None:
                    with anyio.CancelScope(shield=True):
                        await self.store.save(turn.thread_id, list(conversation.messages))


async def call_deps(hook: Callable[[Any], Any] | None, request: Any) -> Any:
    """The run's deps from the request, through ``hook`` (sync or async); ``None`` without one."""
    if hook is None:
        return None
    value = hook(request)
    return await value if inspect.isawaitable(value) else value


def _with_system(template: list[Message], history: list[Message]) -> list[Message]:
    """``history``, opened by the agent's own system message unless it holds one."""
    if any(isinstance(m, SystemMessage) for m in history):
        return list(history)
    return [m for m in template if isinstance(m, SystemMessage)] + list(history)


def _with_results(
    history: list[Message], results: list[ToolResult], frontend: set[str]
) -> list[Message]:
    """``history`` with the frontend's results for the calls to its tools waiting in it
    (a call to one of the agent's own tools is approved or denied, never answered)."""
    if not results:
        return history
    waiting = {call.id: call for call in unanswered_calls(history)}
    answered = {m.tool_call_id for m in history if isinstance(m, ToolMessage)}
    out = list(history)
    for result in results:
        call = waiting.pop(result.call_id, None)
        if call is None:
            if result.call_id in answered:
                continue  # the client sent back a result the thread already has
            raise bad_request(
                f"the tool result for '{result.call_id}' answers no call waiting in the thread",
                result.field,
            )
        if call.name not in frontend:
            raise bad_request(
                f"the call '{call.id}' is to the agent's tool '{call.name}', not a frontend "
                "tool of this request: approve or deny it instead of answering it",
                result.field,
            )
        out.append(
            ToolMessage(
                tool_call_id=call.id,
                tool_name=call.name,
                content=result.content,
                is_error=result.is_error,
            )
        )
    return out


def _approvals(history: list[Message], turn: Turn, agent_tools: set[str]) -> dict[str, Approval]:
    """The ``approvals=`` of the run: each waiting call decided by the answer bound to it."""
    pending: list[ToolCall] = unanswered_calls(history)
    by_digest = {call_digest(call): call for call in pending}
    for digest, decision in turn.decisions.items():
        if digest not in by_digest:
            raise bad_request(
                f"the approval '{digest[:16]}...' answers no call waiting in the thread: the "
                "call was already decided, or it is not the call that was shown",
                decision.field,
            )
    frontend = {tool.name for tool in turn.frontend_tools}
    approvals: dict[str, Approval] = {}
    for digest, call in by_digest.items():
        answer = turn.decisions.get(digest)
        if answer is None:
            if call.name in frontend or (agent_tools and call.name not in agent_tools):
                raise bad_request(
                    f"the thread waits for the result of the frontend call '{call.id}' "
                    f"({call.name}): send it as a tool message",
                    "messages",
                )
            raise bad_request(
                f"the thread waits for a decision on the call '{call.id}' ({call.name}): "
                "approve or deny it",
                "approval",
            )
        approvals[call.id] = Approved(digest) if answer.approved else (answer.reason or False)
    return approvals
