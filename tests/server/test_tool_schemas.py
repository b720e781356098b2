"""The request-time tool schema check agrees with the JSON Schema metaschema and makes
the call validator safe: a schema it accepts compiles and validates any value
without an exception."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from test_bridge_fuzz import ANY_JSON, tool_schemas

from good_agent.providers.schema_validation import compile_schema
from good_agent.server.common.errors import BridgeError
from good_agent.server.tool_schemas import MAX_SCHEMA_DEPTH, check_tool_schema, schema_problem


def accepted(schema: Any) -> bool:
    try:
        check_tool_schema(schema, "parameters")
    except BridgeError as exc:
        assert exc.status == 400 and exc.param is not None
        assert exc.param.startswith("parameters")
        return False
    return True


METASCHEMA = Draft202012Validator(Draft202012Validator.META_SCHEMA)


def draft07_items(error: Any) -> bool:
    """An array-form ``items`` (draft-07 tuples), which the bridge also accepts."""
    return bool(error.absolute_path) and error.absolute_path[-1] == "items"


@settings(max_examples=300, deadline=None)
@given(schema=tool_schemas())
def test_what_the_metaschema_refuses_is_refused(schema: Any) -> None:
    errors = [e for e in METASCHEMA.iter_errors(schema) if not draft07_items(e)]
    if errors:
        assert not accepted(schema), errors[0].message


@settings(max_examples=300, deadline=None)
@given(schema=tool_schemas(), values=st.lists(ANY_JSON, max_size=4))
def test_an_accepted_schema_validates_anything(schema: Any, values: list[Any]) -> None:
    if accepted(schema):
        validate = compile_schema(schema)
        for value in values:
            assert isinstance(validate(value), list)
            assert isinstance(validate({"a": value, "b": [value]}), list)


@pytest.mark.parametrize(
    ("schema", "where"),
    [
        ({"properties": {"a": {"maxLength": "abc"}}}, ".properties.a.maxLength"),
        ({"properties": {"a": {"maxLength": -1}}}, ".properties.a.maxLength"),
        ({"properties": {"a": {"minimum": True}}}, ".properties.a.minimum"),
        ({"properties": {"a": {"multipleOf": 0}}}, ".properties.a.multipleOf"),
        ({"properties": "x"}, ".properties"),
        ({"items": [1]}, ".items[0]"),
        ({"anyOf": []}, ".anyOf"),
        ({"type": ["string", "string"]}, ".type"),
        ({"dependencies": {"a": 5}}, ".dependencies"),
        ({"enum": {"a": 1}}, ".enum"),
    ],
)
def test_problems_name_the_keyword(schema: dict[str, Any], where: str) -> None:
    found = schema_problem(schema)
    assert found is not None and found[0] == where


def test_depth_is_bounded_without_recursion() -> None:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(50_000):
        schema = {"not": schema}
    found = schema_problem(schema)
    assert found is not None and f"{MAX_SCHEMA_DEPTH} levels" in found[1]
    assert found[0] == ".not" * MAX_SCHEMA_DEPTH


def test_annotations_hold_any_json() -> None:
    schema = {"type": "object", "default": {"a": [1, {"b": None}]}, "examples": [1, "x"]}
    assert schema_problem(schema) is None


def test_a_recursive_schema_and_a_very_deep_value_give_a_problem_not_an_exception() -> None:
    schema = {"type": "object", "properties": {"a": {"$ref": "#"}}}
    assert accepted(schema)
    value: dict[str, Any] = {}
    for _ in range(5_000):
        value = {"a": value}
    assert compile_schema(schema)(value) == ["arguments: nested too deeply to be checked"]


def test_a_huge_integer_against_a_multiple_is_checked_exactly() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "number", "multipleOf": 0.1}}}
    assert accepted(schema)
    assert compile_schema(schema)({"a": 10**400}) == []
    thirds = {"type": "object", "properties": {"a": {"type": "number", "multipleOf": 3}}}
    problems = compile_schema(thirds)({"a": 10**400})
    assert len(problems) == 1 and "multiple of 3" in problems[0]
