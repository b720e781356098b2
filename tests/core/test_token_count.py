"""Reading a token count from a provider's reply: a finite number counts, nothing else
does, and nothing raises."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from good_agent.types.usage import token_count

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=2), inner),
    max_leaves=4,
)


@given(_JSON)
def test_any_json_value_is_a_count_or_nothing(value: object) -> None:
    count = token_count(value)
    if type(value) is int:
        assert count == value
    elif type(value) is float and math.isfinite(value):
        assert count == int(value)
    else:
        assert count is None


def test_what_is_not_a_finite_number_counts_nothing() -> None:
    for value in (math.nan, math.inf, -math.inf, True, "12", None, [3]):
        assert token_count(value) is None
    assert token_count(12.9) == 12 and token_count(7) == 7
