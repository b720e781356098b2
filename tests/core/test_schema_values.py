"""Values generated from JSON schemas are valid against them (checked with jsonschema)."""

from __future__ import annotations

import datetime
import enum
from typing import Any, Literal

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field, TypeAdapter

from good_agent.testing import SchemaValueError, value_for_schema

_bound = st.integers(min_value=-50, max_value=50)


@st.composite
def _integers(draw: st.DrawFn) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer"}
    low = draw(st.none() | _bound)
    high = draw(st.none() | st.integers(min_value=(-50 if low is None else low) + 12, max_value=80))
    if low is not None:
        schema["exclusiveMinimum" if draw(st.booleans()) else "minimum"] = low
    if high is not None:
        schema["exclusiveMaximum" if draw(st.booleans()) else "maximum"] = high
    if draw(st.booleans()):
        schema["multipleOf"] = draw(st.integers(min_value=1, max_value=5))
    return schema


@st.composite
def _numbers(draw: st.DrawFn) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "number"}
    low = draw(st.none() | st.floats(min_value=-100, max_value=100))
    gap = draw(st.floats(min_value=0.5, max_value=50))
    if low is not None:
        schema["exclusiveMinimum" if draw(st.booleans()) else "minimum"] = low
    if draw(st.booleans()):
        high = (low if low is not None else draw(st.floats(-100, 100))) + gap
        schema["exclusiveMaximum" if draw(st.booleans()) else "maximum"] = high
    return schema


@st.composite
def _strings(draw: st.DrawFn) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    low = draw(st.integers(min_value=0, max_value=10))
    if draw(st.booleans()):
        schema["minLength"] = low
    if draw(st.booleans()):
        schema["maxLength"] = low + draw(st.integers(min_value=0, max_value=5))
    if len(schema) == 1 and draw(st.booleans()):  # a format with no length limit
        schema["format"] = draw(st.sampled_from(["date", "date-time", "email", "uri", "uuid"]))
    return schema


_leaves = st.one_of(
    _integers(),
    _numbers(),
    _strings(),
    st.just({"type": "boolean"}),
    st.just({"type": "null"}),
    st.just({}),
    st.lists(st.text(max_size=5) | st.integers(), min_size=1, max_size=4, unique=True).map(
        lambda members: {"enum": members}
    ),
    st.integers().map(lambda value: {"const": value}),
)


def _extend(children: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    names = st.text(alphabet="abcdefgh_", min_size=1, max_size=6)

    @st.composite
    def objects(draw: st.DrawFn) -> dict[str, Any]:
        properties = draw(st.dictionaries(names, children, max_size=4))
        required = [n for n in properties if draw(st.booleans())]
        schema: dict[str, Any] = {"type": "object", "properties": properties, "required": required}
        if draw(st.booleans()):
            schema["additionalProperties"] = False
        return schema

    @st.composite
    def arrays(draw: st.DrawFn) -> dict[str, Any]:
        low = draw(st.integers(min_value=0, max_value=3))
        schema: dict[str, Any] = {"type": "array", "items": draw(children), "minItems": low}
        if draw(st.booleans()):
            schema["maxItems"] = low + draw(st.integers(min_value=0, max_value=3))
        return schema

    return st.one_of(
        objects(),
        arrays(),
        st.lists(children, min_size=1, max_size=3).map(lambda b: {"anyOf": b}),
        # oneOf branches of different types (one value cannot match two of them)
        st.sets(st.sampled_from(["string", "boolean", "null", "array"]), min_size=1).map(
            lambda kinds: {"oneOf": [{"type": kind} for kind in sorted(kinds)]}
        ),
        st.lists(children, min_size=1, max_size=2).map(
            lambda parts: {
                "allOf": [
                    {"type": "object", "properties": {f"p{i}": part}, "required": [f"p{i}"]}
                    for i, part in enumerate(parts)
                ]
            }
        ),
    )


schemas = st.recursive(_leaves, _extend, max_leaves=12)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schemas)
def test_a_generated_value_is_valid_against_its_schema(schema: dict[str, Any]) -> None:
    value = value_for_schema(schema)
    jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker()).validate(
        value
    )


@settings(max_examples=100, deadline=None)
@given(schemas, st.integers(min_value=0, max_value=60))
def test_every_variant_is_valid_and_refs_resolve(schema: dict[str, Any], variant: int) -> None:
    wrapped = {
        "$defs": {"Item": schema},
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/Item"}},
        "required": ["x"],
    }
    value = value_for_schema(wrapped, variant)
    jsonschema.Draft202012Validator(wrapped).validate(value)


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Node(BaseModel):
    name: str
    children: list[Node] = []
    parent: Node | None = None


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int = Field(ge=1, le=9)


class Dog(BaseModel):
    kind: Literal["dog"]
    good: bool


class Everything(BaseModel):
    when: datetime.datetime
    day: datetime.date
    colour: Colour
    pet: Cat | Dog = Field(discriminator="kind")
    tree: Node
    scores: dict[str, float]
    pair: tuple[int, str]
    unique: set[int] = Field(min_length=3)
    code: str = Field(pattern=r"^[a-z]+$", min_length=2, max_length=4)
    ratio: float = Field(gt=0, lt=1)


def test_pydantic_models_validate_their_generated_value() -> None:
    adapter = TypeAdapter(Everything)
    schema = adapter.json_schema()
    value = value_for_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(value)
    built = adapter.validate_python(value)
    assert len(built.unique) == 3  # distinct items for uniqueItems
    assert built.tree.children  # optional parts near the top are filled in


def test_an_unsatisfiable_pattern_is_a_clear_error() -> None:
    with pytest.raises(SchemaValueError, match="pattern"):
        value_for_schema(
            {
                "type": "object",
                "properties": {"k": {"type": "string", "pattern": "^Q{3}\\d$"}},
                "required": ["k"],
            }
        )


def test_an_empty_range_is_a_clear_error() -> None:
    with pytest.raises(SchemaValueError, match="bounds"):
        value_for_schema({"type": "integer", "minimum": 5, "exclusiveMaximum": 5})
