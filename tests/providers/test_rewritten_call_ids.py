"""Rewritten history for text-only models: each call carries its id, each result names
its tool and that id, in every text format and prompt style."""

from __future__ import annotations

import json
import string
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from good_agent import Agent, resolve_model, tool
from good_agent.providers.codecs import get_codec
from good_agent.providers.prompting import PromptStyle
from good_agent.providers.strategies.native import CodecStrategy
from good_agent.providers.strategies.prompted import PromptedStrategy, ValidatedStrategy
from good_agent.providers.strategies.structured import StructuredStrategy
from good_agent.providers.text.registry import BUILTIN_FORMATS


def call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def tool_def(name: str) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {"type": "object", "properties": {"x": {"type": "string"}}},
        },
    }


TOOLS = [tool_def("get_weather"), tool_def("get_time")]

# Results as a client sends them: only the id, no name, and not in the calls' order.
HISTORY: list[dict[str, Any]] = [
    {"role": "user", "content": "Weather and time in Paris?"},
    {
        "role": "assistant",
        "content": "Checking.",
        "tool_calls": [
            call("call_w", "get_weather", {"x": "Paris"}),
            call("call_t", "get_time", {"x": "CET"}),
        ],
    },
    {"role": "tool", "tool_call_id": "call_t", "content": "12:00"},
    {"role": "tool", "tool_call_id": "call_w", "content": "21C"},
]


def id_and_name(written: str) -> list[tuple[str, str]]:
    """``(id, tool name)`` of each call object written in tags or as JSON."""
    if "<tool_call>" in written:
        parts = [p.split("</tool_call>")[0] for p in written.split("<tool_call>")[1:]]
        objects: list[Any] = [json.loads(part) for part in parts]
    else:
        value = json.loads(written)
        objects = value if isinstance(value, list) else value.get("tool_calls", [value])
    found = []
    for obj in objects:
        name = obj.get("name") or obj.get("tool_name") or obj.get("action", {}).get("tool")
        found.append((obj["id"], name))
    return found


def prompted(text_format: str) -> PromptedStrategy:
    return ValidatedStrategy("m", get_codec("openai_chat"), text_format=text_format)


STYLES: dict[str, Callable[[], CodecStrategy]] = {
    **{f"format-{name}": (lambda name=name: prompted(name)) for name in BUILTIN_FORMATS},
    "notation-thought": lambda: ValidatedStrategy(
        "m", get_codec("openai_chat"), style=PromptStyle(notation="thought")
    ),
    **{
        f"constrained-{kind}": (
            lambda kind=kind: ValidatedStrategy(
                "m", get_codec("openai_chat"), style=PromptStyle(constrained=kind)
            )
        )
        for kind in ("json_object", "json_schema", "vllm", "vllm_guided")
    },
    "structured": lambda: StructuredStrategy("m", get_codec("openai_chat")),
}


@pytest.mark.parametrize("style", sorted(STYLES))
def test_calls_carry_ids_and_results_name_tool_and_id(style: str) -> None:
    adapter = STYLES[style]()
    sent = adapter.format_request(TOOLS, HISTORY)["messages"]
    assistant = next(m for m in sent if m["role"] == "assistant")
    written = assistant["content"]
    # Each written call holds its own id next to its own name.
    assert id_and_name(written) == [("call_w", "get_weather"), ("call_t", "get_time")]
    results = sent[-1]
    assert results["role"] == "user"
    assert "Tool get_time (call call_t) returned: 12:00" in results["content"]
    assert "Tool get_weather (call call_w) returned: 21C" in results["content"]
    assert "Tool tool" not in results["content"]


@pytest.mark.parametrize("text_format", BUILTIN_FORMATS)
def test_written_calls_parse_back_with_the_adapters_own_parser(text_format: str) -> None:
    adapter = prompted(text_format)
    sent = adapter.format_request(TOOLS, HISTORY)["messages"]
    written = next(m for m in sent if m["role"] == "assistant")["content"]
    reply = {"choices": [{"message": {"role": "assistant", "content": written}}]}
    decoded = adapter.decode(reply, TOOLS)
    assert [(c.name, c.arguments) for c in decoded.tool_calls] == [
        ("get_weather", {"x": "Paris"}),
        ("get_time", {"x": "CET"}),
    ]
    assert decoded.content == "Checking."


