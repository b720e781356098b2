"""The agent transport benchmark compares like with like: the same agent run over the
default HTTP transport and over a given ``openai`` SDK client sends the same requests."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from good_agent.models.provider_model import ProviderModel
from good_agent.providers.openai.http_transport import OpenAIHttpTransport
from good_agent.providers.openai.sdk_transport import OpenAIClientTransport

pytestmark = pytest.mark.anyio

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "agent_transport.py"


def load_benchmark() -> ModuleType:
    spec = importlib.util.spec_from_file_location("agent_transport_bench", BENCHMARK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def tool_call_then_answer(answer: str) -> list[Any]:
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
    }
    first = {
        "id": "c1",
        "object": "chat.completion",
        "model": "fake-gpt",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": None, "tool_calls": [call]},
                "finish_reason": "tool_calls",
            }
        ],
    }
    second = {
        "id": "c2",
        "object": "chat.completion",
        "model": "fake-gpt",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": answer},
                "finish_reason": "stop",
            }
        ],
    }
    return [(200, first), (200, second)]


async def test_both_paths_send_the_same_requests_for_one_agent_run(
    fake_upstream: Callable[[list[Any]], Any],
) -> None:
    bench = load_benchmark()
    bodies: dict[str, list[dict[str, Any]]] = {}
    for name, build in (("sdk", bench.sdk_model), ("http", bench.http_model)):
        upstream = fake_upstream(tool_call_then_answer(bench.ANSWER_TEXT))
        model = build(f"{upstream.url}/v1")
        try:
            await bench.one_run(model)
        finally:
            await model.aclose()
        assert upstream.paths == ["/v1/chat/completions"] * 2
        assert {h["authorization"] for h in upstream.headers} == {f"Bearer {bench.KEY}"}
        bodies[name] = upstream.bodies
        kind = OpenAIClientTransport if name == "sdk" else OpenAIHttpTransport
        assert isinstance(model, ProviderModel) and isinstance(model.transport, kind)
    assert bodies["sdk"] == bodies["http"]
    assert [m["role"] for m in bodies["http"][1]["messages"]] == ["user", "assistant", "tool"]
