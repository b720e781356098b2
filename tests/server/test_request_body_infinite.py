"""A request body's numbers too large for a float are found without walking every
body: the text is searched first, and only a body whose text may hold one is walked.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from good_agent.server.common.errors import BridgeError
from good_agent.server.common.request_body import MAYBE_INFINITE, parse_body

DIGITS = st.text("0123456789", min_size=1, max_size=400)


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
        assert MAYBE_INFINITE.search(text.encode()) is not None


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
    assert MAYBE_INFINITE.search(data) is None
    assert parse_body(data)["max_tokens"] == 1024


@pytest.mark.parametrize("text", ["1e999", "2e308", "-1E+400", "1" * 310 + ".5", "1" * 250 + "e99"])
def test_large_numbers_are_400s(text: str) -> None:
    with pytest.raises(BridgeError) as caught:
        parse_body(b'{"model": "m", "x": ' + text.encode() + b"}")
    assert caught.value.status == 400
    assert "non-finite" in str(caught.value)
