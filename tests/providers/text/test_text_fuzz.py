"""Fuzzing and adversarial inputs: parsers never raise and always finish."""

from __future__ import annotations

import os
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from good_agent.providers.text import ParseResult, available_formats, get_parser

# The fuzz profile: "ci" (default) runs 20,000 examples in all, "deep" ten times as
# many: GOOD_AGENT_PARSER_FUZZ=deep pytest tests/providers/text/test_text_fuzz.py
PROFILES = {"ci": 1, "deep": 10}
SCALE = PROFILES[os.environ.get("GOOD_AGENT_PARSER_FUZZ", "ci")]


def examples(count: int) -> int:
    """Examples for one fuzz test under the selected profile."""
    return count * SCALE


FRAGMENTS = [
    "<tool_call>",
    "</tool_call>",
    "<think>",
    "</think>",
    "[TOOL_CALLS]",
    "[ARGS]",
    "<|python_tag|>",
    "<|tool_call|>",
    "functools[",
    "```json",
    "```",
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    '"',
    "'",
    "\\",
    ":",
    ",",
    ";",
    " ",
    "\n",
    '"name"',
    '"arguments"',
    '"parameters"',
    '"tool"',
    '"answer"',
    '"scratchpad"',
    '"tool_calls"',
    '"function"',
    "'name'",
    '"f"',
    "f",
    "get_weather",
    "(a=1)",
    "=",
    "1",
    "-2.5",
    "true",
    "None",
    "null",
    '{"name": "f", "arguments": {"a": 1}}',
    "é🌍",
]

marker_text = st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join)
any_text = st.text(max_size=200)
# Every code point, lone surrogates included (st.text() leaves them out).
any_code_points = st.text(st.characters(codec=None, categories=None), max_size=80)
lone_surrogates = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
surrogate_soup = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), lone_surrogates),
    max_size=30,
).map("".join)
FORMATS = available_formats()


def parse_in_chunks(fmt: str, text: str, cuts: list[int]) -> ParseResult:
    parser = get_parser(fmt).streaming()
    points = sorted({0, len(text), *cuts})
    for a, b in pairwise(points):
        parser.feed(text[a:b])
    parser.finish()
    return parser.result()


@settings(max_examples=examples(5_000), deadline=None)
@given(text=any_text, fmt=st.sampled_from(FORMATS))
def test_arbitrary_text_never_raises(text: str, fmt: str) -> None:
    result = get_parser(fmt).parse(text)
    assert isinstance(result, ParseResult)


@settings(max_examples=examples(5_000), deadline=None)
@given(text=marker_text, fmt=st.sampled_from(FORMATS), data=st.data())
def test_marker_soup_is_split_invariant(text: str, fmt: str, data: st.DataObject) -> None:
    expected = get_parser(fmt).parse(text)
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=10), label="cuts")
    assert parse_in_chunks(fmt, text, cuts) == expected


@settings(max_examples=examples(2_000), deadline=None)
@given(text=marker_text, fmt=st.sampled_from(FORMATS))
def test_marker_soup_one_character_deltas(text: str, fmt: str) -> None:
    expected = get_parser(fmt).parse(text)
    assert parse_in_chunks(fmt, text, list(range(len(text)))) == expected


@settings(max_examples=examples(2_000), deadline=None)
@given(text=marker_text)
def test_content_never_loses_plain_text(text: str) -> None:
    result = get_parser().parse(text)
    transformed = "<think>" in text or '"answer"' in text
    if not result.calls and result.reasoning is None and not transformed:
        assert result.content == text.strip()


@settings(max_examples=examples(6_000), deadline=None)
@given(
    text=st.one_of(any_code_points, surrogate_soup),
    fmt=st.sampled_from(FORMATS),
    data=st.data(),
)
def test_lone_surrogates_never_raise(text: str, fmt: str, data: st.DataObject) -> None:
    expected = get_parser(fmt).parse(text)
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=6), label="cuts")
    assert parse_in_chunks(fmt, text, cuts) == expected


