"""TestModel: no script; calls the offered tools with schema-valid arguments, then answers."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from pydantic import BaseModel, Field

from good_agent import Agent, TextDeltaEvent, ToolMessage, tool
from good_agent.testing import SchemaValueError, TestModel

pytestmark = pytest.mark.anyio


class Filters(BaseModel):
    tags: list[str] = Field(min_length=2)
    since_days: int = Field(ge=7, le=30)


class Report(BaseModel):
    """A short report."""

    title: str = Field(min_length=3)
    score: float = Field(gt=0, le=1)
    sources: list[str]


def _tools(seen: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    @tool
    def search(query: str, filters: Filters, limit: int = 10) -> str:
        """Search the index."""
        seen.append(("search", {"query": query, "filters": filters, "limit": limit}))
        return f"3 hits for {query}"

    @tool
    async def stock(sku: str, warehouse: int | None = None) -> int:
        """Stock of a product."""
        seen.append(("stock", {"sku": sku, "warehouse": warehouse}))
        return 7

    return [search, stock]


async def test_every_tool_is_called_once_with_arguments_valid_against_its_schema() -> None:
    seen: list[tuple[str, dict[str, Any]]] = []
    model = TestModel()
    agent = Agent(model=model, tools=_tools(seen))
    result = await agent.run("go")
    assert sorted(name for name, _ in seen) == ["search", "stock"]
    first = model.requests[0]
    assert first.tool_names == ["search", "stock"]
    calls = agent.messages[1].tool_calls
    for call in calls:
        [signature] = [t for t in first.tools if t["function"]["name"] == call.name]
        jsonschema.Draft202012Validator(signature["function"]["parameters"]).validate(
            call.arguments
        )
    assert not any(m.is_error for m in agent.messages if isinstance(m, ToolMessage))
    assert json.loads(result.output) == {"search": "3 hits for a", "stock": "7"}
    assert len(model.requests) == 2


async def test_call_tools_picks_a_subset_and_custom_text_answers() -> None:
    seen: list[tuple[str, dict[str, Any]]] = []
    model = TestModel(call_tools=["stock"], custom_output_text="done")
    result = await Agent(model=model, tools=_tools(seen)).run("go")
    assert [name for name, _ in seen] == ["stock"]
    assert result.output == "done"


async def test_without_tools_it_answers_at_once() -> None:
    model = TestModel()
    result = await Agent(model=model).run("hi")
    assert result.output == "success (no tool calls)"
    assert len(model.requests) == 1


@pytest.mark.parametrize("mode", ["tool", "native"])
async def test_a_typed_run_gets_a_valid_output(mode: str) -> None:
    seen: list[tuple[str, dict[str, Any]]] = []
    model = TestModel()
    agent = Agent(model=model, tools=_tools(seen))
    result = await agent.run("report", output_type=Report, output_mode=mode)  # type: ignore[arg-type]
    assert isinstance(result.output, Report)
    assert len(result.output.title) >= 3 and 0 < result.output.score <= 1
    assert sorted(name for name, _ in seen) == ["search", "stock"]


async def test_a_wrapped_output_type_and_a_custom_output() -> None:
    assert (await Agent(model=TestModel()).run("n", output_type=list[int])).output == [0]
    custom = Report(title="Custom", score=0.5, sources=["x"])
    result = await Agent(model=TestModel(custom_output_args=custom)).run("r", output_type=Report)
    assert result.output == custom
    wrapped = TestModel(custom_output_args=[4, 5])
    assert (await Agent(model=wrapped).run("n", output_type=list[int])).output == [4, 5]


async def test_an_unsatisfiable_schema_names_the_tool_and_tool_args_overrides_it() -> None:
    @tool
    def code(value: str = Field(pattern=r"^ZX-\d{4}$")) -> str:
        """Look up a code."""
        return value

    with pytest.raises(SchemaValueError, match=r"tool 'code'.*tool_args"):
        await Agent(model=TestModel(), tools=[code]).run("go")
    model = TestModel(tool_args={"code": {"value": "ZX-1234"}})
    result = await Agent(model=model, tools=[code]).run("go")
    assert json.loads(result.output) == {"code": "ZX-1234"}


async def test_streamed_runs_work_the_same() -> None:
    seen: list[tuple[str, dict[str, Any]]] = []
    model = TestModel(custom_output_text="streamed answer")
    texts = []
    async with Agent(model=model, tools=_tools(seen)).stream("go") as run:
        async for event in run:
            if isinstance(event, TextDeltaEvent):
                texts.append(event.text)
    assert "".join(texts) == "streamed answer"
    assert len(seen) == 2
