"""Telemetry(include_content=True): messages on spans in the GenAI semantic-convention
form, off by default, secrets redacted. Spans go to the SDK's in-memory exporter."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic import SecretStr

from good_agent import Agent, tool
from good_agent.extensions import AuthInjector, Telemetry
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio

CANARY = "sk-canary-4f9a1b2c3d"


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    memory.tracer = provider.get_tracer("test")  # type: ignore[attr-defined]
    yield memory
    provider.shutdown()


@tool
def weather(city: str, api_key: SecretStr | None = None) -> str:
    """Weather in a city."""
    assert api_key is not None and api_key.get_secret_value() == CANARY
    return f"sunny in {city}"


def _script() -> list[Any]:
    return [
        ScriptedModel.tool_call("weather", {"city": "Paris"}, id="w1"),
        "Sunny in Paris.",
    ]


def _attributes(spans: tuple[ReadableSpan, ...]) -> list[dict[str, Any]]:
    return [dict(span.attributes or {}) for span in spans]


async def _run(exporter: InMemorySpanExporter, *, include_content: bool) -> list[ReadableSpan]:
    telemetry = Telemetry(exporter.tracer, include_content=include_content)  # type: ignore[attr-defined]
    auth = AuthInjector({"api_key": CANARY})
    agent = Agent(
        "You report the weather.",
        model=ScriptedModel(_script()),
        tools=[weather],
        extensions=[auth, telemetry],
    )
    async with agent:
        await agent.run(f"Weather in Paris? (my key is {CANARY})")
    return list(exporter.get_finished_spans())


async def test_content_follows_the_genai_message_form(exporter: InMemorySpanExporter) -> None:
    spans = await _run(exporter, include_content=True)
    chats = sorted((s for s in spans if s.name.startswith("chat")), key=lambda s: s.start_time or 0)
    first, second = (dict(s.attributes or {}) for s in chats)
    assert json.loads(first["gen_ai.system_instructions"]) == [
        {"type": "text", "content": "You report the weather."}
    ]
    assert json.loads(first["gen_ai.input.messages"]) == [
        {
            "role": "user",
            "parts": [{"type": "text", "content": "Weather in Paris? (my key is [REDACTED])"}],
        }
    ]
    assert json.loads(first["gen_ai.output.messages"]) == [
        {
            "role": "assistant",
            "parts": [
                {"type": "tool_call", "id": "w1", "name": "weather", "arguments": {"city": "Paris"}}
            ],
            "finish_reason": "tool_calls",
        }
    ]
    history = json.loads(second["gen_ai.input.messages"])
    assert [m["role"] for m in history] == ["user", "assistant", "tool"]
    assert history[2]["parts"] == [
        {"type": "tool_call_response", "id": "w1", "response": "sunny in Paris"}
    ]
    assert json.loads(second["gen_ai.output.messages"]) == [
        {
            "role": "assistant",
            "parts": [{"type": "text", "content": "Sunny in Paris."}],
            "finish_reason": "stop",
        }
    ]
    [tool_span] = [dict(s.attributes or {}) for s in spans if s.name == "execute_tool weather"]
    assert json.loads(tool_span["gen_ai.tool.call.arguments"]) == {"city": "Paris"}
    assert tool_span["gen_ai.tool.call.result"] == "sunny in Paris"


async def test_no_secret_reaches_any_span(exporter: InMemorySpanExporter) -> None:
    spans = await _run(exporter, include_content=True)
    everything = json.dumps(_attributes(tuple(spans)), default=str)
    assert CANARY not in everything
    assert "[REDACTED]" in everything


async def test_content_is_off_by_default(exporter: InMemorySpanExporter) -> None:
    spans = await _run(exporter, include_content=False)
    keys = {key for attributes in _attributes(tuple(spans)) for key in attributes}
    content_keys = {
        "gen_ai.system_instructions",
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
    }
    assert not keys & content_keys
    assert "gen_ai.operation.name" in keys
