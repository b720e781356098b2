"""Telemetry: invoke_agent / chat / execute_tool spans, nested, for call() and stream().

Spans go to the OpenTelemetry SDK's in-memory exporter.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from good_agent import Agent, ToolError, Usage, tool
from good_agent.extensions import Telemetry
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    memory.tracer = provider.get_tracer("test")  # type: ignore[attr-defined]
    yield memory
    provider.shutdown()


def telemetry(exporter: InMemorySpanExporter) -> Telemetry:
    return Telemetry(exporter.tracer, agent_name="weather-bot")  # type: ignore[attr-defined]


@tool
def weather(city: str) -> str:
    """Weather in a city."""
    inner = trace.get_current_span()
    assert inner.is_recording(), "the tool runs inside its execute_tool span"
    return f"sunny in {city}"


@tool
def broken(city: str) -> str:
    """Always fails."""
    raise ToolError("the weather service is down")


def by_name(spans: tuple[ReadableSpan, ...]) -> dict[str, ReadableSpan]:
    return {span.name: span for span in spans}


def parent_of(span: ReadableSpan) -> int | None:
    return span.parent.span_id if span.parent is not None else None


def assert_run_shape(spans: tuple[ReadableSpan, ...], *, streamed: bool) -> None:
    names = [span.name for span in spans]
    assert sorted(names) == sorted(
        ["invoke_agent weather-bot", "chat scripted", "chat scripted", "execute_tool weather"]
    )
    run = by_name(spans)["invoke_agent weather-bot"]
    chats = [span for span in spans if span.name == "chat scripted"]
    tool_span = by_name(spans)["execute_tool weather"]
    assert parent_of(run) is None
    run_id = run.context.span_id
    assert all(parent_of(chat) == run_id for chat in chats)
    assert parent_of(tool_span) == run_id
    assert {span.context.trace_id for span in spans} == {run.context.trace_id}
    first, second = sorted(chats, key=lambda span: span.start_time or 0)
    assert (first.end_time or 0) <= (tool_span.start_time or 0)
    assert (tool_span.end_time or 0) <= (second.start_time or 0)

    attrs: dict[str, Any] = dict(run.attributes or {})
    assert attrs["gen_ai.operation.name"] == "invoke_agent"
    assert attrs["gen_ai.agent.name"] == "weather-bot"
    assert attrs["gen_ai.request.model"] == "scripted"
    assert attrs["gen_ai.usage.input_tokens"] == 30
    assert attrs["gen_ai.usage.output_tokens"] == 9
    assert attrs["good_agent.run.streamed"] is streamed

    chat: dict[str, Any] = dict(first.attributes or {})
    assert chat["gen_ai.operation.name"] == "chat"
    assert chat["gen_ai.provider.name"] == "good_agent"
    assert chat["gen_ai.request.model"] == "scripted"
    assert chat["gen_ai.request.temperature"] == 0.2
    assert chat["gen_ai.usage.input_tokens"] == 10
    assert chat["gen_ai.usage.output_tokens"] == 4
    assert tuple(chat["gen_ai.response.finish_reasons"]) == ("tool_calls",)
    assert first.kind is trace.SpanKind.CLIENT

    tool_attrs: dict[str, Any] = dict(tool_span.attributes or {})
    assert tool_attrs == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "weather",
        "gen_ai.tool.call.id": "w1",
        "gen_ai.tool.type": "function",
        "gen_ai.tool.description": "Weather in a city.",
    }
    assert all(span.status.status_code is not StatusCode.ERROR for span in spans)


def replies() -> list[Any]:
    return [
        ScriptedModel.streamed(
            "Let me check. ",
            ScriptedModel.call("weather", {"city": "Paris"}, id="w1"),
            usage=Usage(input_tokens=10, output_tokens=4),
            finish_reason="tool_calls",
        ),
        ScriptedModel.streamed(
            "Sunny ",
            "in Paris.",
            usage=Usage(input_tokens=20, output_tokens=5),
            finish_reason="stop",
        ),
    ]


async def test_a_call_is_one_trace_of_nested_genai_spans(exporter: InMemorySpanExporter) -> None:
    agent = Agent(
        model=ScriptedModel(replies()),
        tools=[weather],
        extensions=[telemetry(exporter)],
        model_settings={"temperature": 0.2},
    )
    async with agent:
        await agent.call("Weather in Paris?")
    assert_run_shape(exporter.get_finished_spans(), streamed=False)


async def test_a_streamed_run_has_the_same_spans(exporter: InMemorySpanExporter) -> None:
    agent = Agent(
        model=ScriptedModel(replies()),
        tools=[weather],
        extensions=[telemetry(exporter)],
        model_settings={"temperature": 0.2},
    )
    async with agent, agent.stream("Weather in Paris?") as run:
        async for _ in run:
            pass
    assert_run_shape(exporter.get_finished_spans(), streamed=True)


async def test_the_run_nests_under_the_callers_span(exporter: InMemorySpanExporter) -> None:
    model = ScriptedModel(["hi"])
    async with Agent(model=model, extensions=[telemetry(exporter)]) as agent:
        with exporter.tracer.start_as_current_span("request") as outer:  # type: ignore[attr-defined]
            await agent.call("hello")
    spans = by_name(exporter.get_finished_spans())
    assert parent_of(spans["invoke_agent weather-bot"]) == outer.get_span_context().span_id
    assert trace.get_current_span() is trace.INVALID_SPAN, "the context is restored"


async def test_tool_failures_and_model_errors_end_spans_with_error(
    exporter: InMemorySpanExporter,
) -> None:
    model = ScriptedModel(
        [
            ScriptedModel.tool_call("broken", {"city": "Paris"}, id="b1"),
            ScriptedModel.tool_call("missing", {}, id="m1"),
        ]
    )
    async with Agent(model=model, tools=[broken], extensions=[telemetry(exporter)]) as agent:
        with pytest.raises(Exception) as caught:
            await agent.call("go")
    spans = by_name(exporter.get_finished_spans())
    failed = spans["execute_tool broken"]
    assert failed.status.status_code is StatusCode.ERROR
    assert (failed.attributes or {})["error.type"] == "ToolError"
    unknown = spans["execute_tool missing"]
    assert (unknown.attributes or {})["error.type"] == "UnknownToolError"
    run = spans["invoke_agent weather-bot"]
    assert run.status.status_code is StatusCode.ERROR
    assert (run.attributes or {})["error.type"] == type(caught.value).__name__
    chats = [s for s in exporter.get_finished_spans() if s.name == "chat scripted"]
    assert len(chats) == 3  # the third request found the script exhausted
    assert chats[-1].status.status_code is StatusCode.ERROR
    assert all(span.end_time is not None for span in exporter.get_finished_spans())
    assert trace.get_current_span() is trace.INVALID_SPAN


async def test_invoke_outside_a_run_is_one_execute_tool_span(
    exporter: InMemorySpanExporter,
) -> None:
    async with Agent(
        model=ScriptedModel([]), tools=[weather], extensions=[telemetry(exporter)]
    ) as agent:
        response = await agent.invoke("weather", city="Oslo")
        assert response.success
        await agent.invoke("weather", city="Rome")
    spans = exporter.get_finished_spans()
    assert [span.name for span in spans] == ["execute_tool weather"] * 2
    assert all(parent_of(span) is None for span in spans)
    assert trace.get_current_span() is trace.INVALID_SPAN
