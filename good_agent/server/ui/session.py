"""One run of a served agent, whatever protocol asked for it.

A protocol module turns its request into a `Turn`: the thread, the history the
client sent, the new prompt, the results of calls the frontend ran, and the decisions on
calls waiting for approval (each keyed by the digest of the call that was shown).
`ServedAgent.prepare` loads the thread (from the store; from the client only when
the server keeps no store), checks the turn against it and refuses a bad one with a 400
naming the field, before anything is streamed; `ServedAgent.stream` runs it and yields the
agent's own run events, saving the history however the run ends.

Every thread has an owner (see [`agent_app`][good_agent.server.ui.agent_app]); another
owner's thread id is a 404 ``thread not found``, whatever the request asks. The approval
id a client is shown for a waiting call is a keyed digest (HMAC-SHA256 under the
server's approval key) of the owner, the thread and the call (id, tool name,
arguments): it approves that call on that thread for that owner, and nothing else.
"""

from __future__ import annotations

import hashlib
import hmac
import inspect
import logging
import os
import secrets
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
from good_agent.server.common.errors import HTTPError, bad_request
from good_agent.server.ui.threads import ThreadNotFound, ThreadStore
from good_agent.tools.tool import Tool
from good_agent.types.content import UserPrompt
from good_agent.types.history import dump_messages
from good_agent.types.messages import (
    Message,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)

logger = logging.getLogger("good_agent.server.ui")

AgentSource = Agent[Any, Any] | Callable[[], Agent[Any, Any]]
"""An agent to serve (a conversation of its own per run), or a function building one per run."""

DEFAULT_MODEL = "default"
"""The name the model picker shows for the agent's own model."""

DEFAULT_MAX_HISTORY_BYTES = 4_000_000
"""The largest history a thread may have to be continued, by default (as dumped)."""

APPROVAL_KEY_ENV = "GOOD_AGENT_APPROVAL_KEY"
"""The variable read for the approval key when none is given (else a random one)."""


def thread_not_found(param: str = "threadId") -> HTTPError:
    """The 404 for a thread id the requester does not own: the same for every such id."""
    return HTTPError(404, "thread not found", "not_found_error", param, "thread_not_found")


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
    message_id: str | None = None
    """The client's id of the message that carried the result (kept in the history)."""


