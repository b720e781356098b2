"""Deps never leave the process: not in requests, history, logs, cache keys or spans.

A canary secret sits inside the deps; a per-user credential taken from the deps is
injected into a tool by an adapter. The run goes over loopback HTTP to an
OpenAI-shaped upstream, with a cache, a tool logger and telemetry installed, and
every channel is scanned for the canary.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic import SecretStr

from good_agent import Agent, AuthInjector, CallContext, RunContext, ToolAdapter, tool
from good_agent.core.components import AgentComponent
from good_agent.extensions import MemoryStore, Telemetry, ToolCache, ToolLogger
from good_agent.messages import dump_messages

pytestmark = pytest.mark.anyio

CANARY = "canary-7f3a9c-do-not-leak"
TOKEN = "tok-9d81e2-user-credential"


@dataclass
class Deps:
    user: str
    secret: str
    token: str


def completion(message: dict[str, Any], finish: str) -> tuple[int, dict[str, Any]]:
    return 200, {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "gpt-4o-mini",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13},
    }


def calls(*pairs: tuple[str, dict[str, Any]]) -> tuple[int, dict[str, Any]]:
    tool_calls = [
        {
            "id": f"call_{n}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)},
        }
        for n, (name, arguments) in enumerate(pairs)
    ]
    message = {"role": "assistant", "content": None, "tool_calls": tool_calls}
    return completion(message, "tool_calls")


class _TokenFromDeps(ToolAdapter):
    def should_adapt(self, tool: Any, agent: Any) -> bool:
        return "token" in tool.parameters.get("properties", {})

    def adapt_signature(self, tool: Any, signature: dict[str, Any], agent: Any) -> Any:
        function = dict(signature["function"])
        parameters = dict(function["parameters"])
        parameters["properties"] = {
            k: v for k, v in parameters["properties"].items() if k != "token"
        }
        parameters["required"] = [r for r in parameters.get("required", []) if r != "token"]
        return {**signature, "function": {**function, "parameters": parameters}}

    def adapt_parameters(
        self, tool_name: str, parameters: dict[str, Any], agent: Any, ctx: CallContext | None = None
    ) -> dict[str, Any]:
        assert ctx is not None
        return {**parameters, "token": SecretStr(ctx.run.deps.token)}


class TokenFromDeps(AgentComponent):
    """The per-user credential, from the run's deps."""

    def __init__(self) -> None:
        super().__init__()
        self.register_tool_adapter(_TokenFromDeps(self))


@tool
def lookup(ctx: RunContext[Deps], token: SecretStr, city: str) -> str:
    """Weather for a city, for the run's user."""
    assert ctx.deps.secret == CANARY and token.get_secret_value() == TOKEN
    return f"sunny in {city} for {ctx.deps.user}"


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    memory.tracer = provider.get_tracer("test")  # type: ignore[attr-defined]
    yield memory
    provider.shutdown()


@pytest.mark.parametrize("injector", ["adapter", "AuthInjector"])
async def test_deps_and_the_credential_from_deps_appear_in_no_channel(
    fake_upstream: Callable[[list[Any]], Any],
    exporter: InMemorySpanExporter,
    caplog: pytest.LogCaptureFixture,
    injector: str,
) -> None:
    upstream = fake_upstream(
        [
            calls(("lookup", {"city": "Oslo"})),
            calls(("lookup", {"city": "Oslo"})),  # answered from the cache
            completion({"role": "assistant", "content": "Sunny."}, "stop"),
        ]
    )
    store = MemoryStore()
    agent = Agent(
        model="openai:gpt-4o-mini",
        base_url=f"{upstream.url}/v1",
        api_key="sk-test",
        tools=[lookup],
        extensions=[
            TokenFromDeps()
            if injector == "adapter"
            else AuthInjector().inject("token", lambda ctx: ctx.deps.token, tools=["lookup"]),
            # lookup reads the RunContext: its entries are the run's user's
            ToolCache(store, tools=["lookup"], scope=lambda ctx, tool, params: ctx.deps.user),
            ToolLogger(level=logging.DEBUG),
            Telemetry(exporter.tracer, agent_name="bot"),  # type: ignore[attr-defined]
        ],
        deps_type=Deps,
    )
    deps = Deps("ada", CANARY, TOKEN)
    caplog.set_level(logging.DEBUG)
    result = await agent.run("Weather in Oslo?", deps=deps)
    assert result.output == "Sunny."
    tool_results = [m.content for m in agent.messages if m.role == "tool"]
    assert tool_results == ["sunny in Oslo for ada", "sunny in Oslo for ada"]

    channels = {
        "requests": json.dumps(upstream.bodies),
        "history": dump_messages(agent.messages).decode(),
        "logs": caplog.text + "".join(repr(r.__dict__) for r in caplog.records),
        "cache": json.dumps(await store.items()),
        "spans": "".join(
            repr(dict(span.attributes or {})) + repr([e.attributes for e in span.events])
            for span in exporter.get_finished_spans()
        ),
        "result": repr(result),
    }
    assert len(await store.items()) == 1 and exporter.get_finished_spans()
    assert "lookup" in channels["logs"] and "Oslo" in channels["requests"]
    for name, text in channels.items():
        assert CANARY not in text, f"the deps' secret leaked into {name}"
        assert TOKEN not in text, f"the credential from deps leaked into {name}"
