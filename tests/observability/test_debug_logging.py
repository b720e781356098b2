"""DEBUG records of model requests and tool calls; nothing at INFO; the docs' format works."""

from __future__ import annotations

import logging
import re
import subprocess
import sys
from pathlib import Path

import pytest

from good_agent import Agent, AuthInjector, tool
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio
CANARY = "sk-canary-5f1e2d"


@tool
def weather(city: str, api_key: str) -> str:
    """Weather in a city."""
    return f"sunny in {city}"


@tool
def broken(city: str) -> str:
    """Fails."""
    raise ValueError(f"no weather for {city}")


def agent() -> Agent:
    model = ScriptedModel(
        [
            ScriptedModel.tool_calls(
                ("weather", {"city": "Paris"}, "w1"), ("broken", {"city": CANARY}, "b1")
            ),
            "done",
        ]
    )
    auth = AuthInjector()
    auth.inject("api_key", CANARY, tools=["weather"])
    return Agent("Be brief.", model=model, tools=[weather, broken], extensions=[auth])


async def test_debug_records_of_requests_and_calls(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="good_agent")
    async with agent() as a:
        await a.call("Weather in Paris?")
    requests = [r for r in caplog.records if r.getMessage().startswith("model request:")]
    assert [r.name for r in requests] == ["good_agent.models"] * 2
    first = requests[0]
    assert first.levelno == logging.DEBUG
    assert (first.model, first.message_count, first.tool_count, first.streamed) == (  # type: ignore[attr-defined]
        "scripted",
        2,
        2,
        False,
    )
    assert first.mode == "-"  # type: ignore[attr-defined]
    assert requests[1].message_count == 5  # type: ignore[attr-defined]
    calls = {r.tool_name: r for r in caplog.records if r.getMessage().startswith("tool call:")}  # type: ignore[attr-defined]
    assert set(calls) == {"weather", "broken"}
    assert calls["weather"].outcome == "ok" and calls["broken"].outcome == "error"  # type: ignore[attr-defined]
    assert calls["weather"].duration_ms >= 0 and calls["weather"].tool_call_id == "w1"  # type: ignore[attr-defined]
    assert re.fullmatch(r"tool call: weather ok in \d+\.\d ms", calls["weather"].getMessage())
    for record in caplog.records:
        assert CANARY not in record.getMessage()
        assert CANARY not in repr(vars(record))


async def test_a_streamed_request_is_logged_as_streamed(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="good_agent.models")
    async with Agent(model=ScriptedModel(["hi"])) as a, a.stream("hello") as run:
        async for _ in run:
            pass
    (record,) = [r for r in caplog.records if r.name == "good_agent.models"]
    assert record.streamed is True  # type: ignore[attr-defined]


async def test_nothing_at_info_by_default(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    async with agent() as a:
        await a.call("Weather in Paris?")
    chatty = [r for r in caplog.records if r.name.startswith("good_agent") and r.levelno < 30]
    assert chatty == []


def test_the_logging_page_format_survives_other_loggers_records() -> None:
    page = (Path(__file__).parents[2] / "docs" / "extensions" / "logging.md").read_text()
    snippet = re.search(r"```python\n(.*?)```", page, re.DOTALL)
    assert snippet is not None
    code = snippet.group(1) + (
        "\nlogging.getLogger('httpx2').info('HTTP Request: POST http://x/v1 200 OK')"
        "\nlogging.getLogger('openai._base_client').warning('Retrying request')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    assert "Logging error" not in result.stderr and "KeyError" not in result.stderr
    assert "HTTP Request: POST" in result.stderr
    assert "{'query': 'cats', 'token': '[REDACTED]'}" in result.stderr