@dataclass(slots=True)
class Turn:
    """What one request asks of the agent, in protocol-neutral terms."""

    thread_id: str
    history: list[Message] = field(default_factory=list)
    prompt: UserPrompt | None = None
    client_prompts: list[tuple[str, str]] = field(default_factory=list)
    """The new user messages by the client's id, joined into ``prompt``: one the thread
    already holds (a retry resending it) is not added again."""
    prompt_id: str | None = None
    """The client's id for the prompt's user message (kept in the history)."""
    regenerate: bool = False
    """Replace the thread's last answer: the last user message and all after it go."""
    reply_id: str | None = None
    """The client's id of the assistant message this turn continues (a Vercel request
    answering its calls), which the stream then reuses."""
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
    owner: str = ""
    """Whose thread this is."""
    approval_id: Callable[[str], str] = str
    """The id shown for a waiting call, from its `call_digest` (bound to owner and thread)."""
    model_name: str | None = None
    """The name of the model the run uses, as a client is told it."""

    @property
    def denied(self) -> frozenset[str]:
        """The ids of the calls this run denies."""
        return frozenset(
            call_id
            for call_id, answer in self.approvals.items()
            if not isinstance(answer, Approved)
        )


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
        approval_key: The secret the approval ids are keyed with. ``None``: the
            variable ``GOOD_AGENT_APPROVAL_KEY``, else a random key for this process
            (workers that share a store must share the key for one to accept another's
            approval ids).
        max_history_bytes: The largest history a thread may have (as dumped) to be
            continued; beyond it a request is refused with a 400 naming the thread.
    """

    def __init__(
        self,
        agent: AgentSource,
        *,
        store: ThreadStore | None,
        models: Mapping[str, LanguageModel | str] | None = None,
        approval_key: str | bytes | None = None,
        max_history_bytes: int = DEFAULT_MAX_HISTORY_BYTES,
    ) -> None:
        self._factory = None if isinstance(agent, Agent) else agent
        self._shared = agent if isinstance(agent, Agent) else None
        self.store = store
        self.models: dict[str, LanguageModel | str | None] = (
            dict(models) if models else {DEFAULT_MODEL: None}
        )
        key = approval_key if approval_key is not None else os.environ.get(APPROVAL_KEY_ENV)
        self._approval_key = (
            key.encode() if isinstance(key, str) else key if key else secrets.token_bytes(32)
        )
        self.max_history_bytes = max_history_bytes
        self._tool_names: frozenset[str] | None = None
        self._probed_model: str | None = None

    def _new_agent(self) -> Agent[Any, Any]:
        if self._shared is not None:
            return self._shared
        assert self._factory is not None
        built = self._factory()
        if not isinstance(built, Agent):
            raise TypeError(f"the agent factory returned {type(built).__name__}, not an Agent")
        return built

    def approval_id(self, owner: str, thread_id: str, digest: str) -> str:
        """The id a client is shown for the waiting call whose `call_digest` is ``digest``
        on ``owner``'s thread ``thread_id``: an HMAC-SHA256 under the approval key."""
        message = "\x00".join((owner, thread_id, digest)).encode()
        return hmac.new(self._approval_key, message, hashlib.sha256).hexdigest()

    async def prepare(
        self, turn: Turn, deps: Any, owner: str = "", thread_field: str = "threadId"
    ) -> PreparedRun:
        """Load the thread and check ``turn`` against it (a 400 naming the field if wrong;
        a 404 when ``owner`` does not own the thread). Nothing is saved here."""
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
            try:
                loaded = (  # a store written before owners serves the local owner still
                    await self.store.load(turn.thread_id, owner)
                    if owner
                    else await self.store.load(turn.thread_id)
                )
                history = list(loaded or [])
            except ThreadNotFound:
                raise thread_not_found(thread_field) from None
            size = len(dump_messages(history))
            if size > self.max_history_bytes:
                raise bad_request(
                    f"the thread holds {size} bytes of history, more than this server "
                    f"continues ({self.max_history_bytes}): start a new thread",
                    thread_field,
                    "thread_too_long",
                )
        if turn.regenerate and self.store is not None:
            history = _before_last_prompt(history)
        if turn.client_prompts and self.store is not None:
            _drop_known_prompts(turn, history)
        agent_tools = set(await self._agent_tool_names())
        for index, tool in enumerate(turn.frontend_tools):
            if tool.name in agent_tools:
                raise bad_request(
                    f"the frontend tool '{tool.name}' has the name of one of the agent's tools",
                    f"tools.{index}.name",
                )
        frontend = {tool.name for tool in turn.frontend_tools}
        history = _with_results(history, turn.results, frontend)

        def approval_id(digest: str) -> str:
            return self.approval_id(owner, turn.thread_id, digest)

        approvals = _approvals(history, turn, agent_tools, approval_id)
        return PreparedRun(
            turn,
            history,
            approvals,
            model,
            deps,
            owner=owner,
            approval_id=approval_id,
            model_name=self._model_name(model),
        )

    def _model_name(self, model: LanguageModel | str | None) -> str | None:
        if isinstance(model, str):
            return model
        if model is not None:
            return model.model_name
        if self._shared is not None:
            return _model_name_of(self._shared)
        return self._probed_model  # a factory's agent, as the first one built named it

    async def thread(self, thread_id: str, owner: str = "") -> list[Message]:
        """The history of ``owner``'s thread ``thread_id`` (a 404 for another owner's
        or an unknown thread; the same 404 for both)."""
        if self.store is None:
            raise thread_not_found("threadId")
        try:
            store = self.store
            loaded = await store.load(thread_id, owner) if owner else await store.load(thread_id)
        except ThreadNotFound:
            raise thread_not_found("threadId") from None
        if loaded is None:
            raise thread_not_found("threadId")
        return list(loaded)

    async def agent_tool_names(self) -> frozenset[str]:
        """The names of the agent's own tools."""
        return await self._agent_tool_names()

    async def _agent_tool_names(self) -> frozenset[str]:
        """The agent's tool names; a factory's agent is built once to learn them."""
        if self._shared is not None:
            return frozenset(self._shared.tools.names())
        if self._tool_names is None:
            probe = self._new_agent()
            try:
                self._tool_names = frozenset(probe.tools.names())
                self._probed_model = _model_name_of(probe)
            finally:
                with anyio.CancelScope(shield=True):
                    await probe.close()
        return self._tool_names

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
            start = len(conversation.messages)
            try:
                async with conversation.stream(
                    turn.prompt,
                    approvals=prepared.approvals or None,
                    tools=turn.frontend_tools,
                    deps=prepared.deps,
                    model=prepared.model,
                ) as run:
                    tagged = False
                    async for event in run:
                        prepared.messages = conversation.messages
                        if not tagged:  # before the client sees anything of the thread
                            _tag_prompt(conversation.messages[start:], turn.prompt_id)
                            tagged = True
                        yield event
            finally:
                _tag_prompt(conversation.messages[start:], turn.prompt_id)
                if self.store is not None:
                    with anyio.CancelScope(shield=True):
                        try:
                            messages = list(conversation.messages)
                            if prepared.owner:
                                await self.store.save(turn.thread_id, messages, prepared.owner)
                            else:
                                await self.store.save(turn.thread_id, messages)
                        except ThreadNotFound:  # another owner took the id meanwhile
                            logger.warning("a run's thread was taken by another owner; not saved")


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


