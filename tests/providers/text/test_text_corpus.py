"""Every corpus case: exact calls, content and reasoning from the one-shot parser."""

from __future__ import annotations

import json

import pytest
from text_corpus_cases import CASES, Case

from good_agent.providers.text import (
    TextParseError,
    available_formats,
    get_parser,
    parse_text,
    parse_tool_calls,
)


def test_corpus_is_large_enough() -> None:
    assert len(CASES) >= 80
    assert len({case.id for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_corpus_case(case: Case) -> None:
    result = get_parser(case.fmt).parse(case.text, case.tools)
    # the corpus writes None for a call whose arguments could not be used
    got = [(call.name, None if call.arguments_error else call.arguments) for call in result.calls]
    assert got == case.calls
    assert result.content == case.content
    assert result.reasoning == case.reasoning
    for index, call in enumerate(result.calls):
        assert call.id == f"call_{index}"
        if call.arguments_error is not None:
            assert call.arguments == {} and call.arguments_problems
        else:
            assert json.loads(call.arguments_text) == call.arguments


def test_parse_tool_calls_is_the_thin_form() -> None:
    calls, content = parse_tool_calls('Hi <tool_call>{"name": "f", "arguments": {}}</tool_call>')
    assert [call.name for call in calls] == ["f"]
    assert content == "Hi"


def test_error_call_keeps_raw_text() -> None:
    result = parse_text('<tool_call>{"name": "f", "arguments": {"a": ]]}</tool_call>')
    (call,) = result.calls
    assert call.arguments_error is not None and call.arguments == {}
    assert call.raw_arguments == '{"name": "f", "arguments": {"a": ]]}'
    assert call.arguments_error is not None and "JSON" in call.arguments_error


def test_registry() -> None:
    assert {"auto", "json", "fenced", "hermes", "mistral", "llama3", "pythonic", "granite"} <= set(
        available_formats()
    )
    with pytest.raises(TextParseError):
        get_parser("nope")


def test_misuse_raises_the_documented_error() -> None:
    with pytest.raises(TextParseError):
        parse_text(b"bytes")  # type: ignore[arg-type]
    stream = get_parser().streaming()
    stream.finish()
    with pytest.raises(TextParseError):
        stream.feed("x")
    with pytest.raises(TextParseError):
        get_parser().streaming().result()
