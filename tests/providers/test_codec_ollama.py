from __future__ import annotations

import pytest
from providers_fixtures import HISTORY, TOOLS, Recorder

from good_agent.models import ModelRequest
from good_agent.models.vendors import OllamaModel
from good_agent.providers.ollama import codec
from good_agent.providers.types import ChatRequest

REPLY = {
    "model": "qwen2.5",
    "created_at": "2025-01-01T00:00:00Z",
    "message": {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"function": {"name": "get_weather", "arguments": {"city": "Oslo"}}},
            {"function": {"name": "math.factorial", "arguments": {"n": 4}}},
        ],
    },
    "done": True,
    "done_reason": "stop",
    "prompt_eval_count": 12,
    "eval_count": 8,
}


def test_ollama_encodes_arguments_as_objects() -> None:
    body = codec.encode_request("qwen2.5", ChatRequest(messages=HISTORY, tools=TOOLS))
    assistant = body["messages"][2]
    assert assistant["tool_calls"][1] == {
        "function": {"name": "math.factorial", "arguments": {"n": 5}}
    }
    assert body["messages"][3] == {
        "role": "tool",
        "content": "Error: service down",
        "tool_name": "get_weather",
    }
    assert body["stream"] is False


@pytest.mark.parametrize(
    ("choice", "names"),
    [
        ("auto", ["get_weather", "math.factorial"]),
        ("required", ["get_weather", "math.factorial"]),
        ("none", None),
        ({"type": "function", "function": {"name": "get_weather"}}, ["get_weather"]),
    ],
)
def test_ollama_filters_tools_for_tool_choice(choice: object, names: object) -> None:
    request = ChatRequest(messages=[], tools=TOOLS, tool_choice=choice)  # type: ignore[arg-type]
    body = codec.encode_request("qwen2.5", request)
    sent = [t["function"]["name"] for t in body["tools"]] if "tools" in body else None
    assert sent == names


@pytest.mark.anyio
async def test_ollama_model_over_http(monkeypatch: pytest.MonkeyPatch) -> None:
    from good_agent.types.messages import UserMessage

    monkeypatch.setenv("OLLAMA_HOST", "gpu-box:11434")
    recorder = Recorder(REPLY)
    model = OllamaModel("qwen2.5", client=recorder.client(), settings={"temperature": 0})
    reply = await model.request(ModelRequest(messages=[UserMessage(content="hi")], tools=TOOLS))
    assert str(recorder.requests[-1].url) == "http://gpu-box:11434/api/chat"
    assert recorder.body["options"] == {"temperature": 0}
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [
        ("get_weather", {"city": "Oslo"}),
        ("math.factorial", {"n": 4}),
    ]
    assert reply.finish_reason == "tool_calls"
    assert reply.usage.output_tokens == 8