def test_thought_calls_with_an_id_still_parse() -> None:
    style = PromptStyle(notation="thought")
    adapter = ValidatedStrategy("m", get_codec("openai_chat"), style=style)
    written = adapter.format_request(TOOLS, HISTORY[:2])["messages"][-1]["content"]
    reply = {"choices": [{"message": {"role": "assistant", "content": written}}]}
    decoded = adapter.decode(reply, TOOLS)
    assert [c.name for c in decoded.tool_calls] == ["get_weather", "get_time"]
    assert {c.id for c in decoded.tool_calls}.isdisjoint({"call_w", "call_t"})


def test_a_result_whose_call_is_unknown_keeps_its_id() -> None:
    history = [
        {"role": "user", "content": "hi"},
        {"role": "tool", "tool_call_id": "c9", "content": "x"},
    ]
    sent = prompted("auto").format_request(TOOLS, history)["messages"]
    assert "Call c9 returned: x" in sent[-1]["content"]


@tool
def get_weather(city: str) -> str:
    """Weather for a city."""
    return f"21C in {city}"


@tool
def get_time(zone: str) -> str:
    """Time in a zone."""
    return f"12:00 {zone}"


def chat_reply(content: str) -> tuple[int, dict[str, Any]]:
    message = {"role": "assistant", "content": content}
    return 200, {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}


@pytest.mark.anyio
async def test_agent_history_sent_to_a_text_model_pairs_results_with_calls(
    fake_upstream: Callable[[list[Any]], Any],
) -> None:
    upstream = fake_upstream(
        [
            chat_reply(
                '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
                '<tool_call>{"name": "get_time", "arguments": {"zone": "CET"}}</tool_call>'
            ),
            chat_reply("21C at noon."),
        ]
    )
    model = resolve_model("my-local-model", base_url=f"{upstream.url}/v1", mode="validated")
    agent = Agent("Be brief.", model=model, tools=[get_weather, get_time])
    assert (await agent.call("Weather and time in Paris?")).content == "21C at noon."
    sent = upstream.bodies[1]["messages"]
    written = sent[-2]["content"]
    blocks = [json.loads(p.split("</tool_call>")[0]) for p in written.split("<tool_call>")[1:]]
    ids = [b["id"] for b in blocks]
    assert [b["name"] for b in blocks] == ["get_weather", "get_time"] and len(set(ids)) == 2
    results = sent[-1]["content"]
    assert f"Tool get_weather (call {ids[0]}) returned: 21C in Paris" in results
    assert f"Tool get_time (call {ids[1]}) returned: 12:00 CET" in results


NAMES = st.text(alphabet=string.ascii_letters + string.digits + "_.-", min_size=1, max_size=24)
IDS = st.text(alphabet=string.ascii_letters + string.digits + "_-", min_size=1, max_size=24)
# Any keys but ``x``, which the tools' schema types as a string.
ARGS = st.dictionaries(
    st.text(string.ascii_letters, min_size=1, max_size=8).filter(lambda key: key != "x"),
    st.one_of(st.integers(), st.text(max_size=20), st.booleans(), st.none()),
    max_size=4,
)


@settings(max_examples=60, deadline=None)
@given(
    calls=st.lists(st.tuples(IDS, NAMES, ARGS), min_size=1, max_size=4, unique_by=lambda c: c[0]),
    text_format=st.sampled_from(BUILTIN_FORMATS),
)
def test_any_calls_round_trip_and_every_result_names_its_call(
    calls: list[tuple[str, str, dict[str, Any]]], text_format: str
) -> None:
    tools = [tool_def(name) for name in dict.fromkeys(name for _, name, _ in calls)]
    history: list[dict[str, Any]] = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [call(call_id, name, args) for call_id, name, args in calls],
        },
        *[
            {"role": "tool", "tool_call_id": call_id, "content": f"r{n}"}
            for n, (call_id, _, _) in reversed(list(enumerate(calls)))
        ],
    ]
    adapter = prompted(text_format)
    sent = adapter.format_request(tools, history)["messages"]
    written = next(m for m in sent if m["role"] == "assistant")["content"]
    assert id_and_name(written) == [(call_id, name) for call_id, name, _ in calls]
    reply = {"choices": [{"message": {"role": "assistant", "content": written}}]}
    decoded = adapter.decode(reply, tools)
    assert [(c.name, c.arguments) for c in decoded.tool_calls] == [
        (name, args) for _, name, args in calls
    ]
    for n, (call_id, name, _) in enumerate(calls):
        assert f"Tool {name} (call {call_id}) returned: r{n}" in sent[-1]["content"]
