"""A request body's numbers too large for a float are found without walking every
body: the text is searched first, and only a body whose text may hold one is walked.
"""

from __future__ import annotations

import json
import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from good_agent.server.common.errors import BridgeError
from good_agent.server.common.request_body import maybe_infinite, parse_body

DIGITS = st.text("0123456789", min_size=1, max_size=400)

SPEC = re.compile(rb"[0-9][eE]\+?[0-9]{3}|[0-9]{200}")
"""What `maybe_infinite` decides, as a regular expression."""


@st.composite
def number_texts(draw: st.DrawFn) -> str:
    """JSON number literals of any size: sign, integer part, fraction, exponent."""
    whole = draw(st.sampled_from(["0", "1", "9"])) + draw(st.text("0123456789", max_size=400))
    if whole.startswith("0"):
        whole = "0"
    text = draw(st.sampled_from(["", "-"])) + whole
    if draw(st.booleans()):
        text += "." + draw(DIGITS)
    if draw(st.booleans()):
        sign = draw(st.sampled_from(["", "+", "-"]))
        text += (
            draw(st.sampled_from(["e", "E"]))
            + sign
            + draw(st.text("0123456789", min_size=1, max_size=5))
        )
    return text


@given(number_texts())
def test_every_number_too_large_for_a_float_is_suspected(text: str) -> None:
    if math.isinf(float(text)):
        assert maybe_infinite(text.encode())


@given(number_texts())
def test_a_body_with_a_number_too_large_is_refused_naming_it(text: str) -> None:
    data = json.dumps({"model": "m", "n": 0}).encode().replace(b"0}", text.encode() + b"}")
    is_float = any(mark in text for mark in ".eE")  # an integer of any size is exact
    if is_float and math.isinf(float(text)):
        with pytest.raises(BridgeError) as caught:
            parse_body(data)
        assert caught.value.param == "n"
    else:
        assert parse_body(data)["model"] == "m"


def test_an_ordinary_body_is_not_suspected() -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "Weather in Paris?"}]}
    data = json.dumps({**body, "temperature": 0.7, "max_tokens": 1024, "seed": 12345}).encode()
    assert not maybe_infinite(data)
    assert parse_body(data)["max_tokens"] == 1024


@pytest.mark.parametrize("text", ["1e999", "2e308", "-1E+400", "1" * 310 + ".5", "1" * 250 + "e99"])
def test_large_numbers_are_400s(text: str) -> None:
    with pytest.raises(BridgeError) as caught:
        parse_body(b'{"model": "m", "x": ' + text.encode() + b"}")
    assert caught.value.status == 400
    assert "non-finite" in str(caught.value)


NUMBERISH = st.lists(
    st.one_of(
        st.sampled_from([b"e", b"E", b"+", b"-", b".", b" ", b"x", b"0" * 199]),
        DIGITS.map(str.encode),
    ),
    max_size=30,
).map(b"".join)


@given(st.one_of(NUMBERISH, st.binary(max_size=300)))
def test_the_search_decides_as_the_regular_expression(data: bytes) -> None:
    assert maybe_infinite(data) == (SPEC.search(data) is not None)
