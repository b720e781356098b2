"""Regressions: lone surrogates and deep nesting, one-shot and streamed alike."""

from __future__ import annotations

import pytest

from good_agent.providers.text import ParseResult, get_parser
from good_agent.providers.text.scanner import JSON_DEPTH

SURROGATE_REPLIES = [
    '```json\n{"name": "f", "arguments": {"a": "\ud800"}}\n```',
    '{"name": "f", "arguments": {"a": "\udfff",}}',
    '<tool_call>{"name": "f", "arguments": {"a": "\ud800"}}</tool_call>',
    '[TOOL_CALLS][{"name": "f", "arguments": {"a": "x\udc00"}}]',
]


def streamed(fmt: str, text: str, step: int) -> ParseResult:
    parser = get_parser(fmt).streaming()
    for start in range(0, len(text), step):
        parser.feed(text[start : start + step])
    parser.finish()
    return parser.result()


@pytest.mark.parametrize("text", SURROGATE_REPLIES)
def test_lone_surrogates_decode_one_shot_and_streamed(text: str) -> None:
    result = get_parser().parse(text)
    assert [call.name for call in result.calls] == ["f"]
    assert result.calls[0].arguments_error is None
    value = result.calls[0].arguments["a"]
    assert any(0xD800 <= ord(char) <= 0xDFFF for char in value)
    assert streamed("auto", text, 1) == result
    assert streamed("auto", text, 5) == result


@pytest.mark.parametrize(
    "depth",
    [1, 63, 64, 65, 100, JSON_DEPTH - 2, JSON_DEPTH - 1, JSON_DEPTH, 200, 300, 1000],
)
@pytest.mark.parametrize("wrap", ["<tool_call>{}</tool_call>", "```json\n{}\n```", "{}"])
def test_streamed_and_one_shot_agree_at_any_depth(depth: int, wrap: str) -> None:
    value = '{"name": "f", "arguments": {"a": ' + "[" * depth + "]" * depth + "}}"
    text = wrap.replace("{}", value)
    result = get_parser().parse(text)
    assert streamed("auto", text, 1) == result
    assert streamed("auto", text, 7) == result
    if depth + 2 <= JSON_DEPTH // 2:
        assert result.calls and result.calls[0].arguments_error is None
    elif depth > 2 * JSON_DEPTH and wrap.startswith("<tool_call>"):
        # Past the documented limit the call is reported, not decoded.
        assert result.calls and result.calls[0].arguments_error is not None


def test_invalid_escapes_in_python_literals_parse_without_warnings() -> None:
    import warnings

    from good_agent.providers.text.literals import python_literal

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a printed warning would fail here
        assert python_literal("{'pattern': '\\d+'}") == (True, {"pattern": "\\d+"})
