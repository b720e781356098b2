"""The quick accept of in-range integers gives the answers of the full check."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from good_agent.providers import schema_validation
from good_agent.providers.schema_validation import compile_schema

bounds = st.one_of(st.none(), st.integers(-5, 5), st.floats(-5, 5, allow_nan=False))
values = st.one_of(
    st.integers(-8, 8),
    st.floats(-8, 8, allow_nan=False),
    st.booleans(),
    st.none(),
    st.text(max_size=2),
    st.lists(st.integers(), max_size=1),
)


def _schema(low: Any, high: Any, extra: dict[str, Any]) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer", **extra}
    if low is not None:
        schema["minimum"] = low
    if high is not None:
        schema["maximum"] = high
    return schema


@settings(max_examples=400, deadline=None)
@given(
    low=bounds,
    high=bounds,
    extra=st.sampled_from([{}, {"description": "n"}, {"exclusiveMinimum": 0}, {"enum": [1, 2]}]),
    value=values,
)
def test_same_problems_with_and_without_the_quick_accept(
    low: Any, high: Any, extra: dict[str, Any], value: Any
) -> None:
    schema = {"type": "object", "properties": {"n": _schema(low, high, extra)}}
    quick = compile_schema(schema)({"n": value})
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(schema_validation, "_with_int_fast_path", lambda schema, run_all: run_all)
        full = compile_schema(schema)({"n": value})
    assert quick == full


def test_an_in_range_int_passes_and_an_out_of_range_one_is_named() -> None:
    validate = compile_schema({"type": "integer", "minimum": 1, "maximum": 3})
    assert validate(2) == []
    assert validate(True) != [] and validate(4) != [] and validate(0) != []
