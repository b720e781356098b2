"""A prompted model that writes about a tool without calling it: the agent runs nothing.

The agent talks to a text-only OpenAI-compatible server on loopback; its replies
sketch calls with placeholders (and, for contrast, make one real call). One-shot
and streamed runs alike end with the prose as the answer and no tool run.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from bridge_fakes import UPSTREAM_KEY, OpenAIFake, Reply

from good_agent import Agent, ToolMessage, tool
from good_agent.models import OpenAIChatModel
from good_agent.server.background import BackgroundServer

pytestmark = pytest.mark.anyio

RAN: list[dict[str, Any]] = []


@tool
def calc(volume: str) -> str:
    """Compute something from a volume."""
    RAN.append({"volume": volume})
    return f"computed {volume}"


PROSE = [
    "Normally I'd send {'name': 'calc', 'arguments': ...}, but no tool fits",
    'A call such as {"name": "calc", "arguments": {"volume": ...}} would need a real volume',
    'You could use {"name": "calc", "arguments": {"volume": "..."}} once you know it.',
    'Something like [calc(volume="<volume>")] would work with a real volume.',
]


@pytest.fixture(scope="module")
def text_server() -> Iterator[tuple[OpenAIFake, str]]:
    fake = OpenAIFake(text_only=True)
    server = BackgroundServer(fake.app()).start()
    yield fake, server.url
    server.stop()


@pytest.fixture
async def agent(text_server: tuple[OpenAIFake, str]) -> AsyncIterator[Agent]:
    fake, url = text_server
    fake.reset()
    fake.chunk_size = 3
    RAN.clear()
    model = OpenAIChatModel("local", base_url=f"{url}/v1", api_key=UPSTREAM_KEY, mode="validated")
    async with Agent(model=model, tools=[calc]) as built:
        yield built
    await model.aclose()


@pytest.mark.parametrize("prose", PROSE)
async def test_prose_about_a_tool_is_the_answer(
    prose: str, agent: Agent, text_server: tuple[OpenAIFake, str]
) -> None:
    text_server[0].reply = Reply(text=prose)
    answer = await agent.call("What volume does the moon have in teaspoons?")
    assert answer.content == prose
    assert not answer.tool_calls
    assert RAN == []
    assert not [m for m in agent.messages if isinstance(m, ToolMessage)]
    assert len(text_server[0].requests) == 1
    assert not text_server[0].problems


@pytest.mark.parametrize("prose", PROSE)
async def test_streamed_prose_about_a_tool_is_the_answer(
    prose: str, agent: Agent, text_server: tuple[OpenAIFake, str]
) -> None:
    text_server[0].reply = Reply(text=prose)
    async with agent.stream("What volume does the moon have in teaspoons?") as run:
        pieces = [text async for text in run.text_deltas()]
    assert "".join(pieces) == prose
    assert run.output == prose
    assert RAN == []
    assert len(text_server[0].requests) == 1


async def test_a_real_call_next_to_prose_still_runs(
    agent: Agent, text_server: tuple[OpenAIFake, str]
) -> None:
    replies = iter(
        [
            Reply(text='Computing. {"name": "calc", "arguments": {"volume": "3 l"}}'),
            Reply(text="Done: computed 3 l."),
        ]
    )
    text_server[0].script = lambda body: next(replies)
    answer = await agent.call("Compute for 3 l")
    assert answer.content == "Done: computed 3 l."
    assert RAN == [{"volume": "3 l"}]
