"""Llama 4's ``<|python_start|>`` / ``<|python_end|>`` around a pythonic call: not content."""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from good_agent.providers.streaming import TextDelta
from good_agent.providers.text import ParseResult, StreamEvent, get_parser

START, END = "<|python_start|>", "<|python_end|>"

# (reply, calls, content)
CASES = [
    (f'{START}[get_weather(city="Paris")]{END}', [("get_weather", {"city": "Paris"})], ""),
    (
        f"Let me check. {START}[f(a=1), g(b=[2])]{END} Done.",
        [("f", {"a": 1}), ("g", {"b": [2]})],
        "Let me check.  Done.",
    ),
    (f"{START}\n[f(a=1)]\n{END}\n", [("f", {"a": 1})], ""),
    (f"{START}[f(a=1)]", [("f", {"a": 1})], ""),  # the end token cut off
    (f"[f(a=1)]{END}", [("f", {"a": 1})], ""),  # the start token dropped
    (f"{START}[f(a=1)] then text", [("f", {"a": 1})], "then text"),
    (f"{START}[f(a=1)]{END}{START}[g()]{END}", [("f", {"a": 1}), ("g", {})], ""),
    (f'{START}[f(q="...")]{END}', [("f", {"q": "..."})], ""),  # explicit: kept as written
    # no call: the tokens are part of text the model wrote, kept verbatim
    (f"{START}print(1){END}", [], f"{START}print(1){END}"),
    (f"{START}[f(a=1+2)]{END}", [], f"{START}[f(a=1+2)]{END}"),
    (f"{START}[f(a=1", [], f"{START}[f(a=1"),
]


Calls = list[tuple[str, dict[str, object]]]


def each_case(test: Callable[[str, Calls, str, str], None]) -> Any:
    """Run ``test`` for every case in the ``auto`` and ``pythonic`` formats."""
    test = pytest.mark.parametrize(("text", "calls", "content"), CASES)(test)
    return pytest.mark.parametrize("fmt", ["auto", "pythonic"])(test)


def run(fmt: str, chunks: list[str]) -> tuple[list[StreamEvent], ParseResult]:
    parser = get_parser(fmt).streaming()
    events: list[StreamEvent] = []
    for chunk in chunks:
        events += parser.feed(chunk)
    events += parser.finish()
    return events, parser.result()


@each_case
def test_tokens_belong_to_the_call(text: str, calls: Calls, content: str, fmt: str) -> None:
    result = get_parser(fmt).parse(text)
    assert [(call.name, call.arguments) for call in result.calls] == calls
    assert result.content == content
    if calls:
        assert "<|python" not in result.content


@each_case
def test_streamed_at_every_split_the_tokens_never_stream_as_text(
    text: str, calls: Calls, content: str, fmt: str
) -> None:
    expected = get_parser(fmt).parse(text)
    for cut in range(len(text) + 1):
        events, result = run(fmt, [text[:cut], text[cut:]])
        assert result == expected
        assert "".join(e.text for e in events if isinstance(e, TextDelta)) == content
    events, result = run(fmt, list(text))
    assert result == expected
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == content


@settings(max_examples=200, deadline=None)
@given(
    parts=st.lists(st.sampled_from([c[0] for c in CASES] + [" ", "ok ", "\n"]), max_size=5),
    data=st.data(),
)
def test_any_chunking_of_mixed_replies_matches_one_shot(
    parts: list[str], data: st.DataObject
) -> None:
    text = "".join(parts)
    cuts = sorted({0, len(text), *data.draw(st.lists(st.integers(0, len(text)), max_size=8))})
    _, result = run("auto", [text[a:b] for a, b in pairwise(cuts)])
    assert result == get_parser("auto").parse(text)
