"""The ``{"thought", "tool_name", "tool_args"}`` answer protocol: a registered text format
and a prompt notation of the prompted strategies."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from good_agent.providers.codecs import get_codec
from good_agent.providers.prompting import PromptStyle, tools_prompt
from good_agent.providers.strategies.prompted import ValidatedStrategy
from good_agent.providers.text import available_formats, get_parser, parse_text

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "weather.get",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]


def test_registered_and_parsed() -> None:
    assert "thought" in available_formats()
    text = json.dumps(
        {"thought": "I need the weather", "tool_name": "weather.get", "tool_args": {"city": "Oslo"}}
    )
    result = parse_text(text, ["weather.get"], format="thought")
    assert [(c.name, c.arguments) for c in result.calls] == [("weather.get", {"city": "Oslo"})]
    assert result.reasoning == "I need the weather"
    assert not result.content


def test_arguments_as_json_text_several_calls_and_answers() -> None:
    calls = [
        {"thought": "a", "tool_name": "weather.get", "tool_args": '{"city": "Rome"}'},
        {"tool_name": "weather.get", "tool_args": {"city": "Oslo"}},
    ]
    result = parse_text(json.dumps(calls), ["weather.get"], format="thought")
    assert [c.arguments for c in result.calls] == [{"city": "Rome"}, {"city": "Oslo"}]
    answer = parse_text('{"thought": "done", "answer": "Sunny."}', format="thought")
    assert (answer.calls, answer.content, answer.reasoning) == ([], "Sunny.", "done")


def test_other_json_stays_content() -> None:
    for text in ('{"name": "x", "value": 1}', '{"tool_name": "f", "extra": 1}', "[1, 2]"):
        result = parse_text(text, format="thought")
        assert result.calls == [] and result.content == text


@settings(max_examples=60, deadline=None)
@given(
    thought=st.text(max_size=20),
    city=st.text(max_size=10),
    split=st.integers(min_value=0, max_value=200),
)
def test_streaming_split_invariance(thought: str, city: str, split: int) -> None:
    text = "Calling. " + json.dumps(
        {"thought": thought, "tool_name": "weather.get", "tool_args": {"city": city}}
    )
    whole = get_parser("thought").parse(text, ["weather.get"])
    parser = get_parser("thought").streaming(["weather.get"])
    cut = min(split, len(text))
    parser.feed(text[:cut])
    parser.feed(text[cut:])
    parser.finish()
    streamed = parser.result()
    assert [(c.name, c.arguments) for c in streamed.calls] == [
        (c.name, c.arguments) for c in whole.calls
    ]
    assert whole.calls[0].arguments == {"city": city}


def test_offered_as_a_prompt_style() -> None:
    style = PromptStyle(notation="thought")
    prompt = tools_prompt(TOOLS, style=style)
    assert '"tool_name"' in prompt and '"tool_args"' in prompt and "<tool_call>" not in prompt
    adapter = ValidatedStrategy("local", get_codec("openai_chat"), style=style)
    reply_text = json.dumps(
        {"thought": "look it up", "tool_name": "weather.get", "tool_args": {"city": "Oslo"}}
    )
    reply = {"choices": [{"message": {"role": "assistant", "content": reply_text}}]}
    decoded = adapter.decode(reply, TOOLS)
    assert [(c.name, c.arguments) for c in decoded.tool_calls] == [
        ("weather.get", {"city": "Oslo"})
    ]
    assert decoded.reasoning == "look it up"
    history = adapter.assistant_turn(decoded)
    written = json.loads(history[0]["content"])
    assert written["tool_name"] == "weather.get" and written["tool_args"] == {"city": "Oslo"}
    bad = {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": '{"tool_name": "weather.get", "tool_args": {}}',
                }
            }
        ]
    }
    assert adapter.decode(bad, TOOLS).tool_calls[0].arguments_error is not None
