"""Schema rules on real tool definitions: the dialect at the root, OpenAI's strict subset
decided per tool, ``$ref`` in structured mode, and strict nulls removed at every depth."""

from __future__ import annotations

import json
from typing import Any, Optional

import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel

from good_agent.providers.codecs import get_codec
from good_agent.providers.openai import chat_codec as openai_chat
from good_agent.providers.openai import responses_codec as openai_responses
from good_agent.providers.openai.schema import strict_problems, to_openai_schema
from good_agent.providers.schema.normalize import TYPE_ALIASES
from good_agent.providers.strategies.structured import StructuredStrategy, response_format
from good_agent.providers.types import ChatRequest
from good_agent.tools.tool import Tool
from good_agent.types.errors import ToolDefinitionError


class Address(BaseModel):
    street: str
    zip: Optional[str] = None  # noqa: UP045


class Person(BaseModel):
    name: str
    home: Address
    previous: list[Address] = []


def function_tool(name: str, parameters: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": parameters}}


@pytest.mark.parametrize("root", ["dict", "Dict", "object", "map", None])
def test_from_schema_accepts_the_dialect_at_the_root(root: str | None) -> None:
    schema: dict[str, Any] = {
        "properties": {"x": {"type": "float"}, "tags": {"type": "tuple", "items": {"type": "str"}}},
        "required": ["x"],
    }
    if root is not None:
        schema["type"] = root
    tool = Tool.from_schema("math.area", schema)
    assert tool.parameters["type"] == "object"
    assert tool.parameters["properties"]["x"] == {"type": "number"}
    assert tool.validate({"x": 1.5, "tags": ["a"]}) == {"x": 1.5, "tags": ["a"]}
    with pytest.raises(ValueError, match="x"):
        tool.validate({"x": "wide"})


@pytest.mark.parametrize("alias", sorted(TYPE_ALIASES))
def test_every_known_dialect_type_is_accepted_at_every_depth(alias: str) -> None:
    standard = TYPE_ALIASES[alias]
    leaf = {"type": alias.upper() if len(alias) % 2 else alias}
    schema = {
        "type": "dict",
        "properties": {
            "plain": dict(leaf),
            "listed": {"type": "list", "items": dict(leaf)},
            "nested": {"type": "dict", "properties": {"deep": {"anyOf": [dict(leaf)]}}},
        },
    }
    tool = Tool.from_schema("pkg.tool", schema)
    props = tool.parameters["properties"]
    found = [
        props["plain"],
        props["listed"]["items"],
        props["nested"]["properties"]["deep"]["anyOf"][0],
    ]
    for node in found:
        assert node.get("type") == standard
    if standard == "object" or standard is None:
        root = Tool.from_schema("pkg.root", {"type": alias, "properties": {"a": leaf}})
        assert root.parameters["type"] == "object"


def test_from_schema_still_rejects_a_non_object_root() -> None:
    with pytest.raises(ToolDefinitionError, match="'float'"):
        Tool.from_schema("f", {"type": "float"})


@pytest.mark.parametrize(
    ("prop", "why"),
    [
        ({}, "no type"),
        ({"description": "anything"}, "no type"),
        ({"type": "any"}, "no type"),
        ({"type": "string", "format": "uri"}, "format"),
        ({"type": "string", "minLength": 2}, "minLength"),
        ({"type": "object"}, "without properties"),
        ({"type": "object", "additionalProperties": {"type": "integer"}}, "free-form"),
        ({"allOf": [{"type": "string"}]}, "allOf"),
        ({"type": "array"}, "no items"),
        ({"$ref": "https://example.com/schema.json"}, "$ref"),
        ({"type": "string", "pattern": "^(?!admin).*$"}, "lookaround"),
    ],
)
def test_constructs_outside_the_strict_subset_make_the_tool_non_strict(
    prop: dict[str, Any], why: str
) -> None:
    schema = {"type": "object", "properties": {"p": prop, "q": {"type": "integer"}}}
    result = to_openai_schema(schema)
    assert not result.strict
    assert any(why in problem for problem in result.problems), result.problems
    body = openai_chat.encode_request(
        "gpt-4o",
        ChatRequest([], tools=[function_tool("t", schema)], settings={"strict_tools": None}),
    )
    assert "strict" not in body["tools"][0]["function"]
    responses = openai_responses.encode_request(
        "gpt-4o",
        ChatRequest([], tools=[function_tool("t", schema)], settings={"strict_tools": None}),
    )
    assert responses["tools"][0]["strict"] is False


def test_patterns_without_lookaround_stay_strict() -> None:
    escaped = {"type": "string", "pattern": r"^\(?=x$"}
    plain = {"type": "string", "pattern": "^[a-z]+$"}
    for prop in (escaped, plain):
        assert to_openai_schema({"type": "object", "properties": {"p": prop}}).strict


def test_strict_is_decided_per_tool() -> None:
    good = function_tool("good", {"type": "object", "properties": {"a": {"type": "string"}}})
    bad = function_tool("bad", {"type": "object", "properties": {"a": {}}})
    body = openai_chat.encode_request(
        "gpt-4o", ChatRequest([], tools=[good, bad], settings={"strict_tools": None})
    )
    flags = [tool["function"].get("strict") for tool in body["tools"]]
    assert flags == [True, None]


def test_the_structured_response_format_is_strict_only_inside_the_subset() -> None:
    assert not strict_problems(Person.model_json_schema())
    fmt = response_format([function_tool("save.person", Person.model_json_schema())])
    assert fmt["json_schema"]["strict"] is True
    loose = response_format([function_tool("t", {"type": "object", "properties": {"a": {}}})])
    arguments = loose["json_schema"]["schema"]["properties"]["action"]["anyOf"][0]
    assert arguments["properties"]["arguments"]["type"] == "string"
    assert loose["json_schema"]["strict"] is True


def test_structured_refs_resolve_from_the_root_of_the_response_format() -> None:
    tools = [function_tool("save.person", Person.model_json_schema())]
    schema = response_format(tools)["json_schema"]["schema"]
    assert "$defs" in schema
    validator = Draft202012Validator(schema)
    reply = {
        "action": {
            "tool": "save.person",
            "arguments": {"name": "A", "home": {"street": "s", "zip": None}, "previous": None},
            "scratchpad": None,
        }
    }
    validator.validate(reply)
    bad = json.loads(json.dumps(reply))
    bad["action"]["arguments"]["home"] = {"street": 1, "zip": None}
    assert not validator.is_valid(bad)


def test_structured_mode_drops_nested_strict_nulls_before_validation() -> None:
    tool = Tool.from_function(_save)
    adapter = StructuredStrategy("gpt-4o", get_codec("openai_chat"))
    text = json.dumps(
        {
            "action": {
                "tool": "_save",
                "arguments": {
                    "person": {
                        "name": "A",
                        "home": {"street": "s", "zip": None},
                        "previous": [{"street": "t", "zip": None}],
                    }
                },
                "scratchpad": None,
            }
        }
    )
    reply = {"choices": [{"message": {"role": "assistant", "content": text}}]}
    call = adapter.decode(reply, [tool.signature]).tool_calls[0]
    assert call.arguments == {
        "person": {"name": "A", "home": {"street": "s"}, "previous": [{"street": "t"}]}
    }
    tool.validate(call.arguments or {})


def _save(person: Person) -> str:
    """Save a person."""
    return person.name


@pytest.mark.parametrize("codec", ["openai_chat", "openai_responses"])
def test_native_strict_drops_nested_nulls(codec: str) -> None:
    tool = function_tool("save.person", Person.model_json_schema())
    module = openai_chat if codec == "openai_chat" else openai_responses
    request = ChatRequest([], tools=[tool], settings={"strict_tools": None})
    names = module.tool_names(request)
    module.encode_request("gpt-4o", request, names)
    arguments = json.dumps({"name": "A", "home": {"street": "s", "zip": None}, "previous": None})
    if codec == "openai_chat":
        raw: dict[str, Any] = {
            "choices": [
                {
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "c1",
                                "type": "function",
                                "function": {"name": "save_person", "arguments": arguments},
                            }
                        ],
                    }
                }
            ]
        }
    else:
        raw = {
            "output": [
                {
                    "type": "function_call",
                    "call_id": "c1",
                    "name": "save_person",
                    "arguments": arguments,
                }
            ],
            "status": "completed",
        }
    call = module.decode_response(raw, names).tool_calls[0]
    assert call.name == "save.person"
    assert call.arguments == {"name": "A", "home": {"street": "s"}}
    Tool.from_schema("save.person", Person.model_json_schema()).validate(call.arguments or {})


