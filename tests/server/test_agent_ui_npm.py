"""A served agent against the real clients from npm: the Vercel AI SDK ``ai`` 5, 6 and 7
(its headless chat, ``uiMessageChunkSchema`` and ``readUIMessageStream``) and
``@ag-ui/client``'s HttpAgent, run by tests/js/clients.mjs on loopback.

Skipped with a printed reason when node or the installed modules are missing (``npm ci``
in tests/js); failed instead when ``CI`` is set.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
from ui_harness import served

from good_agent import Agent, tool
from good_agent.models.base import ModelRequest
from good_agent.server.ui import agent_app
from good_agent.testing import ScriptedModel
from good_agent.types.content import BinaryContent
from good_agent.types.errors import ModelConnectionError
from good_agent.types.messages import UserMessage

JS = Path(__file__).resolve().parents[1] / "js"
VERCEL = ["ai5", "ai6", "ai7"]
APPROVING = ["ai6", "ai7"]  # ai 5 has no approval chunks: see the data-part tests


@pytest.fixture(scope="module")
def node() -> str:
    """The node binary, with tests/js's modules installed."""
    binary = shutil.which("node")
    missing = None
    if binary is None:
        missing = "node is not on PATH (apt-get install -y nodejs npm)"
    elif not (JS / "node_modules" / "ai6").is_dir():
        missing = f"the npm clients are not installed (cd {JS} && npm ci)"
    if missing:
        if os.environ.get("CI"):
            pytest.fail(missing)
        pytest.skip(missing)
    assert binary is not None
    return binary


