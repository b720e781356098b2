"""An event's data is read as ``json.loads`` reads it (the transports take a faster way)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from good_agent.http.http_transport import _sse_payload
from good_agent.providers.streaming.decoder import DONE_EVENT

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
SPACE = st.sampled_from(["", " ", "\t", "\n ", "  \r\n"])


def same(left: Any, right: Any) -> bool:
    if isinstance(left, float) and isinstance(right, float) and math.isnan(left):
        return math.isnan(right)
    return bool(left == right and type(left) is type(right))


@given(value=JSON_VALUES, before=SPACE, after=SPACE, compact=st.booleans())
def test_json_text_reads_as_json_loads_reads_it(
    value: Any, before: str, after: str, compact: bool
) -> None:
    separators = (",", ":") if compact else None
    text = before + json.dumps(value, separators=separators) + after
    assert same(_sse_payload(text), json.loads(text))


@given(text=st.text(max_size=40))
def test_any_text_reads_or_fails_as_json_loads(text: str) -> None:
    if text in ("", "[DONE]"):
        return
    try:
        expected = json.loads(text)
    except ValueError:
        with pytest.raises(ValueError):
            _sse_payload(text)
    else:
        assert same(_sse_payload(text), expected)


def test_the_terminator_and_empty_data() -> None:
    assert _sse_payload("[DONE]") is DONE_EVENT
    assert _sse_payload("") is None
    for broken in ('{"a": 1} {"b": 2}', '{"a": 1', "NaN x", "[1,]"):
        with pytest.raises(ValueError):
            _sse_payload(broken)
    assert math.isnan(_sse_payload("NaN"))


def test_what_the_fast_parser_refuses_is_read_as_json_loads_reads_it() -> None:
    # pydantic-core refuses a lone surrogate escape and nesting past its limit;
    # the standard library reads both, and so does an event.
    for text in ('{"a": "\\ud800"}', "[" * 400 + "]" * 400, '{"k": ' * 300 + "1" + "}" * 300):
        assert _sse_payload(text) == json.loads(text)
