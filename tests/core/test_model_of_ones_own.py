"""A model of one's own that implements only ``request()``: runs, streams and falls back."""

from __future__ import annotations

from typing import Any

import pytest

from good_agent import Agent, FallbackModel, tool
from good_agent.core.run_events import TextDeltaEvent, ToolCallStartEvent
from good_agent.messages import ToolCall, UserMessage
from good_agent.models import LanguageModel
from good_agent.models.base import ModelRequest, ModelResponse

pytestmark = pytest.mark.anyio


class Echo(LanguageModel):
    """Calls ``shout`` once, then answers with the last tool result."""

    @property
    def model_name(self) -> str:
        return "echo-1"

    async def request(self, request: ModelRequest) -> ModelResponse:
        last = request.messages[-1]
        if last.role == "tool":
            return ModelResponse(content=f"it said {last.content}", finish_reason="stop")
        call = ToolCall(id="s1", name="shout", arguments={"text": "hi"})
        return ModelResponse(tool_calls=[call], finish_reason="tool_calls")


class DuckEcho:
    """The same model, not subclassing LanguageModel and without ``stream``."""

    model_name = "duck-1"
    request = Echo.request


@tool
def shout(text: str) -> str:
    """Shout."""
    return text.upper()


@pytest.mark.parametrize("model", [Echo(), DuckEcho()], ids=["subclass", "duck"])
async def test_a_model_with_only_request_runs_and_streams(model: Any) -> None:
    assert (await Agent(model=model, tools=[shout]).run("go")).output == "it said HI"

    agent = Agent(model=model, tools=[shout])
    async with agent.stream("go") as run:
        events = [event async for event in run]
    assert run.output == "it said HI"
    assert [e.name for e in events if isinstance(e, ToolCallStartEvent)] == ["shout"]
    assert "".join(e.text for e in events if isinstance(e, TextDeltaEvent)) == "it said HI"


async def test_the_default_stream_yields_the_deltas_then_the_whole_reply() -> None:
    request = ModelRequest(messages=[UserMessage(content="go")])
    items = [item async for item in Echo().stream(request)]
    assert isinstance(items[-1], ModelResponse) and items[-1].tool_calls[0].name == "shout"
    assert not any(isinstance(item, ModelResponse) for item in items[:-1])


async def test_a_fallback_chain_streams_a_model_with_only_request() -> None:
    agent = Agent(model=FallbackModel(DuckEcho()), tools=[shout])  # type: ignore[arg-type]
    async with agent.stream("go") as run:
        await run.wait()
    assert run.output == "it said HI"
