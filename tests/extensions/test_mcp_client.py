"""MCPTools against a real MCP server subprocess (tests/extensions/mcp_server_fixture.py)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

from good_agent import Agent, ToolMessage, tool
from good_agent.extensions.mcp import (
    ImagePart,
    MCPStartError,
    MCPToolResult,
    MCPTools,
    ResourcePart,
    TextPart,
)
from good_agent.testing import ScriptedModel

FIXTURE = Path(__file__).with_name("mcp_server_fixture.py")
SERVER = [sys.executable, str(FIXTURE)]

pytestmark = pytest.mark.anyio


def fixture_server(**options: object) -> MCPTools:
    return MCPTools(SERVER, **options)  # type: ignore[arg-type]


def tool_messages(agent: Agent) -> list[ToolMessage]:
    return [m for m in agent.messages if isinstance(m, ToolMessage)]


@tool
def local_upper(text: str) -> str:
    """Upper-case ``text``."""
    return text.upper()


async def test_mcp_lists_tools_with_prefixes() -> None:
    named = fixture_server(prefix=True, include=["add", "fetch"])
    async with Agent(extensions=[named]) as agent:
        assert agent.tools.names() == ["fixture_add", "fixture_fetch"]
        assert named.server_name == "fixture"
        signatures = {s["function"]["name"]: s["function"] for s in await agent.tool_signatures()}
        add = signatures["fixture_add"]
        assert add["description"] == "Add two integers."
        assert add["parameters"]["required"] == ["a", "b"]
        assert add["parameters"]["properties"]["a"]["type"] == "integer"
        assert (await agent.invoke("fixture_add", a=2, b=40)).response == {"result": 42}
    assert agent.tools.names() == []
    assert not named.connected


async def test_mcp_call_through_agent_loop() -> None:
    model = ScriptedModel([ScriptedModel.tool_call("add", {"a": 2, "b": 3}, id="c1"), "2 + 3 = 5"])
    async with Agent(model=model, extensions=[fixture_server()]) as agent:
        answer = await agent.call("What is 2 + 3?")
        await check_picture(agent)
    assert answer.content == "2 + 3 = 5"
    [result] = tool_messages(agent)[:1]
    assert (result.tool_call_id, result.is_error) == ("c1", False)
    assert result.content == '{"result": 5}'
    assert "add" in model.requests[0].tool_names
    assert model.requests[1].messages[-1].content == '{"result": 5}'


async def test_mcp_is_error_becomes_a_tool_error(tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    model = ScriptedModel(
        [
            ScriptedModel.tool_call("add", {"a": "two", "b": 3}),
            ScriptedModel.tool_call("fail", {"reason": "no"}),
            "it refused",
        ]
    )
    server = fixture_server(env={"MCP_FIXTURE_LOG": str(log)})
    async with Agent(model=model, extensions=[server]) as agent:
        answer = await agent.call("try it")
    assert answer.content == "it refused"
    invalid, result = tool_messages(agent)
    assert invalid.is_error
    assert "invalid arguments for tool 'add'" in invalid.content
    assert log.read_text().splitlines() == ["fail no"]
    assert result.is_error
    assert "MCP server 'fixture'" in result.content
    assert "tool 'fail' failed" in result.content
    assert "refused: no" in result.content


async def test_mcp_crash_mid_call_is_a_tool_error_and_the_agent_keeps_going() -> None:
    model = ScriptedModel(
        [
            ScriptedModel.tool_call("crash"),
            ScriptedModel.tool_calls(
                ("local_upper", {"text": "still here"}), ("add", {"a": 1, "b": 1})
            ),
            "done",
        ]
    )
    mcp = fixture_server()
    agent = Agent(model=model, tools=[local_upper], extensions=[mcp])
    started = time.monotonic()
    async with agent:
        answer = await agent.call("crash it")
        assert not mcp.connected
    assert time.monotonic() - started < 20
    assert answer.content == "done"
    crash, upper, add = tool_messages(agent)
    assert crash.is_error
    assert "MCP server 'fixture' closed the connection during tool 'crash'" in crash.content
    assert (upper.is_error, upper.content) == (False, "STILL HERE")
    assert add.is_error
    assert "MCP server 'fixture' is not connected" in add.content


async def test_mcp_timeout_is_a_tool_error() -> None:
    async with Agent(extensions=[fixture_server(timeout=0.5)]) as agent:
        started = time.monotonic()
        response = await agent.invoke("slow", seconds=10)
        assert time.monotonic() - started < 5
        assert not response.success
        assert response.error == "MCP server 'fixture': tool 'slow' timed out after 0.5s"
        again = await agent.invoke("add", a=1, b=2)
    assert again.response == {"result": 3}


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
async def test_mcp_list_changed_updates_the_agent_tools(protocol: str) -> None:
    model = ScriptedModel(
        [
            ScriptedModel.tool_call("grow"),
            ScriptedModel.tool_call("echo", {"text": "hello"}),
            "echoed",
        ]
    )
    mcp = fixture_server(protocol=protocol)
    async with Agent(model=model, extensions=[mcp]) as agent:
        expected = "2026-07-28" if protocol == "auto" else "2025-11-25"
        assert mcp.protocol_version == expected
        assert "echo" not in agent.tools
        answer = await agent.call("grow and echo")
        assert "echo" in agent.tools
        assert [t.name for t in mcp.tools][-1] == "echo"
    assert answer.content == "echoed"
    assert "echo" not in model.requests[0].tool_names
    assert "echo" in model.requests[1].tool_names
    _grow, echo = tool_messages(agent)
    assert (echo.is_error, echo.content) == (False, '{"result": "hello"}')


async def check_picture(agent: Agent) -> None:
    """Images and resources stay typed; binary data is not shown to the model."""
    response = await agent.invoke("picture")
    result = response.response
    assert isinstance(result, MCPToolResult)
    text, image, resource = result.parts
    assert text == TextPart(text="a tiny picture")
    assert isinstance(image, ImagePart)
    assert image.mime_type == "image/png"
    assert image.to_bytes().startswith(b"\x89PNG")
    assert isinstance(resource, ResourcePart)
    assert (resource.uri, resource.text) == ("file:///notes.txt", "some notes")
    shown = response.content_text()
    assert image.data not in shown
    assert '"type":"image"' in shown
    assert '"size":' in shown
    assert "some notes" in shown


async def test_mcp_start_failure_is_typed_and_names_the_server() -> None:
    broken = MCPTools([sys.executable, "-c", "import sys; sys.exit(2)"], name="broken")
    with pytest.raises(MCPStartError) as caught:
        async with Agent(tools=[local_upper], extensions=[broken]):
            pass
    assert caught.value.server == "broken"
    assert str(caught.value).startswith("MCP server 'broken': failed to start")

    missing = MCPTools("/nonexistent/mcp-server --flag")
    with pytest.raises(MCPStartError, match="MCP server 'mcp-server': failed to start"):
        async with Agent(extensions=[missing]):
            pass


async def test_mcp_start_timeout_and_optional_servers() -> None:
    hanging = MCPTools(
        [sys.executable, "-c", "import time; time.sleep(60)"],
        name="sleepy",
        start_timeout=1.0,
        required=False,
    )
    started = time.monotonic()
    async with Agent(tools=[local_upper], extensions=[hanging]) as agent:
        assert time.monotonic() - started < 15
        assert agent.tools.names() == ["local_upper"]
        assert isinstance(hanging.error, MCPStartError)
        assert str(hanging.error) == "MCP server 'sleepy': did not start within 1s"
        assert (await agent.invoke("local_upper", text="ok")).response == "OK"


async def test_mcp_install_and_close_in_different_tasks() -> None:
    agent = Agent(extensions=[fixture_server()])
    results: list[object] = []

    async def use() -> None:
        with anyio.fail_after(30):
            results.append((await agent.invoke("add", a=20, b=22)).response)

    async with anyio.create_task_group() as group:
        group.start_soon(use)
    with anyio.fail_after(30):
        await agent.close()
    assert results == [{"result": 42}]


async def test_mcp_cache_and_citation_adapters_over_an_mcp_tool(tmp_path: Path) -> None:
    from good_agent.extensions import ToolCache
    from good_agent.extensions.citations import CitationManager

    log = tmp_path / "calls.log"
    server = fixture_server(include=["fetch"], env={"MCP_FIXTURE_LOG": str(log)})
    model = ScriptedModel(
        [
            ScriptedModel.tool_call("fetch", {"citation_idx": 1}),
            ScriptedModel.tool_call("fetch", {"citation_idx": 1}),
            "read [1] twice",
        ]
    )
    cache = ToolCache(tools=["fetch"])
    extensions = [server, CitationManager(), cache]
    async with Agent(model=model, extensions=extensions) as agent:
        answer = await agent.call("Summarize https://example.com/a")
    assert answer.content == "read [1] twice"
    fetch = model.requests[0].tools[0]["function"]
    assert "citation_idx" in fetch["parameters"]["properties"]
    assert "url" not in fetch["parameters"]["properties"]
    first, second = tool_messages(agent)
    assert first.content == second.content
    assert "contents of https://example.com/a" in first.content
    assert log.read_text().splitlines() == ["fetch https://example.com/a"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_mcp_streamable_http() -> None:
    port = _free_port()
    process = await anyio.open_process(
        [*SERVER, "--http", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        with anyio.fail_after(20):
            while True:
                try:
                    stream = await anyio.connect_tcp("127.0.0.1", port)
                except OSError:
                    await anyio.sleep(0.1)
                    continue
                await stream.aclose()
                break
        mcp = MCPTools(url=f"http://127.0.0.1:{port}/mcp", prefix=True, include=["add"])
        async with Agent(extensions=[mcp]) as agent:
            assert agent.tools.names() == ["fixture_add"]
            assert (await agent.invoke("fixture_add", a=4, b=5)).response == {"result": 9}
    finally:
        process.terminate()
        with anyio.fail_after(10):
            await process.wait()
        await process.aclose()


async def test_agent_mcp_servers_argument_takes_command_lines() -> None:
    import shlex

    command = " ".join(shlex.quote(part) for part in SERVER)
    async with Agent(mcp_servers=[command]) as agent:
        assert (await agent.invoke("add", a=20, b=22)).response == {"result": 42}
    assert isinstance(agent.components[0], MCPTools)
    assert agent.tools.names() == []
