"""Fuzzing and adversarial inputs: parsers never raise and always finish."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from good_agent.providers.text import ParseResult, available_formats, get_parser

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
FORMATS = available_formats()


def parse_in_chunks(fmt: str, text: str, cuts: list[int]) -> ParseResult:
    parser = get_parser(fmt).streaming()
    points = sorted({0, len(text), *cuts})
    for a, b in pairwise(points):
        parser.feed(text[a:b])
    parser.finish()
    return parser.result()


@settings(max_examples=300, deadline=None)
@given(text=any_text, fmt=st.sampled_from(FORMATS))
def test_arbitrary_text_never_raises(text: str, fmt: str) -> None:
    result = get_parser(fmt).parse(text)
    assert isinstance(result, ParseResult)


@settings(max_examples=400, deadline=None)
@given(text=marker_text, fmt=st.sampled_from(FORMATS), data=st.data())
def test_marker_soup_is_split_invariant(text: str, fmt: str, data: st.DataObject) -> None:
    expected = get_parser(fmt).parse(text)
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=10), label="cuts")
    assert parse_in_chunks(fmt, text, cuts) == expected


@settings(max_examples=100, deadline=None)
@given(text=marker_text, fmt=st.sampled_from(FORMATS))
def test_marker_soup_one_character_deltas(text: str, fmt: str) -> None:
    expected = get_parser(fmt).parse(text)
    assert parse_in_chunks(fmt, text, list(range(len(text)))) == expected


@settings(max_examples=200, deadline=None)
@given(text=marker_text)
def test_content_never_loses_plain_text(text: str) -> None:
    result = get_parser().parse(text)
    transformed = "<think>" in text or '"answer"' in text
    if not result.calls and result.reasoning is None and not transformed:
        assert result.content == text.strip()


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
