"""One agent definition, many conversations at once, offline.

A module-level agent serves several users at the same time: each request runs on a
conversation of its own (``message_history=``), a chat keeps its history in a
conversation object (``agent.conversation()``), a run picks its own model, settings and
instructions, and a component keeps state per conversation. A scripted model stands in
for a real one; swap in ``model="gpt-4.1-mini"`` to run it against OpenAI.
"""

from __future__ import annotations

from typing import Any

import anyio

from good_agent import (
    Agent,
    AgentComponent,
    AgentEvents,
    Message,
    ModelRequest,
    StateKey,
    UserMessage,
    current_conversation,
    on,
)
from good_agent.testing import ScriptedModel


def echo(request: ModelRequest) -> str:
    """The scripted model's answer: what the user said, in this conversation only."""
    said = [str(m.content) for m in request.messages if isinstance(m, UserMessage)]
    return "You said: " + " / ".join(said)


# --8<-- [start:message_history]
agent = Agent("You are terse.", model=ScriptedModel([echo] * 20))  # module level, shared
threads: dict[str, list[Message]] = {}  # an application's store of histories


async def handle(thread: str, text: str) -> str:
    """A web handler: one user's request, on that user's history."""
    result = await agent.run(text, message_history=threads.get(thread, []))
    threads[thread] = result.all_messages()  # the whole conversation, to go on later
    return result.output


async def serve_two_users() -> None:
    async with anyio.create_task_group() as group:  # both at the same time
        group.start_soon(handle, "ada", "my PIN is 1234")
        group.start_soon(handle, "bob", "hello")
    assert await handle("bob", "what did I say?") == "You said: hello / what did I say?"


anyio.run(serve_two_users)
assert all("1234" not in str(m.content) for m in threads["bob"])  # never another's
assert [m.role for m in agent.messages] == ["system"]  # the agent's own: untouched
# --8<-- [end:message_history]


# --8<-- [start:conversation]
async def chat() -> None:
    async with agent:  # installs the agent's extensions, once
        conversation = agent.conversation()
        await conversation.run("Where is Lisbon?")
        second = await conversation.run("And Porto?")  # continues the same history
        assert second.output == "You said: Where is Lisbon? / And Porto?"
        assert conversation.usage.requests == 2


anyio.run(chat)
# --8<-- [end:conversation]


# --8<-- [start:per_run]
careful = ScriptedModel(["Bonjour."], name="careful")
result = agent.run_sync(
    "Say hello.",
    message_history=[],
    model=careful,  # or a name: model="anthropic:claude-sonnet-4-6"
    model_settings={"temperature": 0},  # merged over the agent's
    instructions="Answer in French.",  # this run only, never stored
)
assert result.output == "Bonjour."
sent = careful.requests[0]
assert sent.settings == {"temperature": 0}
assert sent.messages[0].content == "You are terse.\n\nAnswer in French."
# --8<-- [end:per_run]


# --8<-- [start:state]
TOPICS: StateKey[list[str]] = StateKey("topics", list)  # a new list per conversation


class TopicLog(AgentComponent):
    """Keeps the user's messages of each conversation, in that conversation."""

    @on(AgentEvents.MESSAGE_APPEND)
    def remember(self, ctx: Any) -> None:
        conversation = current_conversation()
        if conversation is not None and isinstance(ctx.payload, UserMessage):
            conversation.state[TOPICS].append(ctx.payload.text)


logged = Agent(model=ScriptedModel([echo] * 4), extensions=[TopicLog()])


async def two_chats() -> None:
    async with logged:
        first, second = logged.conversation(), logged.conversation()
        await first.run("owls")
        await second.run("bats")
        await first.run("more owls")
        assert first.state[TOPICS] == ["owls", "more owls"]
        assert second.state[TOPICS] == ["bats"]


anyio.run(two_chats)
# --8<-- [end:state]
print("conversations: ok")
