"""``mcp-serve``: good-agent tools served over MCP, checked with the ``mcp`` SDK's client."""

from __future__ import annotations

import subprocess
import sys

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from good_agent import Agent, ToolResponse, tool
from good_agent.extensions.mcp import as_agent, build_server, load_target, to_call_result

pytestmark = pytest.mark.anyio


def serve_command(target: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "good_agent.cli", "mcp-serve", target],
    )


async def test_mcp_serve_shows_adapted_signatures_and_runs_the_pipeline() -> None:
    params = serve_command("tests.extensions.mcp_serve_target:agent")
    with anyio.fail_after(60):
        async with Client(params) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            assert sorted(listed) == ["shout", "weather"]
            weather = listed["weather"]
            assert weather.description == "Current weather for a city."
            assert list(weather.input_schema["properties"]) == ["city"]
            assert weather.input_schema["required"] == ["city"]

            result = await client.call_tool("weather", {"city": "Oslo"})
            assert not result.is_error
            assert result.structured_content == {"city": "Oslo", "sky": "clear"}
            [text] = result.content
            assert isinstance(text, types.TextContent)
            assert text.text == '{"city": "Oslo", "sky": "clear"}'

            bad = await client.call_tool("weather", {"city": "Oslo", "api_key": "x"})
            assert bad.is_error

            missing = await client.call_tool("nope", {})
            assert missing.is_error


async def test_mcp_serve_a_list_of_tools_in_process() -> None:
    agent = load_target("tests.extensions.mcp_serve_target:tools")
    async with agent, Client(build_server(agent)) as client:
        assert [t.name for t in (await client.list_tools()).tools] == ["shout"]
        result = await client.call_tool("shout", {"text": "hi"})
        assert [c.text for c in result.content if isinstance(c, types.TextContent)] == ["HI"]
        invalid = await client.call_tool("shout", {})
        assert invalid.is_error


def test_mcp_serve_bad_target_is_reported() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "good_agent.extensions.mcp", "tests.extensions.nothing_here:x"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert "cannot load 'tests.extensions.nothing_here:x'" in result.stderr


def test_mcp_as_agent_and_result_mapping() -> None:
    @tool
    def ping() -> str:
        """Answer pong."""
        return "pong"

    assert as_agent([ping]).tools.names() == ["ping"]
    assert as_agent(ping).tools.names() == ["ping"]
    with pytest.raises(ValueError, match="not an Agent or a list of tools"):
        as_agent(42)
    with pytest.raises(ValueError, match="expected 'module:attr'"):
        load_target("no_colon")
    agent = Agent()
    assert as_agent(agent) is agent
    failed = to_call_result(ToolResponse(tool_name="t", tool_call_id="1", success=False, error="x"))
    assert failed.is_error
    assert [c.text for c in failed.content if isinstance(c, types.TextContent)] == ["Error: x"]
