"""run.partial_output(): the typed output validated partially while it streams, from a
real OpenAI-compatible stream served on loopback."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from bridge_fakes import UPSTREAM_KEY, OpenAIFake, Reply
from pydantic import BaseModel

from good_agent import Agent, TextDeltaEvent, ToolCallArgsEvent
from good_agent.models import OpenAIChatModel
from good_agent.server.background import BackgroundServer

pytestmark = pytest.mark.anyio


class Section(BaseModel):
    heading: str
    body: str = ""


class Report(BaseModel):
    title: str
    sections: list[Section] = []
    score: float = 0.0
    tags: list[str] = []


REPORT = {
    "title": "Quarterly review of the northern region",
    "sections": [
        {"heading": "Sales", "body": "Up twelve percent on the year."},
        {"heading": "Costs", "body": "Flat, with freight cheaper."},
        {"heading": "Outlook"},
    ],
    "score": 87.25,
    "tags": ["north", "q3", "review"],
}


@pytest.fixture(scope="module")
def upstream() -> Iterator[tuple[OpenAIFake, str]]:
    fake = OpenAIFake()
    server = BackgroundServer(fake.app()).start()
    yield fake, server.url
    server.stop()


@pytest.fixture
async def model(upstream: tuple[OpenAIFake, str]) -> AsyncIterator[OpenAIChatModel]:
    fake, url = upstream
    fake.reset()
    built = OpenAIChatModel("fake-gpt", base_url=f"{url}/v1", api_key=UPSTREAM_KEY)
    yield built
    await built.aclose()


def grows(before: Any, after: Any) -> bool:
    """Whether ``after`` extends ``before``: fields kept, lists longer, text longer."""
    if isinstance(before, dict):
        return isinstance(after, dict) and all(
            k in after and grows(v, after[k]) for k, v in before.items()
        )
    if isinstance(before, list):
        return (
            isinstance(after, list)
            and len(after) >= len(before)
            and all(grows(b, a) for b, a in zip(before, after, strict=False))
        )
    return str(after).startswith(str(before))


def check_growth(partials: list[Report], final: Report) -> None:
    dumps = [p.model_dump(exclude_unset=True) for p in partials]
    assert all(isinstance(p, Report) for p in partials)
    for before, after in itertools.pairwise(dumps):
        assert grows(before, after), (before, after)
    assert partials[-1] == final
    # it really grew piece by piece: several distinct previews on the way
    assert len({repr(d) for d in dumps}) > 10


@pytest.mark.parametrize("chunk", [1, 3, 8])
async def test_partial_reports_grow_until_the_final_output_in_tool_mode(
    upstream: tuple[OpenAIFake, str], model: OpenAIChatModel, chunk: int
) -> None:
    fake, _ = upstream
    fake.chunk_size = chunk
    fake.reply = Reply(calls=[("final_result", REPORT)])
    partials: list[Report] = []
    async with Agent(model=model).stream("Write the report", output_type=Report) as run:
        assert run.partial_output() is None
        async for event in run:
            if isinstance(event, ToolCallArgsEvent):
                current = run.partial_output()
                if current is not None:
                    partials.append(current)
    assert run.output == Report.model_validate(REPORT)
    check_growth(partials, run.output)
    assert partials[0].title and len(partials[0].title) < len(REPORT["title"])  # type: ignore[arg-type]


async def test_partial_reports_from_a_json_text_answer(
    upstream: tuple[OpenAIFake, str], model: OpenAIChatModel
) -> None:
    fake, _ = upstream
    fake.chunk_size = 5
    fake.reply = Reply(text=Report.model_validate(REPORT).model_dump_json())
    partials: list[Report] = []
    agent = Agent(model=model)
    async with agent.stream("Write it", output_type=Report, output_mode="native") as run:
        async for event in run:
            if isinstance(event, TextDeltaEvent):
                current = run.partial_output()
                if current is not None:
                    partials.append(current)
    check_growth(partials, run.output)


class Strict(BaseModel):
    title: str
    verdict: str


async def test_a_required_field_not_yet_arrived_holds_the_last_valid_preview(
    upstream: tuple[OpenAIFake, str], model: OpenAIChatModel
) -> None:
    fake, _ = upstream
    fake.chunk_size = 4
    fake.reply = Reply(calls=[("final_result", {"title": "A long title", "verdict": "good"})])
    seen: list[Any] = []
    async with Agent(model=model).stream("go", output_type=Strict) as run:
        async for event in run:
            if isinstance(event, ToolCallArgsEvent):
                seen.append(run.partial_output())
    # nothing validates until "verdict" has begun; from then on it only grows
    first = next(i for i, value in enumerate(seen) if value is not None)
    assert all(value is None for value in seen[:first])
    assert seen[first].title == "A long title"
    assert seen[-1] == run.output == Strict(title="A long title", verdict="good")