def run_client(node: str, url: str, client: str, scenario: str) -> Any:
    done = subprocess.run(
        [node, str(JS / "clients.mjs"), url, client, scenario],
        capture_output=True,
        text=True,
        timeout=90,
        cwd=JS,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@tool(requires_approval=True)
def delete_file(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


@tool
def get_weather(city: str) -> str:
    """Weather for a city."""
    return f"sunny in {city}"


def _after_tool(request: ModelRequest) -> Any:
    """A reply for any conversation: call the tool first, then say what it answered."""
    last = request.messages[-1]
    if last.role == "tool":
        return ScriptedModel.streamed(f"Done: {last.content}")
    return ScriptedModel.tool_call("delete_file", {"path": "/tmp/x"})


def cleaning_agent() -> Agent[Any, Any]:
    return Agent(model=ScriptedModel([_after_tool], repeat=True), tools=[delete_file])


def texts(message: dict[str, Any]) -> str:
    return "".join(p["text"] for p in message["parts"] if p["type"] == "text")


def assistants(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in result["messages"] if m["role"] == "assistant"]


@pytest.mark.parametrize("client", APPROVING)
def test_an_approved_call_continues_the_same_assistant_message(node: str, client: str) -> None:
    with served(agent_app(cleaning_agent())) as server:
        result = run_client(node, server.url, client, "approve")
    assert result["status"] == "ready", result["error"]
    assert result["asked"] is True
    [answer] = assistants(result)  # one message: no duplicate left in approval-responded
    [part] = [p for p in answer["parts"] if p["type"] == "tool-delete_file"]
    assert part["state"] == "output-available" and part["output"] == "deleted /tmp/x"
    assert texts(answer) == "Done: deleted /tmp/x"


@pytest.mark.parametrize("client", APPROVING)
def test_a_denied_call_is_output_denied(node: str, client: str) -> None:
    with served(agent_app(cleaning_agent())) as server:
        result = run_client(node, server.url, client, "deny")
    assert result["status"] == "ready", result["error"]
    [answer] = assistants(result)
    [part] = [p for p in answer["parts"] if p["type"] == "tool-delete_file"]
    assert part["state"] == "output-denied"
    assert texts(answer).endswith("The user denied this tool call: not now")


def test_ai_5_rejects_the_approval_chunk_and_accepts_the_data_part(node: str) -> None:
    with served(agent_app(cleaning_agent())) as server:
        raw = run_client(node, server.url, "ai5", "raw")
    assert "tool-approval-request" in raw["rejected"]  # why the app setting exists
    with served(agent_app(cleaning_agent(), vercel_approvals=False)) as server:
        raw = run_client(node, server.url, "ai5", "raw")
        assert raw["rejected"] == [] and raw["failure"] is None
        result = run_client(node, server.url, "ai5", "approve-data")
    assert result["status"] == "ready", result["error"]
    assert result["asked"] is True
    [answer] = assistants(result)
    [part] = [p for p in answer["parts"] if p["type"] == "tool-delete_file"]
    assert part["state"] == "output-available" and part["output"] == "deleted /tmp/x"
    assert texts(answer) == "Done: deleted /tmp/x"


@pytest.mark.parametrize("client", VERCEL)
def test_every_chunk_passes_the_sdks_schema(node: str, client: str) -> None:
    approvals = client != "ai5"
    with served(agent_app(cleaning_agent(), vercel_approvals=approvals)) as server:
        raw = run_client(node, server.url, client, "raw")
    assert raw["status"] == 200
    assert raw["rejected"] == [] and raw["failure"] is None
    assert raw["types"][0] == "start" and raw["types"][-1] == "finish"
    assert raw["message"]["metadata"]["usage"]["totalTokens"] >= 0


@pytest.mark.parametrize("client", VERCEL)
def test_regenerate_replaces_the_last_answer_in_the_stored_thread(node: str, client: str) -> None:
    model = ScriptedModel(["first answer", "second answer"])
    app = agent_app(Agent(model=model))
    with served(app) as server:
        result = run_client(node, server.url, client, "regenerate")
        thread = httpx.get(f"{server.url}/threads/chat-regenerate-{client}", timeout=30).json()
    assert result["status"] == "ready", result["error"]
    assert result["first"] == ["hi", "first answer"]
    assert [texts(m) for m in result["messages"]] == ["hi", "second answer"]
    stored = [(m["role"], m.get("content")) for m in thread["messages"]]
    assert stored == [("user", "hi"), ("assistant", "second answer")]
    # the second request saw the prompt once, without the first answer
    assert [m.role for m in model.requests[1].messages] == ["user"]


@pytest.mark.parametrize("client", VERCEL)
def test_a_file_part_reaches_the_model_as_media(node: str, client: str) -> None:
    model = ScriptedModel(["a tiny image"])
    with served(agent_app(Agent(model=model))) as server:
        result = run_client(node, server.url, client, "file")
    assert result["status"] == "ready", result["error"]
    prompt = model.requests[0].messages[-1]
    assert isinstance(prompt, UserMessage) and isinstance(prompt.content, list)
    assert "What is this?" in prompt.content  # the SDK sends the files first
    [image] = [item for item in prompt.content if isinstance(item, BinaryContent)]
    assert image.media_type == "image/png"
    assert image.data == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("client", VERCEL)
def test_usage_and_model_name_arrive_as_message_metadata(node: str, client: str) -> None:
    model = ScriptedModel(["hello"], name="scripted-model")
    with served(agent_app(Agent(model=model))) as server:
        result = run_client(node, server.url, client, "metadata")
    assert result["status"] == "ready", result["error"]
    [answer] = assistants(result)
    assert answer["metadata"]["model"] == "scripted-model"
    assert set(answer["metadata"]["usage"]) == {"inputTokens", "outputTokens", "totalTokens"}


def where_am_i(request: ModelRequest) -> Any:
    last = request.messages[-1]
    if last.role == "tool":
        return ScriptedModel.streamed(f"You are in {json.loads(last.content)['location']}.")
    return ScriptedModel.tool_call("get_location", {"precise": True})


def get_location(precise: bool) -> dict[str, Any]:
    """The user's location, from the browser."""
    raise AssertionError("a client tool never runs on the server")


@pytest.mark.parametrize("client", VERCEL)
def test_a_client_tool_runs_in_the_browser_and_its_output_continues_the_run(
    node: str, client: str
) -> None:
    model = ScriptedModel([where_am_i], repeat=True)
    agent = Agent(model=model, tools=[get_weather])
    with served(agent_app(agent, client_tools=[get_location])) as server:
        result = run_client(node, server.url, client, "client-tool")
    assert result["status"] == "ready", result["error"]
    [answer] = assistants(result)
    [part] = [p for p in answer["parts"] if p["type"] == "tool-get_location"]
    assert part["state"] == "output-available" and part["input"] == {"precise": True}
    assert texts(answer) == "You are in Oslo."
    assert "get_location" in model.requests[0].tool_names


def test_ag_ui_a_retry_after_a_failed_run_stores_the_prompt_once(node: str) -> None:
    def glitch(request: ModelRequest) -> Any:
        raise ModelConnectionError("transient glitch", provider="scripted")

    model = ScriptedModel([glitch, "hello to you"])
    with served(agent_app(Agent(model=model, instructions="You are terse."))) as server:
        result = run_client(node, server.url, "ag-ui", "retry")
        thread = httpx.get(f"{server.url}/threads/thread-retry", timeout=30).json()
    assert [e["type"] for e in result["events"]].count("RUN_ERROR") == 1
    assert result["events"][-1]["type"] == "RUN_FINISHED"
    users = [m["content"] for m in thread["messages"] if m["role"] == "user"]
    assert users == ["transient glitch\n\nhello again"]
    assert [m["role"] for m in result["messages"]] == ["user", "assistant"]


def test_ag_ui_snapshot_keeps_the_client_ids_and_tool_calls_name_their_message(node: str) -> None:
    model = ScriptedModel(
        [ScriptedModel.tool_call("get_weather", {"city": "Oslo"}, id="w1"), "Sunny."]
    )
    agent = Agent(model=model, tools=[get_weather], instructions="You are terse.")
    with served(agent_app(agent)) as server:
        result = run_client(node, server.url, "ag-ui", "tools")
    assert result["runs"][0]["ok"] is True
    [snapshot] = [e for e in result["events"] if e["type"] == "MESSAGES_SNAPSHOT"]
    roles = [m["role"] for m in snapshot["messages"]]
    assert roles == ["user", "assistant", "tool", "assistant"]  # no system prompt
    assert snapshot["messages"][0]["id"] == "u-weather"
    [start] = [e for e in result["events"] if e["type"] == "TOOL_CALL_START"]
    assert start["parentMessageId"] == snapshot["messages"][1]["id"]
    text_ids = [e["messageId"] for e in result["events"] if e["type"] == "TEXT_MESSAGE_START"]
    assert text_ids == [snapshot["messages"][3]["id"]]
    assert result["messages"][0]["id"] == "u-weather"


def test_ag_ui_an_input_with_nothing_to_run_is_refused(node: str) -> None:
    with served(agent_app(Agent(model=ScriptedModel(["never"])))) as server:
        result = run_client(node, server.url, "ag-ui", "empty")
    assert result["runs"][0]["ok"] is False
    assert "400" in result["runs"][0]["error"]
