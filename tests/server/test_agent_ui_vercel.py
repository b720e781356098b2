"""An agent served over the Vercel AI SDK's UI message stream: chunks parsed with the
stream's models, approvals answered with the digest the stream sent."""

from __future__ import annotations

from typing import Any

from ui_harness import refusal, served, vercel

from good_agent import Agent, tool
from good_agent.server.ui import agent_app
from good_agent.server.ui.vercel_wire import (
    FinishChunk,
    StartChunk,
    TextChunk,
    ToolApprovalRequestChunk,
    ToolInputAvailableChunk,
    ToolInputDeltaChunk,
    ToolInputStartChunk,
    ToolOutputAvailableChunk,
)
from good_agent.testing import ScriptedModel


@tool
def get_weather(city: str) -> str:
    """Weather for a city."""
    return f"sunny in {city}"


@tool(requires_approval=True)
def delete_file(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


def ask(text: str, chat: str = "c1") -> dict[str, Any]:
    return {
        "id": chat,
        "trigger": "submit-message",
        "messages": [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": text}]}],
    }


def test_a_run_streams_text_and_tool_chunks_in_the_ui_message_stream_protocol() -> None:
    model = ScriptedModel(
        [
            ScriptedModel.streamed(ScriptedModel.call("get_weather", {"city": "Oslo"}, id="w1")),
            ScriptedModel.streamed("It is ", "sunny."),
        ]
    )
    with served(agent_app(Agent(model=model, tools=[get_weather]))) as server:
        chunks = vercel(server, ask("Weather in Oslo?"))
    kinds = [c.type for c in chunks]
    assert isinstance(chunks[0], StartChunk) and isinstance(chunks[-1], FinishChunk)
    assert chunks[-1].finish_reason == "stop"
    assert kinds[1] == "start-step" and kinds[-2] == "finish-step"
    assert kinds.count("start-step") == kinds.count("finish-step") == 2
    start = next(c for c in chunks if isinstance(c, ToolInputStartChunk))
    assert (start.tool_call_id, start.tool_name) == ("w1", "get_weather")
    assert "".join(c.input_text_delta for c in chunks if isinstance(c, ToolInputDeltaChunk))
    available = next(c for c in chunks if isinstance(c, ToolInputAvailableChunk))
    assert available.input == {"city": "Oslo"}
    output = next(c for c in chunks if isinstance(c, ToolOutputAvailableChunk))
    assert (output.tool_call_id, output.output) == ("w1", "sunny in Oslo")
    deltas = [c.delta for c in chunks if isinstance(c, TextChunk) and c.type == "text-delta"]
    assert "".join(deltas) == "It is sunny."
    assert kinds.index("text-start") < kinds.index("text-delta") < kinds.index("text-end")


def test_an_approval_request_carries_the_digest_and_the_answer_resumes_the_exact_call() -> None:
    call = ScriptedModel.tool_call("delete_file", {"path": "/tmp/x"}, id="c1")
    agent = Agent(model=ScriptedModel([call, "Done."]), tools=[delete_file])
    with served(agent_app(agent, store=None)) as server:
        chunks = vercel(server, ask("Clean up", chat="v2"))
        request = next(c for c in chunks if isinstance(c, ToolApprovalRequestChunk))
        assert request.tool_call_id == "c1"
        assert chunks[-1].finish_reason == "tool-calls"
        assert not [c for c in chunks if isinstance(c, ToolOutputAvailableChunk)]

        def answered(arguments: dict[str, Any], approval_id: str) -> dict[str, Any]:
            # what useChat sends after addToolApprovalResponse: the whole chat
            body = ask("Clean up", chat="v2")
            body["messages"].append(
                {
                    "id": "a1",
                    "role": "assistant",
                    "parts": [
                        {"type": "step-start"},
                        {
                            "type": "tool-delete_file",
                            "toolCallId": "c1",
                            "state": "approval-responded",
                            "input": arguments,
                            "approval": {"id": approval_id, "approved": True},
                        },
                    ],
                }
            )
            return body

        status, error = refusal(server, "/vercel", answered({"path": "/etc"}, request.approval_id))
        assert status == 400 and error["error"]["param"] == "messages.1.parts.1.approval.id"
        chunks = vercel(server, answered({"path": "/tmp/x"}, request.approval_id))
    output = next(c for c in chunks if isinstance(c, ToolOutputAvailableChunk))
    assert (output.tool_call_id, output.output) == ("c1", "deleted /tmp/x")
    deltas = [c.delta for c in chunks if isinstance(c, TextChunk) and c.type == "text-delta"]
    assert "".join(deltas) == "Done."


def test_a_failed_run_ends_with_an_error_chunk() -> None:
    with served(agent_app(Agent(model=ScriptedModel([])))) as server:
        chunks = vercel(server, ask("hi"))
    assert chunks[-1].type == "error" and "ran out of replies" in chunks[-1].error_text


def test_with_the_server_keeping_the_chat_the_approval_resumes_the_stored_call() -> None:
    call = ScriptedModel.tool_call("delete_file", {"path": "/tmp/x"}, id="c9")
    agent = Agent(model=ScriptedModel([call, "Done."]), tools=[delete_file])
    with served(agent_app(agent)) as server:
        chunks = vercel(server, ask("Clean up", chat="kept"))
        request = next(c for c in chunks if isinstance(c, ToolApprovalRequestChunk))
        body = ask("Clean up", chat="kept")
        body["messages"].append(
            {
                "id": "a1",
                "role": "assistant",
                "parts": [
                    {
                        "type": "tool-delete_file",
                        "toolCallId": "c9",
                        "state": "approval-responded",
                        # what the client shows is not what runs: the stored call is
                        "input": {"path": "/etc"},
                        "approval": {"id": request.approval_id, "approved": True},
                    }
                ],
            }
        )
        chunks = vercel(server, body)
    output = next(c for c in chunks if isinstance(c, ToolOutputAvailableChunk))
    assert output.output == "deleted /tmp/x"
