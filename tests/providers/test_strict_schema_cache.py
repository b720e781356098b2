"""The strict transformation of a tool schema is remembered by the schema's content.

Clients (and the bridge's clients) send the same tools with every request; the
transformation is made once per distinct schema, and the remembered result is the
one a fresh transformation gives, keys in the same order.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from good_agent.providers.schema import strict as strict_module
from good_agent.providers.schema.strict import to_strict_schema

WEATHER: dict[str, Any] = {
    "type": "object",
    "properties": {"city": {"type": "str"}, "days": {"type": "int", "minimum": 1}},
    "required": ["city"],
}


@pytest.mark.parametrize("strict", [None, True, False])
def test_the_same_schema_is_transformed_once(strict: bool | None) -> None:
    first = to_strict_schema(WEATHER, strict)
    again = to_strict_schema(copy.deepcopy(WEATHER), strict)  # equal content, new objects
    assert again is first


def test_a_remembered_result_is_what_a_fresh_transformation_gives() -> None:
    remembered = to_strict_schema(WEATHER, None)
    fresh = strict_module._transform(copy.deepcopy(WEATHER), None)
    assert json.dumps(remembered.schema) == json.dumps(fresh.schema)
    assert remembered.strict is fresh.strict is True


def test_the_order_of_properties_is_part_of_the_key() -> None:
    reordered = {**WEATHER, "properties": dict(reversed(list(WEATHER["properties"].items())))}
    first = to_strict_schema(WEATHER, None).schema
    second = to_strict_schema(reordered, None).schema
    assert list(first["properties"]) == ["city", "days"] == first["required"]
    assert list(second["properties"]) == ["days", "city"] == second["required"]


def test_strictness_is_part_of_the_key() -> None:
    assert to_strict_schema(WEATHER, False).strict is False
    assert to_strict_schema(WEATHER, None).strict is True


def test_a_schema_that_cannot_be_strict_raises_each_time_it_is_demanded() -> None:
    loose = {"type": "object", "properties": {"tags": {"type": "array", "uniqueItems": True}}}
    assert to_strict_schema(loose, None).strict is False
    for _ in range(2):
        with pytest.raises(ValueError, match="uniqueItems"):
            to_strict_schema(loose, True)


def test_a_schema_that_is_not_json_is_transformed_without_the_cache() -> None:
    odd = {"type": "object", "properties": {"when": {"type": "string", "default": object()}}}
    assert to_strict_schema(odd, False).schema["properties"]["when"]["type"] == "string"


def test_the_cache_is_bounded() -> None:
    for number in range(strict_module._CACHED_RESULTS + 10):
        to_strict_schema({"type": "object", "properties": {f"p{number}": {"type": "string"}}})
    assert len(strict_module._RESULTS) <= strict_module._CACHED_RESULTS


SCHEMAS = st.recursive(
    st.fixed_dictionaries({"type": st.sampled_from(["string", "int", "float", "bool", "null"])}),
    lambda inner: (
        st.fixed_dictionaries(
            {
                "type": st.sampled_from(["object", "dict"]),
                "properties": st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), inner),
            }
        )
        | st.fixed_dictionaries({"type": st.sampled_from(["array", "list"]), "items": inner})
    ),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None)
@given(SCHEMAS, st.sampled_from([None, False]))
def test_remembered_and_fresh_results_agree(schema: dict[str, Any], strict: bool | None) -> None:
    remembered = to_strict_schema(schema, strict)
    fresh = strict_module._transform(copy.deepcopy(schema), strict)
    assert json.dumps(remembered.schema) == json.dumps(fresh.schema)
    assert (remembered.strict, remembered.problems) == (fresh.strict, fresh.problems)
    assert to_strict_schema(copy.deepcopy(schema), strict) is remembered
