"""The ``good-agent demo`` agent: two tools, one called twice in parallel, printed step by step."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from good_agent.core.agent import Agent
from good_agent.core.events import AgentEvents, EventContext
from good_agent.core.payloads import ToolCallAfter
from good_agent.models.base import LanguageModel, ModelRequest
from good_agent.testing import ScriptedModel
from good_agent.tools.tool import tool

_WEATHER = {"paris": 18.0, "tokyo": 24.5, "lima": 16.0}

PROMPT = "What is the weather in Paris and Tokyo right now? Give Tokyo's in Fahrenheit too."


@tool
def get_weather(city: str) -> dict[str, Any]:
    """Look up the current weather for a city.

    Args:
        city: City name, e.g. "Paris".
    """
    celsius = _WEATHER.get(city.lower(), 20.0)
    return {"city": city, "celsius": celsius, "sky": "clear"}


@tool
def celsius_to_fahrenheit(celsius: float) -> float:
    """Convert a temperature from Celsius to Fahrenheit.

    Args:
        celsius: Temperature in degrees Celsius.
    """
    return round(celsius * 9 / 5 + 32, 1)


def scripted_model() -> ScriptedModel:
    """The script the offline demo replays."""
    return ScriptedModel(
        [
            ScriptedModel.tool_calls(
                ("get_weather", {"city": "Paris"}, "call_paris"),
                ("get_weather", {"city": "Tokyo"}, "call_tokyo"),
            ),
            ScriptedModel.tool_call("celsius_to_fahrenheit", {"celsius": 24.5}, id="call_f"),
            "Paris is 18.0°C and clear; Tokyo is 24.5°C (76.1°F) and clear.",
        ],
        name="scripted-demo",
    )


def build_agent(model: str | LanguageModel, *, base_url: str | None = None) -> Agent:
    """The demo agent, with a printer attached to its events."""
    agent = Agent(
        "You are a concise weather assistant. Use the tools; call them in parallel "
        "when you need several lookups.",
        model=model,
        tools=[get_weather, celsius_to_fahrenheit],
        base_url=base_url,
    )
    return agent


def attach_printer(agent: Agent, out: Callable[[str], None] = print) -> None:
    """Print each model request, tool call and result as it happens."""
    step = {"n": 0}

    def on_request(ctx: EventContext) -> None:
        request: ModelRequest = ctx.payload
        step["n"] += 1
        names = ", ".join(t["function"]["name"] for t in request.tools)
        out(f"\n[request {step['n']}] {len(request.messages)} messages, tools: {names}")

    def on_after(ctx: EventContext) -> None:
        payload: ToolCallAfter = ctx.payload
        args = json.dumps(payload.call.arguments, ensure_ascii=False)
        out(f"  tool call  {payload.call.id}: {payload.call.name}({args})")
        result = payload.response.content_text()
        out(f"  result     {payload.call.id}: {result}")

    agent.events.on(AgentEvents.LLM_REQUEST_BEFORE, on_request)
    agent.events.on(AgentEvents.TOOL_CALL_AFTER, on_after)


async def run_demo(
    model: str | None = None, *, base_url: str | None = None, out: Callable[[str], None] = print
) -> str:
    """Run the demo and return the final answer. Without ``model`` the model is scripted."""
    if model is None:
        out("good-agent demo: the model is SCRIPTED (offline, no API key needed).")
        out("Run `good-agent demo --model gpt-4o-mini` to use a real model.")
    else:
        out(f"good-agent demo: model {model}" + (f" at {base_url}" if base_url else ""))
    agent = build_agent(model if model is not None else scripted_model(), base_url=base_url)
    attach_printer(agent, out)
    out(f"\n[user] {PROMPT}")
    async with agent:
        answer = await agent.call(PROMPT)
    out(f"\n[answer] {answer.content}")
    return answer.content or ""
