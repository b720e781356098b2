"""Tools built from a JSON schema validate their arguments against it."""

from __future__ import annotations

from typing import Any

import pytest

from good_agent import Tool, ToolArgumentsError, ToolDefinitionError

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "minLength": 1},
        "days": {"type": "integer", "minimum": 1, "maximum": 14},
        "units": {"enum": ["metric", "imperial"]},
        "point": {"$ref": "#/$defs/Point"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
    },
    "required": ["city"],
    "additionalProperties": False,
    "$defs": {
        "Point": {
            "type": "object",
            "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
            "required": ["lat", "lon"],
        }
    },
}


@pytest.fixture
def forecast() -> Tool:
    return Tool.from_schema("forecast", SCHEMA, "Weather forecast.", lambda **kw: kw)


def test_signature_keeps_the_schema(forecast: Tool) -> None:
    assert forecast.signature["function"]["parameters"]["properties"] == SCHEMA["properties"]
    assert forecast.signature["function"]["description"] == "Weather forecast."


def test_valid_arguments_pass_unchanged(forecast: Tool) -> None:
    args = {"city": "Oslo", "days": 3, "point": {"lat": 1, "lon": 2.5}, "note": None}
    assert forecast.validate(args) == args


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({}, "city: field required"),
        ({"city": 5}, "city: expected string, got number 5"),
        ({"city": ""}, "city: must be at least 1 characters"),
        ({"city": "x", "days": 20}, "days: must be at most 14, got 20"),
        ({"city": "x", "days": 2.5}, "days: expected integer"),
        ({"city": "x", "days": True}, "days: expected integer, got boolean true"),
        ({"city": "x", "units": "si"}, 'units: expected one of "metric", "imperial", got "si"'),
        ({"city": "x", "point": {"lat": 1}}, "point.lon: field required"),
        ({"city": "x", "tags": ["a", 3]}, "tags[1]: expected string, got number 3"),
        ({"city": "x", "note": 3}, "note: 3 matches none of the allowed forms"),
        ({"city": "x", "zzz": 1}, "zzz: unexpected field"),
    ],
)
def test_invalid_arguments_are_explained(
    forecast: Tool, arguments: dict[str, Any], expected: str
) -> None:
    with pytest.raises(ToolArgumentsError) as info:
        forecast.validate(arguments)
    assert expected in str(info.value)
    assert str(info.value).startswith("invalid arguments for tool 'forecast'")


@pytest.mark.anyio
async def test_run_passes_arguments_as_keywords(forecast: Tool) -> None:
    assert await forecast.run({"city": "Oslo"}) == {"city": "Oslo"}


@pytest.mark.anyio
async def test_tool_without_function_refuses_to_run() -> None:
    t = Tool.from_schema("remote", {"type": "object", "properties": {}})
    with pytest.raises(ToolDefinitionError, match="no implementation"):
        await t.run({})


def test_bad_schemas_fail_at_build_time() -> None:
    with pytest.raises(ToolDefinitionError, match="must be a JSON object schema"):
        Tool.from_schema("x", {"type": "array"})
    with pytest.raises(ToolDefinitionError, match="does not resolve"):
        Tool.from_schema("x", {"type": "object", "properties": {"a": {"$ref": "#/$defs/Nope"}}})


def test_recursive_refs_validate() -> None:
    schema = {
        "type": "object",
        "properties": {"node": {"$ref": "#/$defs/Node"}},
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
            }
        },
    }
    t = Tool.from_schema("tree", schema)
    t.validate({"node": {"children": [{"children": []}]}})
    with pytest.raises(ToolArgumentsError, match=r"node.children\[0\].children: expected array"):
        t.validate({"node": {"children": [{"children": 1}]}})
