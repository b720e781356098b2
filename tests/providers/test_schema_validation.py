"""Tool arguments checked by the JSON Schema library, worded for the model."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import SecretStr

from good_agent.providers import schema_validation
from good_agent.providers.schema_validation import MAX_VALUE_DEPTH, compile_schema

NAMES = ["a", "b", "c"]
bounds = st.one_of(st.none(), st.integers(-5, 5), st.floats(-5, 5, allow_nan=False))


@st.composite
def numbers(draw: st.DrawFn) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": draw(st.sampled_from(["integer", "number"]))}
    for key in ("minimum", "maximum"):
        bound = draw(bounds)
        if bound is not None:
            schema[key] = bound
    extra = draw(st.sampled_from([{}, {"description": "n"}, {"exclusiveMinimum": 0}]))
    return {**schema, **extra, **draw(st.sampled_from([{}, {"enum": [1, 2]}]))}


leaves = st.one_of(
    numbers(),
    st.sampled_from(
        [
            {},
            True,
            False,
            {"type": "string"},
            {"type": "string", "format": "uri", "title": "u"},
            {"type": "string", "minLength": 1},
            {"type": "boolean", "default": False},
            {"type": ["string", "null"]},
            {"type": "integer", "nullable": True},
            {"type": "null"},
            {"type": "string", "format": "password", "writeOnly": True, "x-unknown": 1},
            {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
            {"description": "anything"},
        ]
    ),
)


def objects(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(
        lambda props, required, extra: {
            "type": "object",
            "properties": props,
            "required": required,
            **({} if extra is None else {"additionalProperties": extra}),
        },
        st.dictionaries(st.sampled_from(NAMES), children, max_size=3),
        st.lists(st.sampled_from(NAMES), max_size=2, unique=True),
        st.sampled_from([None, True, False, {"type": "integer"}]),
    )


def any_of(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(
        lambda branches: {"anyOf": branches}, st.lists(children, min_size=1, max_size=3)
    )


schemas = st.recursive(leaves, lambda inner: objects(inner) | any_of(inner), max_leaves=6)
scalars = st.one_of(
    st.integers(-8, 8),
    st.floats(-8, 8, allow_nan=False),
    st.booleans(),
    st.none(),
    st.text(max_size=2),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=2),
        st.dictionaries(st.sampled_from([*NAMES, "z"]), inner, max_size=3),
    ),
    max_leaves=6,
)


@settings(max_examples=600, deadline=None)
@given(schema=schemas, value=values)
def test_problems_exactly_when_the_reference_validator_says_invalid(
    schema: Any, value: Any
) -> None:
    # An independent implementation (python-jsonschema) on the same 2020-12 schema.
    prepared = schema_validation._prepare(schema, schema)
    reference = jsonschema.Draft202012Validator(prepared).is_valid(value)
    problems = compile_schema(schema)(value)
    assert (problems == []) == reference, problems
    assert all(isinstance(p, str) and ": " in p for p in problems)


def test_the_usual_shapes_are_worded_with_path_expected_and_given() -> None:
    flat = {
        "type": "object",
        "properties": {
            "citation_idx": {"type": "integer", "minimum": 1, "maximum": 3, "description": "n"},
            "page": {"type": "integer", "default": 1},
            "query": {"type": "string"},
        },
        "required": ["citation_idx"],
        "additionalProperties": False,
    }
    validate = compile_schema(flat)
    assert validate({"citation_idx": 2, "query": "x"}) == []
    assert validate({"citation_idx": 4}) == ["citation_idx: must be at most 3, got 4"]
    assert validate({"citation_idx": True}) == ["citation_idx: expected integer, got boolean true"]
    assert validate({"page": 1}) == ["citation_idx: field required"]
    assert validate({"citation_idx": 1, "url": "https://x"}) == [
        "url: unexpected field (allowed: citation_idx, page, query)"
    ]


def test_one_problem_per_place_the_type_first() -> None:
    validate = compile_schema({"type": "integer", "minimum": 1, "enum": [1, 2]})
    assert validate("x") == ['arguments: expected integer, got string "x"']
    assert validate(3) == ["arguments: expected one of 1, 2, got 3"]


def test_branches_combinators_and_array_positions() -> None:
    schema = {
        "type": "object",
        "properties": {
            "one": {"oneOf": [{"type": "integer"}, {"type": "number"}]},
            "any": {"anyOf": [{"type": "string", "minLength": 3}, {"type": "null"}]},
            "no": {"not": {"type": "string"}},
            "never": False,
            "pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]},
            "set": {"type": "array", "uniqueItems": True},
            "opt": {"type": "integer", "nullable": True},
        },
    }
    validate = compile_schema(schema)
    assert validate({"one": 1}) == ["one: 1 matches more than one allowed form"]
    assert validate({"any": "a"}) == [
        'any: "a" matches none of the allowed forms (any: must be at least 3 characters, got "a")'
    ]
    assert validate({"no": "s"}) == ['no: "s" is not allowed here']
    assert validate({"never": 1}) == ["never: no value is allowed here"]
    assert validate({"pair": ["a", "b"]}) == ['pair[1]: expected integer, got string "b"']
    assert validate({"set": [1, 1]}) == ["set: items must be unique"]
    assert validate({"opt": None}) == []
    assert validate({"opt": "x"}) == ['opt: expected integer or null, got string "x"']


def test_a_secret_stands_for_a_string_and_is_not_shown() -> None:
    schema = {
        "type": "object",
        "properties": {"key": {"type": "string", "minLength": 50}, "n": {"type": "integer"}},
    }
    validate = compile_schema(schema)
    assert validate({"key": SecretStr("s3cret")}) == []
    problems = validate({"key": SecretStr("s3cret"), "n": SecretStr("s3cret")})
    assert len(problems) == 1 and problems[0].startswith("n: expected integer, got ")
    assert "s3cret" not in problems[0]


def test_a_value_that_is_not_json_is_a_problem_not_an_exception() -> None:
    validate = compile_schema({"type": "object", "properties": {"a": {"type": "array"}}})
    assert validate({"a": {1, 2}}) == ['a: expected a JSON value, got set "{1, 2}"']
    assert validate({"a": (1, 2)}) == []  # a tuple is an array


def test_a_deep_value_is_a_problem_not_a_crash() -> None:
    validate = compile_schema({"type": "array", "items": {"$ref": "#"}})
    value: list[Any] = []
    for _ in range(MAX_VALUE_DEPTH + 1):
        value = [value]
    assert validate(value) == ["arguments: nested too deeply to be checked"]
    assert validate([[[]]]) == []


def test_a_schema_compiles_once_by_content() -> None:
    schema = {"type": "object", "properties": {"once": {"type": "string"}}}
    first = compile_schema(schema)
    assert compile_schema({"properties": {"once": {"type": "string"}}, "type": "object"}) is first
    assert compile_schema({"type": "object", "properties": {"once": {"type": "integer"}}}) is not (
        first
    )


def test_refs_are_local_and_must_resolve() -> None:
    with pytest.raises(ValueError, match="only local"):
        compile_schema({"$ref": "https://example.com/schema.json"})
    with pytest.raises(ValueError, match="does not resolve"):
        compile_schema({"properties": {"a": {"$ref": "#/$defs/Nope"}}})
    with pytest.raises(ValueError, match="not a valid JSON Schema"):
        compile_schema({"type": "integer", "minimum": "one"})


def test_a_key_that_looks_like_a_number_is_a_key() -> None:
    schema = {"type": "object", "additionalProperties": {"type": "string"}}
    validate = compile_schema({"type": "object", "properties": {"urls": schema}})
    assert validate({"urls": {"1": 99}}) == ["urls.1: expected string, got number 99"]
    assert compile_schema({"type": "array", "items": schema})([{"0": 1}]) == [
        "[0].0: expected string, got number 1"
    ]


def test_a_property_named_like_a_number_is_found_in_the_schema() -> None:
    point = {"type": "object", "properties": {"1": {"type": "integer", "maximum": 3}}}
    assert compile_schema(point)({"1": 4}) == ["1: must be at most 3, got 4"]
    # A $ref inside anyOf: worded from the library's error objects.
    either = {"anyOf": [{"$ref": "#/$defs/P"}, {"type": "null"}], "$defs": {"P": point}}
    assert compile_schema(either)({"1": "x"}) == [
        'arguments: {"1": "x"} matches none of the allowed forms'
        ' (1: expected integer, got string "x")'
    ]


def test_every_missing_field_is_told_and_unexpected_ones_beside_patterns() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {}, "b": {}, "c": {}},
        "required": ["c", "a", "b"],
        "patternProperties": {"^x-": {"type": "string"}},
        "additionalProperties": False,
    }
    validate = compile_schema(schema)
    assert validate({"b": 1}) == ["c: field required", "a: field required"]
    assert validate({"a": 1, "b": 2, "c": 3, "x-y": "ok", "z": 4}) == [
        "z: unexpected field (allowed: a, b, c)"
    ]
    assert validate({"a": 1, "b": 2, "c": 3, "x-y": 5}) == ["x-y: expected string, got number 5"]