def test_structured_defs_of_tools_with_similar_names_do_not_collide() -> None:
    class Address(BaseModel):  # the same $defs name as Person's, another shape
        code: int

    class Wrapper(BaseModel):
        home: Address

    tools = [
        function_tool("a b", Person.model_json_schema()),
        function_tool("a_b", Wrapper.model_json_schema()),
    ]
    schema = response_format(tools)["json_schema"]["schema"]
    validator = Draft202012Validator(schema)
    person = {"name": "A", "home": {"street": "s", "zip": None}, "previous": None}
    validator.validate({"action": {"tool": "a b", "arguments": person, "scratchpad": None}})
    wrapped = {"home": {"code": 1}}
    validator.validate({"action": {"tool": "a_b", "arguments": wrapped, "scratchpad": None}})


def test_a_described_reference_keeps_its_description_in_strict_mode() -> None:
    schema = {
        "type": "object",
        "properties": {"home": {"$ref": "#/$defs/Address", "description": "Where they live."}},
        "required": ["home"],
        "$defs": {"Address": Address.model_json_schema()},
    }
    result = to_openai_schema(schema)
    assert result.strict
    home = result.schema["properties"]["home"]
    assert home == {"anyOf": [{"$ref": "#/$defs/Address"}], "description": "Where they live."}
    Draft202012Validator(result.schema).validate({"home": {"street": "s", "zip": None}})
