"""One agent definition, many conversations: message_history=, agent.conversation(),
per-run model / settings / instructions, task-scoped override, runs that fail early."""

from __future__ import annotations

import time
from typing import Any

import anyio
import pytest

from good_agent import (
    Agent,
    AgentComponent,
    ApprovalError,
    AssistantMessage,
    Conversation,
    HistoryError,
    ModelConfigError,
    ModelRequest,
    ModelResponse,
    ModelStep,
    RunContext,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
    tool,
)
from good_agent.testing import ScriptedModel
from good_agent.types.errors import ModelRateLimitError

pytestmark = pytest.mark.anyio


class EchoModel:
    """Answers each request with every user message it was sent, after ``delay``."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.requests: list[ModelRequest] = []

    @property
    def model_name(self) -> str:
        return "echo"

    async def request(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(request)
        if self.delay:
            await anyio.sleep(self.delay)
        said = [str(m.content) for m in request.messages if isinstance(m, UserMessage)]
        return ModelResponse(content=" | ".join(said), finish_reason="stop")


def texts(messages: list[Any]) -> list[tuple[str, str]]:
    return [(m.role, str(m.content)) for m in messages]


async def test_a_run_with_message_history_leaves_the_agents_own_history_alone() -> None:
    agent = Agent("Be brief.", model=EchoModel())
    earlier = [UserMessage(content="my name is Ada"), AssistantMessage(content="Hello Ada.")]
    result = await agent.run("what is my name?", message_history=earlier)
    assert result.output == "my name is Ada | what is my name?"
    assert texts(agent.messages) == [("system", "Be brief.")]  # untouched
    assert texts(result.all_messages()) == [
        ("system", "Be brief."),  # the definition's system prompt opens it
        ("user", "my name is Ada"),
        ("assistant", "Hello Ada."),
        ("user", "what is my name?"),
        ("assistant", "my name is Ada | what is my name?"),
    ]
    assert texts(result.new_messages) == texts(result.all_messages()[3:])
    # the history given is not changed either
    assert len(earlier) == 2
    # going on: pass the result's messages back
    again = await agent.run("and again?", message_history=result.all_messages())
    assert texts(again.all_messages())[0] == ("system", "Be brief.")
    assert len(again.all_messages()) == 7


async def test_runs_with_their_own_history_overlap_and_never_see_each_other() -> None:
    model = EchoModel(delay=0.05)
    agent = Agent(model=model)
    results: dict[int, Any] = {}

    async def one(index: int) -> None:
        results[index] = await agent.run(f"secret-{index}", message_history=[])

    started = time.perf_counter()
    async with anyio.create_task_group() as group:
        for index in range(30):
            group.start_soon(one, index)
    elapsed = time.perf_counter() - started
    assert elapsed < 30 * 0.05 / 3  # they ran at the same time, not one after the other
    for index, result in results.items():
        seen = " ".join(str(m.content) for m in result.all_messages())
        assert f"secret-{index}" in seen
        others = [i for i in range(30) if i != index and f"secret-{i} " in seen + " "]
        assert others == []
    for request in model.requests:
        users = [m for m in request.messages if isinstance(m, UserMessage)]
        assert len(users) == 1
    assert agent.messages == []


async def test_a_conversation_keeps_its_history_and_shares_the_definition() -> None:
    installs: list[str] = []

    class Counter(AgentComponent):
        async def install(self, agent: Agent[Any, Any]) -> None:
            installs.append("install")
            await super().install(agent)

    @tool
    def shout(text: str) -> str:
        """Shout."""
        return text.upper()

    model = ScriptedModel(
        [ScriptedModel.tool_call("shout", {"text": "hi"}), "HI", "again", "other"]
    )
    agent = Agent("Sys.", model=model, tools=[shout], extensions=[Counter()])
    async with agent:
        first = agent.conversation()
        second = agent.conversation(history=[UserMessage(content="before")])
        async with first:
            assert isinstance(first, Conversation)
            assert (await first.run("one")).output == "HI"
            assert (await first.call("two")).content == "again"
        assert (await second.run("three")).output == "other"
    assert installs == ["install"]  # conversations install nothing again
    assert [m.role for m in first.messages] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
        "assistant",
    ]
    assert texts(second.messages) == [
        ("system", "Sys."),
        ("user", "before"),
        ("user", "three"),
        ("assistant", "other"),
    ]
    assert texts(agent.messages) == [("system", "Sys.")]
    assert first.usage.requests == 3 and first.usage.tool_calls == 1
    assert second.usage.requests == 1


async def test_a_conversation_streams_and_iterates() -> None:
    agent = Agent(model=EchoModel())
    conversation = agent.conversation()
    async with conversation.stream("a") as run:
        text = "".join([piece async for piece in run.text_deltas()])
    assert text == "a"
    steps = []
    async with conversation.iter("b") as stepping:
        async for step in stepping:
            steps.append(type(step).__name__)
    assert steps[0] == ModelStep.__name__
    assert stepping.result is not None and stepping.result.output == "a | b"
    assert len(conversation.messages) == 4 and agent.messages == []


def test_a_conversation_runs_without_an_event_loop() -> None:
    with Agent(model=EchoModel()) as agent:
        conversation = agent.conversation()
        assert conversation.run_sync("x").output == "x"
        assert conversation.run_sync("y").output == "x | y"
        assert agent.run_sync("z", message_history=[]).output == "z"
        assert agent.messages == []


async def test_per_run_model_settings_and_instructions() -> None:
    default = ScriptedModel(["default"], name="default")
    other = ScriptedModel(["other"], name="other")
    agent = Agent(
        "Sys.",
        model=default,
        model_settings={"temperature": 0.1, "max_tokens": 50},
        instructions="Always polite.",
    )
    result = await agent.run(
        "x",
        model=other,
        model_settings={"temperature": 0.9},
        instructions="Answer in French.",
    )
    assert result.output == "other" and not default.requests
    request = other.requests[0]
    assert request.settings == {"temperature": 0.9, "max_tokens": 50}
    system = request.messages[0]
    assert isinstance(system, SystemMessage)
    assert system.content == "Sys.\n\nAlways polite.\n\nAnswer in French."
    assert agent.model is default and agent.model_settings["temperature"] == 0.1
    await agent.run("y")
    request = default.requests[0]
    assert request.settings == {"temperature": 0.1, "max_tokens": 50}
    assert request.messages[0].content == "Sys.\n\nAlways polite."  # never stored
    assert all("French" not in str(m.content) for m in agent.messages)


async def test_a_run_by_model_name_and_an_unknown_provider_lists_the_known_ones() -> None:
    agent = Agent(model=ScriptedModel(["a"]), api_key="sk-test")
    with pytest.raises(ModelConfigError) as caught:
        await agent.run("x", model="nosuch:model-1", message_history=[])
    message = str(caught.value)
    assert "nosuch" in message and "openai" in message and "anthropic" in message
    assert agent._named == {}


async def test_override_is_scoped_to_the_task() -> None:
    real = EchoModel(delay=0.02)
    agent = Agent(model=real)
    fake = ScriptedModel(["fake"])
    outputs: dict[str, str] = {}

    async def overridden() -> None:
        with agent.override(model=fake):
            await anyio.sleep(0.01)
            outputs["test"] = (await agent.run("t", message_history=[])).output

    async def elsewhere() -> None:
        await anyio.sleep(0.015)
        outputs["app"] = (await agent.run("app", message_history=[])).output

    async with anyio.create_task_group() as group:
        group.start_soon(overridden)
        group.start_soon(elsewhere)
    assert outputs == {"test": "fake", "app": "app"}


async def test_a_run_failing_before_any_answer_leaves_the_conversation_as_it_was() -> None:
    calls = 0

    def limited(request: ModelRequest) -> ModelResponse:
        nonlocal calls
        calls += 1
        raise ModelRateLimitError("429 Too Many Requests")

    model = ScriptedModel([limited, "Hello."])
    agent = Agent("Sys.", model=model)
    before = list(agent.messages)
    with pytest.raises(ModelRateLimitError) as caught:
        await agent.run("hi")
    assert agent.messages == before  # no dangling prompt
    assert caught.value is not None
    result = await agent.run("hi")  # the retry
    assert result.output == "Hello."
    sent = model.requests[-1].messages
    assert [m.role for m in sent] == ["system", "user"]  # the message went once
    assert texts(agent.messages) == [("system", "Sys."), ("user", "hi"), ("assistant", "Hello.")]


async def test_an_instructions_function_that_raises_leaves_no_prompt_behind() -> None:
    agent = Agent(model=ScriptedModel(["never"]))

    @agent.instructions
    def broken() -> str:
        raise RuntimeError("no instructions today")

    conversation = agent.conversation(history=[UserMessage(content="earlier")])
    with pytest.raises(RuntimeError):
        await conversation.run("now")
    assert texts(conversation.messages) == [("user", "earlier")]


async def test_a_run_failing_after_an_answer_keeps_the_completed_turns() -> None:
    def fails(request: ModelRequest) -> ModelResponse:
        raise ModelRateLimitError("429")

    @tool
    def lookup() -> str:
        """Look."""
        return "found"

    agent = Agent(model=ScriptedModel([ScriptedModel.tool_call("lookup"), fails]), tools=[lookup])
    with pytest.raises(ModelRateLimitError):
        await agent.run("go")
    assert [m.role for m in agent.messages] == ["user", "assistant", "tool"]


@pytest.mark.parametrize(
    ("history", "where"),
    [
        ([UserMessage(content="a"), "not a message"], "message_history[1] is str"),
        (
            [UserMessage(content="a"), ToolMessage(tool_call_id="c1", tool_name="t", content="x")],
            "message_history[1] is the result of call 'c1'",
        ),
        (
            [
                UserMessage(content="a"),
                AssistantMessage(tool_calls=[ToolCall(id="c1", name="t", arguments={})]),
                UserMessage(content="b"),
            ],
            "message_history[1] has the call 'c1' without a result",
        ),
        ({"role": "user"}, "must be a list of messages"),
    ],
)
async def test_an_invalid_history_is_refused_before_any_request(history: Any, where: str) -> None:
    model = ScriptedModel(["never"])
    agent = Agent(model=model)
    with pytest.raises(HistoryError, match=where.replace("[", r"\[").replace("]", r"\]")):
        await agent.run("x", message_history=history)
    with pytest.raises(HistoryError):
        agent.conversation(history=history)
    assert not model.requests


async def test_calls_waiting_at_the_end_of_a_history_resume_with_approvals() -> None:
    @tool(requires_approval=True)
    def delete(name: str) -> str:
        """Delete."""
        return f"deleted {name}"

    model = ScriptedModel([ScriptedModel.tool_call("delete", {"name": "x"}), "done"])
    agent = Agent(model=model, tools=[delete])
    first = agent.conversation()
    waiting = await first.run("delete x")
    assert waiting.is_deferred
    other = agent.conversation(history=first.messages)
    # a bare True approves only calls this conversation deferred itself
    call_id = waiting.deferred[0].call_id
    with pytest.raises(ApprovalError):
        await other.run(approvals={call_id: True})
    done = await first.run(approvals={call_id: True})
    assert done.output == "done"
    assert agent.messages == []


SUB_AGENT = Agent("You research.", model=EchoModel(delay=0.02))
"""A module-level sub-agent, shared by every delegation."""


async def test_two_delegations_to_a_module_level_agent_in_one_turn() -> None:
    @tool
    async def research(ctx: RunContext[Any], question: str) -> str:
        """Ask the research agent."""
        result = await SUB_AGENT.run(question, message_history=[], usage=ctx.usage)
        return str(result.output)

    research_tool = research

    async def parent_run(user: str) -> Any:
        parent = Agent(
            model=ScriptedModel(
                [
                    ScriptedModel.tool_calls(
                        ("research", {"question": f"{user}-private-1"}, "c1"),
                        ("research", {"question": f"{user}-private-2"}, "c2"),
                    ),
                    "done",
                ]
            ),
            tools=[research_tool],
        )
        return await parent.run("go"), parent

    (result_a, parent_a) = await parent_run("alice")
    (result_b, parent_b) = await parent_run("bob")
    for result, parent, user in ((result_a, parent_a, "alice"), (result_b, parent_b, "bob")):
        assert result.output == "done"
        assert result.usage.requests == 4  # 2 of the parent, 1 per delegation
        answers = [m for m in parent.messages if isinstance(m, ToolMessage)]
        assert [a.content for a in answers] == [f"{user}-private-1", f"{user}-private-2"]
    assert texts(SUB_AGENT.messages) == [("system", "You research.")]
    sub_model = SUB_AGENT.model
    assert isinstance(sub_model, EchoModel)
    for request in sub_model.requests:  # each delegation saw only its own question
        assert len([m for m in request.messages if isinstance(m, UserMessage)]) == 1


async def test_stream_iter_and_call_take_a_history_of_their_own() -> None:
    agent = Agent(model=EchoModel())
    earlier = [UserMessage(content="before")]
    async with agent.stream("streamed", message_history=earlier) as run:
        result = await run.wait()
    assert result.output == "before | streamed"
    assert texts(result.all_messages())[0] == ("user", "before")
    async with agent.iter("stepped", message_history=earlier) as stepping:
        async for _ in stepping:
            pass
    assert stepping.result is not None and stepping.result.output == "before | stepped"
    reply = await agent.call("called", message_history=earlier)
    assert reply.content == "before | called"
    assert agent.messages == [] and len(earlier) == 1
