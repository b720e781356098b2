"""Streaming parses agree with one-shot parses for every chunking of the corpus."""

from __future__ import annotations

import json
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from text_corpus_cases import CASES, Case

from good_agent.providers.streaming import (
    ReasoningDelta,
    TextDelta,
    ToolCallArgs,
    ToolCallEnd,
    ToolCallStart,
)
from good_agent.providers.text import (
    ParseResult,
    StreamEvent,
    TextParseError,
    get_parser,
)


def stream(case: Case, chunks: list[str]) -> tuple[list[StreamEvent], ParseResult]:
    parser = get_parser(case.fmt).streaming(case.tools)
    events: list[StreamEvent] = []
    for chunk in chunks:
        events.extend(parser.feed(chunk))
    events.extend(parser.finish())
    return events, parser.result()


def check_events(events: list[StreamEvent], result: ParseResult) -> None:
    content = "".join(e.text for e in events if isinstance(e, TextDelta))
    reasoning = "".join(e.text for e in events if isinstance(e, ReasoningDelta))
    assert content == result.content
    assert reasoning == (result.reasoning or "")
    fragments: dict[int, list[str]] = {}
    open_call: int | None = None
    for event in events:
        if isinstance(event, ToolCallStart):
            assert open_call is None, "a call starts only after the previous one ended"
            assert event.index == len(fragments), "indexes are contiguous from 0"
            assert event.id == f"call_{event.index}"
            assert event.name
            fragments[event.index] = []
            open_call = event.index
        elif isinstance(event, ToolCallArgs):
            assert event.index == open_call
            fragments[event.index].append(event.arguments)
        elif isinstance(event, ToolCallEnd):
            assert event.index == open_call
            open_call = None
    assert open_call is None, "every call is closed"
    assert len(fragments) == len(result.calls)
    for index, call in enumerate(result.calls):
        joined = "".join(fragments[index])
        assert joined == call.raw_arguments
        if call.arguments_error is None:
            assert json.loads(joined) == call.arguments


def split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({0, len(text), *cuts})
    return [text[a:b] for a, b in pairwise(points)]


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_one_character_deltas(case: Case) -> None:
    expected = get_parser(case.fmt).parse(case.text, case.tools)
    events, result = stream(case, list(case.text))
    assert result == expected
    check_events(events, result)


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_random_chunkings(case: Case, data: st.DataObject) -> None:
    size = len(case.text)
    cuts = data.draw(st.lists(st.integers(0, size), max_size=min(size, 12)), label="cuts")
    expected = get_parser(case.fmt).parse(case.text, case.tools)
    events, result = stream(case, split(case.text, cuts))
    assert result == expected
    check_events(events, result)


def test_content_streams_before_the_call_ends() -> None:
    parser = get_parser().streaming()
    first = parser.feed("Let me look that up. <tool_ca")
    assert first == [TextDelta("Let me look that up.")]
    assert parser.feed('ll>{"name": "f", "arguments": {"a"') == []
    done = parser.feed(": 1}}</tool_call>")
    assert done == [
        ToolCallStart(0, "call_0", "f"),
        ToolCallArgs(0, '{"a":1}'),
        ToolCallEnd(0),
    ]
    assert parser.finish() == []


def test_partial_marker_is_released_when_it_is_not_one() -> None:
    parser = get_parser().streaming()
    assert parser.feed("a <tool") == [TextDelta("a")]
    assert parser.feed("s> b") == [TextDelta(" <tools> b")]


CLOSER_HEAVY = [
    '<tool_call>{"name": "f", "arguments": {"s": "}}]])) {[(", "n": [[1], [2, [3]]]}}'
    "</tool_call> ok",
    '[TOOL_CALLS][{"name": "f", "arguments": {"a": "\\\\\\"}]", "b": {"c": {"d": []}}}}] tail',
    "<think>a </thin k</think> x <tool_call>not json }]</tool_call> y",
]


@pytest.mark.parametrize("text", CLOSER_HEAVY)
@pytest.mark.parametrize("size", [1, 2, 3, 4, 7])
def test_held_values_end_where_one_shot_ends(text: str, size: int) -> None:
    """Deltas held inside a value (and literal-bounded regions) give one-shot results."""
    parser = get_parser()
    expected = parser.parse(text)
    stream = parser.streaming()
    events = []
    for i in range(0, len(text), size):
        events.extend(stream.feed(text[i : i + size]))
    events.extend(stream.finish())
    assert stream.result() == expected
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == expected.content


def test_a_finished_stream_refuses_more_text_in_any_state() -> None:
    for prefix in ["plain", '<tool_call>{"a": [', "<think>why"]:
        stream = get_parser().streaming()
        stream.feed(prefix)
        stream.finish()
        with pytest.raises(TextParseError):
            stream.feed("x")
        with pytest.raises(TextParseError):
            stream.feed("}")


def test_non_text_deltas_raise_in_any_state() -> None:
    for prefix in ["plain", '<tool_call>{"a": [', "<think>why"]:
        stream = get_parser().streaming()
        stream.feed(prefix)
        with pytest.raises(TextParseError):
            stream.feed(b"x")  # type: ignore[arg-type]