def _model_name_of(agent: Agent[Any, Any]) -> str | None:
    try:
        return agent.model.model_name
    except Exception:  # an agent with no model of its own: each run names one
        return None


def _before_last_prompt(history: list[Message]) -> list[Message]:
    """``history`` up to its last user message (excluded): the answer to regenerate goes."""
    for index in range(len(history) - 1, -1, -1):
        if isinstance(history[index], UserMessage):
            return history[:index]
    return history


def _drop_known_prompts(turn: Turn, history: list[Message]) -> None:
    """Leave out of the turn's prompt the client's user messages the thread already holds."""
    known = {m.id for m in history if isinstance(m, UserMessage) and m.id}
    fresh = [(mid, text) for mid, text in turn.client_prompts if mid not in known]
    if len(fresh) == len(turn.client_prompts):
        return
    turn.client_prompts = fresh
    turn.prompt = "\n\n".join(text for _, text in fresh) if fresh else None
    turn.prompt_id = fresh[-1][0] if fresh else None


def _tag_prompt(added: list[Message], prompt_id: str | None) -> None:
    """Give the run's prompt (the first user message it added) the client's id."""
    if prompt_id is None:
        return
    for message in added:
        if isinstance(message, UserMessage):
            if message.id is None:
                message.id = prompt_id
            return


def pending_calls(history: list[Message]) -> list[ToolCall]:
    """The calls of the thread's last turn still waiting for a decision or a result."""
    return unanswered_calls(history)


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
            raise bad_request(_NOT_A_FRONTEND_CALL, result.field)
        if call.name not in frontend:  # the server's own call: approved or denied, never answered
            raise bad_request(_NOT_A_FRONTEND_CALL, result.field)
        out.append(
            ToolMessage(
                tool_call_id=call.id,
                tool_name=call.name,
                content=result.content,
                is_error=result.is_error,
                id=result.message_id,
            )
        )
    return out


_NOT_A_FRONTEND_CALL = (
    "this tool result answers no call of a frontend tool waiting in the thread (a call "
    "to one of the agent's own tools is approved or denied, never answered)"
)


def _approvals(
    history: list[Message],
    turn: Turn,
    agent_tools: set[str],
    approval_id: Callable[[str], str],
) -> dict[str, Approval]:
    """The ``approvals=`` of the run: each waiting call decided by the answer bound to it.

    The errors name the field only: never a call id or a tool name of the thread."""
    pending: list[ToolCall] = unanswered_calls(history)
    by_id = {approval_id(call_digest(call)): call for call in pending}
    for given, decision in turn.decisions.items():
        if not any(hmac.compare_digest(given.encode(), known.encode()) for known in by_id):
            raise bad_request(
                "this approval id answers no call waiting in the thread: the call was "
                "already decided, or it is not the id the server sent",
                decision.field,
            )
    frontend = {tool.name for tool in turn.frontend_tools}
    approvals: dict[str, Approval] = {}
    for given, call in by_id.items():
        answer = turn.decisions.get(given)
        if answer is None:
            if call.name in frontend or (agent_tools and call.name not in agent_tools):
                raise bad_request(
                    "the thread waits for the results of the frontend tool calls of its last "
                    "turn: send each as a tool message",
                    "messages",
                )
            raise bad_request(
                "the thread waits for a decision on each call of its last turn that asks "
                "for approval: approve or deny it by the id the server sent",
                "approval",
            )
        approvals[call.id] = (
            Approved(call_digest(call)) if answer.approved else (answer.reason or False)
        )
    return approvals
