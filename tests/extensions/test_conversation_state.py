"""Many conversations of one agent at once, each holding its own secret: none sees another's
messages, citation index or waiting approvals (per-conversation state of components)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from good_agent import (
    Agent,
    AgentComponent,
    ApprovalError,
    AssistantMessage,
    CitationManager,
    ConversationState,
    ModelRequest,
    ModelResponse,
    StateKey,
    ToolCall,
    ToolMessage,
    UserMessage,
    current_conversation,
    on,
    tool,
)
from good_agent.core.events import AgentEvents, EventContext
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio

COUNT = 40


class SecretModel:
    """Per conversation: search its secret, then ask to send it (approval), then answer."""

    def __init__(self) -> None:
        self.requests: list[ModelRequest] = []

    @property
    def model_name(self) -> str:
        return "secrets"

    async def request(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(request)
        await anyio.sleep(0.01)  # let the conversations interleave
        prompt = next(str(m.content) for m in request.messages if isinstance(m, UserMessage))
        results = [m for m in request.messages if isinstance(m, ToolMessage)]
        if not results:
            call = ToolCall(id=f"s-{prompt}", name="search", arguments={"topic": prompt})
            return ModelResponse(tool_calls=[call], finish_reason="tool_calls")
        if len(results) == 1:
            call = ToolCall(id=f"x-{prompt}", name="send", arguments={"note": prompt})
            return ModelResponse(tool_calls=[call], finish_reason="tool_calls")
        return ModelResponse(content=f"sent {prompt}", finish_reason="stop")


@tool
def search(topic: str) -> str:
    """Search the web."""
    return f"Found it at https://example.com/{topic}/page"


@tool(requires_approval=True)
def send(note: str) -> str:
    """Send a note (needs approval)."""
    return f"sent {note}"


SEEN: StateKey[list[str]] = StateKey("seen-prompts", list)


class PromptLog(AgentComponent):
    """Keeps the user prompts of each conversation in its state (the documented API)."""

    @on(AgentEvents.MESSAGE_APPEND)
    def _seen(self, ctx: EventContext) -> None:
        conversation = current_conversation()
        if conversation is not None and isinstance(ctx.payload, UserMessage):
            conversation.state[SEEN].append(ctx.payload.text)


async def test_concurrent_conversations_keep_their_secrets_apart() -> None:
    model = SecretModel()
    manager = CitationManager()
    agent = Agent(model=model, tools=[search, send], extensions=[manager, PromptLog()])
    conversations = [agent.conversation() for _ in range(COUNT)]
    waiting: dict[int, Any] = {}

    async def first_half(index: int) -> None:
        waiting[index] = await conversations[index].run(f"secret{index}")

    async with agent:
        async with anyio.create_task_group() as group:
            for index in range(COUNT):
                group.start_soon(first_half, index)
        for index, result in waiting.items():
            assert result.is_deferred
            assert [d.call_id for d in result.deferred] == [f"x-secret{index}"]
        # Another conversation's call cannot be approved with a bare True here.
        with pytest.raises(ApprovalError):
            await conversations[0].run(approvals={"x-secret1": True})
        done: dict[int, Any] = {}

        async def second_half(index: int) -> None:
            pending = waiting[index].deferred[0]
            done[index] = await conversations[index].run(
                approvals={pending.call_id: pending.approve()}
            )

        async with anyio.create_task_group() as group:
            for index in range(COUNT):
                group.start_soon(second_half, index)

    for index, conversation in enumerate(conversations):
        assert done[index].output == f"sent secret{index}"
        text = " ".join(str(m.content) for m in conversation.messages)
        others = {f"secret{i}/" for i in range(COUNT) if i != index}
        assert not any(other in text for other in others)
        index_of = manager.index_for(conversation)
        assert [entry.url for entry in index_of] == [f"https://example.com/secret{index}/page"]
        assert conversation.state[SEEN] == [f"secret{index}"]
    assert len(manager.index) == 0  # the agent's own conversation registered nothing
    for request in model.requests:
        prompt = next(str(m.content) for m in request.messages if isinstance(m, UserMessage))
        sent = " ".join(str(m.content) for m in request.messages)
        others = [i for i in range(COUNT) if f"secret{i}" != prompt and f"secret{i}/" in sent]
        assert others == []
        if any(isinstance(m, ToolMessage) for m in request.messages):
            assert "Sources" in str(request.messages[0].content)  # its own sources list
            assert "Found it at [1]" in sent  # its own source, numbered 1


def test_conversation_state_builds_each_value_once() -> None:
    state = ConversationState()
    key: StateKey[list[int]] = StateKey("numbers", list)
    assert key not in state
    state[key].append(1)
    assert state[key] == [1] and key in state and len(state) == 1
    state[key] = [2]
    assert state[key] == [2]


async def test_a_conversation_seeded_from_a_history_numbers_its_sources() -> None:
    manager = CitationManager()
    model = ScriptedModel(["Seen [1]."])
    agent = Agent(model=model, extensions=[manager])
    history = [
        UserMessage(content="read https://example.com/a please"),
        AssistantMessage(content="Read it."),
    ]
    async with agent:
        conversation = agent.conversation(history)
        await conversation.run("and again?")
    sent = model.requests[0].messages
    assert "read [1] please" in str(sent[1].content)
    assert [e.url for e in manager.index_for(conversation)] == ["https://example.com/a"]
    with conversation.active():
        assert manager.render_markdown("Seen [1].") != "Seen [1]."
    assert len(manager.index) == 0
