"""Every pair of the built-in extensions, installed in either order, on one tool."""

from __future__ import annotations

import itertools
import logging
from typing import Any

import pytest
from pydantic import SecretStr

from good_agent import Agent, AgentComponent, ToolMessage, tool
from good_agent.extensions import (
    AuthInjector,
    CitationManager,
    Rate,
    RateLimiter,
    ToolCache,
    ToolLogger,
)
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio

URL_A = "https://example.com/articles/first-article"
URL_B = "https://example.org/reports/2024/second-report"
SECRET = "pair-secret-0042"
NAMES = ["citation", "auth", "cache", "rate_limit", "logging"]
PAIRS = [
    pytest.param(pair, id="+".join(pair))
    for combo in itertools.combinations(NAMES, 2)
    for pair in (combo, combo[::-1])
]


def build(name: str) -> AgentComponent:
    if name == "citation":
        return CitationManager()
    if name == "auth":
        return AuthInjector({"api_key": SECRET}, tools=["fetch"])
    if name == "cache":
        return ToolCache(tools=["fetch"])
    if name == "rate_limit":
        return RateLimiter({"fetch": Rate(1, per=100.0)}, mode="error")
    return ToolLogger(tracing=False)


@pytest.mark.parametrize("pair", PAIRS)
async def test_pair(pair: tuple[str, str], caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="good_agent.tool_calls")
    runs: list[tuple[str, str | None]] = []

    @tool
    def fetch(url: str, api_key: SecretStr | None = None) -> str:
        """Fetch a page."""
        runs.append((url, api_key.get_secret_value() if api_key else None))
        return f"page at {url}"

    on = set(pair)
    arguments: dict[str, Any] = {"citation_idx": 2} if "citation" in on else {"url": URL_B}
    model = ScriptedModel(
        [
            ScriptedModel.tool_call("fetch", arguments, id="first"),
            ScriptedModel.tool_call("fetch", arguments, id="second"),
            "done",
        ]
    )
    components = [build(name) for name in pair]
    async with Agent(model=model, tools=[fetch], extensions=components) as agent:
        await agent.call(f"Compare {URL_A} with {URL_B}.")

    props = model.requests[0].tools[0]["function"]["parameters"]["properties"]
    assert ("citation_idx" in props) == ("citation" in on)
    assert ("url" in props) == ("citation" not in on)
    assert ("api_key" in props) == ("auth" not in on)

    limited = "rate_limit" in on and "cache" not in on
    expected_runs = 1 if ("cache" in on or "rate_limit" in on) else 2
    key = SECRET if "auth" in on else None
    assert runs == [(URL_B, key)] * expected_runs

    results = [m for m in agent.messages if isinstance(m, ToolMessage)]
    assert [r.tool_call_id for r in results] == ["first", "second"]
    assert not results[0].is_error
    assert results[1].is_error == limited
    if not limited:
        assert results[1].content == results[0].content
    else:
        assert "rate limit" in results[1].content

    if "logging" in on:
        logger = next(c for c in components if isinstance(c, ToolLogger))
        metrics = logger.snapshot()["fetch"]
        assert metrics.calls == 2 and metrics.errors == (1 if limited else 0)
        records = [r for r in caplog.records if r.name == "good_agent.tool_calls"]
        assert [r.tool_call_id for r in records] == ["first", "second"]  # type: ignore[attr-defined]
        logged = [r.arguments for r in records]  # type: ignore[attr-defined]
        assert all(a["url"] == URL_B for a in logged)
        assert all(SECRET not in repr(a) for a in logged)
    if "cache" in on:
        cache = next(c for c in components if isinstance(c, ToolCache))
        assert (cache.stats.misses, cache.stats.hits) == (1, 1)


async def test_all_five_stacked_in_reverse_priority_order() -> None:
    runs: list[str] = []

    @tool
    def fetch(url: str, api_key: SecretStr | None = None) -> str:
        """Fetch a page."""
        runs.append(url)
        return f"page at {url}"

    model = ScriptedModel(
        [
            ScriptedModel.tool_calls(
                ("fetch", {"citation_idx": 1}), ("fetch", {"citation_idx": 1})
            ),
            "done",
        ]
    )
    components = [build(name) for name in reversed(NAMES)]
    async with Agent(model=model, tools=[fetch], extensions=components) as agent:
        await agent.call(f"Read {URL_A}")
        order = [type(a).__name__ for a in agent.adapter_chain.adapters]
    assert order == [
        "LoggingAdapter",
        "AuthAdapter",
        "CacheAdapter",
        "RateLimitAdapter",
        "CitationAdapter",
    ]
    assert runs == [URL_A]
    results = [m for m in agent.messages if isinstance(m, ToolMessage)]
    assert [r.is_error for r in results] == [False, False]


async def test_auth_is_exclusive_on_its_parameters() -> None:
    from good_agent import AdapterConflictError, ToolAdapter

    class Rename(ToolAdapter):
        def adapt_signature(self, tool: Any, signature: Any, agent: Any) -> Any:
            params = signature["function"]["parameters"]
            props = dict(params["properties"])
            props["api_key"] = {"type": "string", "description": "changed"}
            return {
                **signature,
                "function": {
                    **signature["function"],
                    "parameters": {**params, "properties": props},
                },
            }

    class Intruder(AgentComponent):
        def __init__(self) -> None:
            super().__init__()
            self.register_tool_adapter(Rename(self, priority=100))

    @tool
    def fetch(url: str, api_key: SecretStr | None = None) -> str:
        """Fetch a page."""
        return url

    async with Agent(
        tools=[fetch], extensions=[AuthInjector({"api_key": SECRET}), Intruder()]
    ) as a:
        for _ in range(2):  # raised every time, never cached away
            with pytest.raises(AdapterConflictError, match="api_key"):
                await a.tool_signatures()
