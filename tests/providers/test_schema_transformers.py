from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal, Optional

import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel

from good_agent.providers.anthropic.schema import to_anthropic_schema
from good_agent.providers.gemini.schema import SUPPORTED_KEYS, to_gemini_schema
from good_agent.providers.openai.schema import UNSUPPORTED_IN_STRICT, to_openai_schema
from good_agent.providers.schema import inline_refs, is_recursive, normalize_schema
from good_agent.providers.schema.walk import iter_schemas


class Color(StrEnum):
    RED = "red"
    BLUE = "blue"


class Address(BaseModel):
    street: str
    zip: Optional[str] = None  # noqa: UP045


class Person(BaseModel):
    name: str
    age: int | None = None
    color: Color = Color.RED
    home: Address
    kind: Literal["a", "b"] = "a"
    value: int | str = 0


class Node(BaseModel):
    label: str
    children: list[Node] = []


class Tagged(BaseModel):
    tags: dict[str, int]
    pair: tuple[int, str]


NON_STANDARD: dict[str, Any] = {
    "properties": {
        "opts": {"type": "dict", "properties": {"x": {"type": "float"}}},
        "items": {"type": "list", "items": {"type": "str"}},
        "pair": {"type": "tuple"},
        "anything": {"type": "any", "description": "whatever"},
        "count": {"type": "int"},
        "flag": {"type": "bool"},
    },
    "required": ["count"],
}

HARD = {
    "nested_optional_enum_union": Person.model_json_schema(),
    "recursive": Node.model_json_schema(),
    "dict_and_tuple": Tagged.model_json_schema(),
    "non_standard": NON_STANDARD,
}


@pytest.mark.parametrize("name", sorted(HARD))
def test_outputs_are_valid_json_schema(name: str) -> None:
    schema = HARD[name]
    for output in (
        to_openai_schema(schema).schema,
        to_openai_schema(schema, False).schema,
        to_anthropic_schema(schema),
        to_gemini_schema(schema),
    ):
        Draft202012Validator.check_schema(output)
        assert output.get("type") == "object"


def test_normalization_of_type_names() -> None:
    out = normalize_schema(NON_STANDARD)
    props = out["properties"]
    assert out["type"] == "object"
    assert props["opts"]["type"] == "object"
    assert props["opts"]["properties"]["x"]["type"] == "number"
    assert props["items"] == {"type": "array", "items": {"type": "string"}}
    assert props["pair"]["type"] == "array"
    assert "type" not in props["anything"]
    assert props["count"]["type"] == "integer" and props["flag"]["type"] == "boolean"


@pytest.mark.parametrize("name", ["nested_optional_enum_union", "recursive"])
def test_openai_strict_when_possible(name: str) -> None:
    result = to_openai_schema(HARD[name])
    assert result.strict, result.problems
    for node in iter_schemas(result.schema):
        assert not UNSUPPORTED_IN_STRICT.intersection(node)
        assert "default" not in node
        if node.get("type") == "object":
            assert node["additionalProperties"] is False
            assert sorted(node["required"]) == sorted(node["properties"])
    if name == "recursive":
        return
    defs = result.schema["$defs"]
    assert defs["Address"]["properties"]["zip"] == {
        "anyOf": [{"type": "string"}, {"type": "null"}],
        "title": "Zip",
    }


def test_openai_strict_recursive_model_validates_instances() -> None:
    result = to_openai_schema(Node.model_json_schema())
    validator = Draft202012Validator(result.schema)
    assert validator.is_valid({"label": "a", "children": [{"label": "b", "children": []}]})
    assert not validator.is_valid({"label": "a", "children": [{"label": "b"}]})


def test_openai_strict_is_tri_state() -> None:
    auto = to_openai_schema(Tagged.model_json_schema())
    assert not auto.strict and auto.problems
    with pytest.raises(ValueError, match="free-form"):
        to_openai_schema(Tagged.model_json_schema(), True)
    off = to_openai_schema(Person.model_json_schema(), False)
    assert not off.strict and "additionalProperties" not in off.schema


def test_anthropic_keeps_refs_and_object_root() -> None:
    out = to_anthropic_schema(Person.model_json_schema())
    assert "$defs" in out and out["type"] == "object"


@pytest.mark.parametrize("name", sorted(HARD))
def test_gemini_subset(name: str) -> None:
    out = to_gemini_schema(HARD[name])
    for node in iter_schemas(out):
        assert set(node) <= SUPPORTED_KEYS, set(node) - SUPPORTED_KEYS
        assert not isinstance(node.get("type"), list)
        if "enum" in node:
            assert node["type"] == "string"
    text = str(out)
    assert "$ref" not in text and "$defs" not in text and "additionalProperties" not in text


def test_gemini_nullable_union_and_recursion_fallback() -> None:
    person = to_gemini_schema(Person.model_json_schema())
    assert person["properties"]["age"] == {"type": "integer", "nullable": True, "title": "Age"}
    assert person["properties"]["color"]["enum"] == ["red", "blue"]
    assert person["properties"]["home"]["properties"]["zip"]["nullable"] is True
    assert [v["type"] for v in person["properties"]["value"]["anyOf"]] == ["integer", "string"]
    node = Node.model_json_schema()
    assert is_recursive(node)
    out = to_gemini_schema(node, max_depth=2)
    deep = out
    for _ in range(3):
        deep = deep["properties"]["children"]["items"]
    assert deep["type"] == "object" and "depth limit" in deep["description"]


def test_inline_refs_without_recursion() -> None:
    out = inline_refs(Person.model_json_schema())
    assert out["properties"]["home"]["properties"]["street"]["type"] == "string"