SURROGATE_CALLS = [
    "<tool_call>{'name': 'f', 'arguments': {'a': '\ud800'}}</tool_call>",
    "[TOOL_CALLS][{'name': 'f', 'arguments': {'a': '\udfff'}}]",
    '<tool_call>{"name": "f", "arguments": {"a": "\ud800",}}</tool_call>',
    "```json\n{'name': 'f', 'arguments': {'a': '\udc00'}}\n```",
]


@pytest.mark.parametrize("text", SURROGATE_CALLS)
def test_lone_surrogate_in_near_json_decodes(text: str) -> None:
    result = get_parser().parse(text)
    assert [call.name for call in result.calls] == ["f"]
    assert parse_in_chunks("auto", text, list(range(len(text)))) == result


def _nested_call_texts(depth: int) -> list[str]:
    arguments = '{"a":' * depth + "1" + "}" * depth
    call = '{"name": "f", "arguments": ' + arguments + "}"
    return [
        f"<tool_call>{call}</tool_call>",
        call,
        f"[TOOL_CALLS][{call}]",
        f"Here:\n```json\n{call}\n```",
        f"<|python_tag|>{call}",
    ]


@pytest.mark.parametrize("depth", [1, 63, 64, 65, 100, 199, 200, 201, 500, 2_000])
def test_streamed_and_one_shot_agree_at_any_depth(depth: int) -> None:
    for text in _nested_call_texts(depth):
        for fmt in FORMATS:
            expected = get_parser(fmt).parse(text)
            for size in (1, 3, 64):
                cuts = list(range(0, len(text), size))
                assert parse_in_chunks(fmt, text, cuts) == expected, (fmt, depth, size)


@pytest.mark.parametrize("depth", [100, 199])  # the call object adds one level
def test_json_up_to_the_depth_limit_is_a_call_in_every_mode(depth: int) -> None:
    text = _nested_call_texts(depth)[0]
    result = get_parser().parse(text)
    assert [call.arguments_error for call in result.calls] == [None]
    assert parse_in_chunks("auto", text, list(range(0, len(text), 2))) == result


MB = 1_000_000
ADVERSARIAL = {
    "open-braces": "{" * MB,
    "open-brackets": "[" * MB,
    "quote-braces": '{"' * (MB // 2),
    "tool-calls-marker": "[TOOL_CALLS]" * 100_000,
    "tool-call-tags": "<tool_call>" * 90_000,
    "unclosed-string": '{"name": "f", "arguments": {"a": "' + "x" * MB,
    "unclosed-string-in-tag": '<tool_call>{"name": "f", "arguments": {"a": "' + "x" * MB,
    "nested-arrays": "[" * 100_000 + "]" * 100_000,
    "nested-in-tag": "<tool_call>" + "[" * 100_000 + "]" * 100_000 + "</tool_call>",
    "nested-in-mistral": "[TOOL_CALLS][{" + '"a":[' * 100_000,
    "nested-objects": '{"a":' * 100_000 + "1" + "}" * 100_000,
    "pythonic-deep": "[f(a=" + "[" * 100_000 + "]" * 100_000 + ")]",
    "backslashes": '{"a": "' + "\\" * MB,
    "python-tag-semicolons": "<|python_tag|>" + '{"name": "f", "parameters": {}};' * 20_000,
    "whitespace": " " * MB,
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_adversarial_one_shot_finishes(name: str) -> None:
    text = ADVERSARIAL[name]
    result = get_parser().parse(text)
    assert isinstance(result, ParseResult)


@pytest.mark.parametrize("name", ["open-braces", "tool-calls-marker", "nested-in-tag"])
def test_adversarial_streaming_finishes(name: str) -> None:
    text = ADVERSARIAL[name][:200_000]
    expected = get_parser().parse(text)
    assert parse_in_chunks("auto", text, list(range(0, len(text), 7))) == expected
