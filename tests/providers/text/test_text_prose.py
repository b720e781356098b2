"""Prose that talks about a tool without calling it stays text; real calls still parse.

The prose corpus sketches calls the way answers do when no tool fits: call-shaped
objects mid-sentence with placeholder arguments (``...``, ``…``, ``<value>``),
unquoted words where values belong, Python-dict style. None of it may become a
call in the ``auto`` or ``json`` format, one-shot or streamed at any split. The
positive corpus (well-formed calls, ellipses inside real string values, explicit
markers) must keep parsing.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from good_agent.providers.text import ParseResult, get_parser, parse_text
from good_agent.providers.text.lenient import lenient_json
from good_agent.providers.text.placeholders import has_placeholder, is_placeholder

PROSE = [
    "Normally I'd send {'name': 'calc', 'arguments': ...}, but no tool fits",
    'A call such as {"name": "calc", "arguments": {"volume": ...}} would need a real volume',
    'You could try {"name": "calc", "arguments": {"volume": "..."}} once you know the volume.',
    'The template is {"name": "search", "arguments": {"query": "<value>"}}; fill in a query.',
    'Something like {"name": "search", "arguments": {"query": <value>}} is what it would need.',
    "In Python terms that would be {'name': 'lookup', 'arguments': {'id': ...}}, unfilled.",
    'A weather call looks like {"name": "weather", "arguments": {"city": "<city>"}} but no.',
    'I would need {"name": "calc", "arguments": {"expression": …}} with an actual expression.',
    "{'name': 'calc', 'arguments': {'a': '…', 'b': 2}} is only a sketch.",
    'The shape is [{"name": "calc", "arguments": {"x": "..."}}] for a batch.',
    'Calls are written as {"name": "<tool name>", "arguments": {"<param>": "<value>"}}.',
    'e.g. {"name": "convert", "arguments": {"amount": the amount, "currency": "EUR"}} later',
    '{"name": "calc", "arguments": {"volume": NUMBER}} - replace NUMBER with the volume.',
    '{"name": "calc", "arguments": {volume: 3}} is how it might look, but none is available.',
    'There is no tool for this; {"name": "calc", "arguments": "..."} would not help.',
    'The payload format is {"tool": "search", "arguments": {"q": "..."}, "scratchpad": "x"}.',
    'The OpenAI form: {"type": "function", "function": {"name": "calc", '
    '"arguments": "{\\"x\\": ...}"}}.',
    'I cannot run [calc(expression="...")] because the expression is missing.',
    'Usage: [search(query="<query>")] with your own words.',
    "[weather(city=...)] is the pythonic form.",
    "[calc(volume='…')] needs a number first.",
    'Here is the general form:\n```json\n{"name": "calc", "arguments": {"volume": ...}}\n```\n'
    "No tool answers your question though.",
    '```json\n{"name": "search", "arguments": {"query": "<your query>"}}\n```\nis the shape.',
    'Tools take JSON like {"name": "x", "arguments": {...}}.',
    '{"name": "calc", "arguments": {"a": 1, "b": ...}} with b unknown.',
    'The call {"name": "calc", "arguments": {"items": [1, 2, ...]}} needs the full list.',
    "{'name': 'calc', 'arguments': {'volume': <volume>}}",
    'A call would be {"name": "get_population", "arguments": {"country": "…"}} if we had one.',
    'Consider {"name": "calc", "arguments": {"x": "...", "y": "..."}}.',
    'Something like {"arguments": {"q": ...}, "name": "search"} (arguments first).',
    '[{"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": {"y": ...}}] as a batch.',
    'Write {"name": "search", "arguments": {"query": "<search terms>", "limit": 5}} to search.',
    "{'name': 'calc', 'arguments': {'volume': '<VOLUME>'}}",
    'Use {"name": "calc", "arguments": {"volume": …, "unit": "m3"}}, where … is the volume.',
    'The JSON reply {"tool_calls": [{"name": "calc", "arguments": {"v": "..."}}]} is a call.',
    '{"name": "calc", "parameters": {"volume": "..."}} is the Llama-style form.',
    '{"name": "calc", "arguments": {"nested": {"deep": ["ok", "..."]}}} shows nesting.',
    '{"name": "calc", "arguments": "{\'volume\': <number>}"} has string arguments.',
    "First {'name': 'a', 'arguments': {'x': ...}} and then {'name': 'b', 'arguments': ...}.",
]

# (text, format, the calls it must give)
POSITIVE: list[tuple[str, str, list[tuple[str, dict[str, Any] | None]]]] = [
    ('{"name": "calc", "arguments": {"volume": 3}}', "json", [("calc", {"volume": 3})]),
    (
        'Calling: {"name": "calc", "arguments": {"volume": 3.5, "unit": "l"}}',
        "json",
        [("calc", {"volume": 3.5, "unit": "l"})],
    ),
    (
        "Calling: {'name': 'lookup', 'arguments': {'id': -3, 'all': True}} now",
        "json",
        [("lookup", {"id": -3, "all": True})],
    ),
    (
        '{"name": "say", "arguments": {"text": "Wait... what?"}}',
        "json",
        [("say", {"text": "Wait... what?"})],
    ),
    ('{"name": "say", "arguments": {"text": "a … b"}}', "json", [("say", {"text": "a … b"})]),
    ('{"name": "f", "arguments": {"a": 1,},}', "json", [("f", {"a": 1})]),
    ('{"name": "f", "arguments": "{\\"a\\": 1}"}', "json", [("f", {"a": 1})]),
    ('{"name": "f", "arguments": "not json"}', "json", [("f", None)]),
    (
        '[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"n": 2}}]',
        "json",
        [("a", {}), ("b", {"n": 2})],
    ),
    (
        '{"tool": "search", "arguments": {"q": "cats"}, "scratchpad": "need facts"}',
        "json",
        [("search", {"q": "cats"})],
    ),
    (
        '```json\n{"name": "f", "arguments": {"q": "to be continued..."}}\n```',
        "auto",
        [("f", {"q": "to be continued..."})],
    ),
    ('[say(text="Wait... what?")]', "auto", [("say", {"text": "Wait... what?"})]),
    # explicit markers: the model said it is calling, so placeholders are its arguments
    (
        '<tool_call>{"name": "say", "arguments": {"text": "..."}}</tool_call>',
        "auto",
        [("say", {"text": "..."})],
    ),
    ('[TOOL_CALLS]say{"text": "<value>"}', "auto", [("say", {"text": "<value>"})]),
    # an explicit marker still gets json-repair; an ellipsis inside a string is no obstacle
    (
        '<tool_call>{"name": "f", "arguments": {"q": "wait..." "n": 1}}</tool_call>',
        "auto",
        [("f", {"q": "wait...", "n": 1})],
    ),
    # ...but a bare ellipsis is never repaired into a value: an error call, nothing runs
    (
        '<tool_call>{"name": "calc", "arguments": {"volume": ...}}</tool_call>',
        "auto",
        [("calc", None)],
    ),
    ('<tool_call>{"name": "calc", "arguments": {"v": …}}</tool_call>', "auto", [("calc", None)]),
    ("[TOOL_CALLS]calc{'volume': ...}", "auto", [("calc", None)]),
]


def streamed(fmt: str, chunks: list[str]) -> ParseResult:
    parser = get_parser(fmt).streaming()
    for chunk in chunks:
        parser.feed(chunk)
    parser.finish()
    return parser.result()


def split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({0, len(text), *cuts})
    return [text[a:b] for a, b in pairwise(points)]


def test_the_prose_corpus_is_large_and_varied() -> None:
    assert len(PROSE) >= 30
    assert len(set(PROSE)) == len(PROSE)


@pytest.mark.parametrize("fmt", ["auto", "json"])
@pytest.mark.parametrize("text", PROSE)
def test_prose_stays_text_one_shot(text: str, fmt: str) -> None:
    result = parse_text(text, format=fmt)
    assert result.calls == []
    assert result.content == text.strip()


@pytest.mark.parametrize("fmt", ["auto", "json"])
@pytest.mark.parametrize("text", PROSE)
def test_prose_stays_text_streamed_at_every_split(text: str, fmt: str) -> None:
    expected = parse_text(text, format=fmt)
    for cut in range(len(text) + 1):
        assert streamed(fmt, [text[:cut], text[cut:]]) == expected
    assert streamed(fmt, list(text)) == expected


@settings(max_examples=300, deadline=None)
@given(
    text=st.sampled_from(PROSE),
    fmt=st.sampled_from(["auto", "json"]),
    data=st.data(),
)
def test_prose_stays_text_under_any_chunking(text: str, fmt: str, data: st.DataObject) -> None:
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=12), label="cuts")
    result = streamed(fmt, split(text, cuts))
    assert result.calls == []
    assert result.content == text.strip()


@settings(max_examples=300, deadline=None)
@given(
    parts=st.lists(st.sampled_from(PROSE), min_size=1, max_size=4),
    fmt=st.sampled_from(["auto", "json"]),
    data=st.data(),
)
def test_several_prose_sentences_stay_text(parts: list[str], fmt: str, data: st.DataObject) -> None:
    text = "\n".join(parts)
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=8), label="cuts")
    assert parse_text(text, format=fmt).calls == []
    assert streamed(fmt, split(text, cuts)).calls == []


@pytest.mark.parametrize(("text", "fmt", "calls"), POSITIVE)
def test_real_calls_still_parse(
    text: str, fmt: str, calls: list[tuple[str, dict[str, Any] | None]]
) -> None:
    result = parse_text(text, format=fmt)
    got = [(call.name, None if call.arguments_error else call.arguments) for call in result.calls]
    assert got == calls
    for call in result.calls:
        assert (call.arguments_error is not None) == bool(call.arguments_problems)
    assert streamed(fmt, list(text)) == result
    for cut in range(len(text) + 1):
        assert streamed(fmt, [text[:cut], text[cut:]]) == result


@pytest.mark.parametrize("text", [t for t, fmt, _ in POSITIVE if fmt == "json"])
def test_bare_calls_parse_the_same_in_auto(text: str) -> None:
    assert parse_text(text, format="auto") == parse_text(text, format="json")


@pytest.mark.parametrize(
    "text",
    ['{"a": ...}', '{"a": …}', "{'a': ...}", '{"a": [1, ...]}', '{"a": "x", ...}', '{"a": 1 …}'],
)
def test_repair_never_turns_an_ellipsis_into_a_value(text: str) -> None:
    assert lenient_json(text) == (False, None)


def test_an_ellipsis_inside_a_string_does_not_stop_a_repair() -> None:
    assert lenient_json('{"q": "wait...", "s": "\\"…\\"" "n": 1}') == (
        True,
        {"q": "wait...", "s": '"…"', "n": 1},
    )


def test_without_repair_only_json_and_python_literals_decode() -> None:
    assert lenient_json('{"a": 1 "b": 2}') == (True, {"a": 1, "b": 2})
    assert lenient_json('{"a": 1 "b": 2}', repair=False) == (False, None)
    assert lenient_json("{'a': True,}", repair=False) == (True, {"a": True})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("...", True),
        (" … ", True),
        ("<value>", True),
        ("<your query>", True),
        ("<CITY_NAME>", True),
        ("Wait...", False),
        ("a … b", False),
        ("<", False),
        ("<>", False),
        ("a <value>", False),
        ("<not a placeholder!>", False),
        ("<" + "x" * 200 + ">", False),
    ],
)
def test_placeholders(text: str, expected: bool) -> None:
    assert is_placeholder(text) is expected


def test_placeholders_are_found_at_any_depth_in_keys_and_values() -> None:
    assert has_placeholder({"a": [1, {"b": ["..."]}]})
    assert has_placeholder({"<param>": 1})
    assert not has_placeholder({"a": [1, {"b": ["x..."]}], "c": None})
    deep: Any = "..."
    for _ in range(10_000):
        deep = [deep]
    assert has_placeholder(deep)
