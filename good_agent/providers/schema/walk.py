"""Helpers to visit and rebuild every subschema of a JSON Schema."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from good_agent.providers.types import JSONDict

SchemaFn = Callable[[JSONDict], JSONDict]

_SINGLE = (
    "items",
    "additionalProperties",
    "not",
    "contains",
    "propertyNames",
    "if",
    "then",
    "else",
)
_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_MAPS = ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas")


def map_children(schema: JSONDict, fn: SchemaFn) -> JSONDict:
    """Return a copy of ``schema`` with ``fn`` applied to each direct subschema."""
    out: JSONDict = dict(schema)
    for key in _SINGLE:
        value = schema.get(key)
        if isinstance(value, dict):
            out[key] = fn(value)
    for key in _LISTS:
        value = schema.get(key)
        if isinstance(value, list):
            out[key] = [fn(item) if isinstance(item, dict) else item for item in value]
    for key in _MAPS:
        value = schema.get(key)
        if isinstance(value, dict):
            out[key] = {
                name: fn(sub) if isinstance(sub, dict) else sub for name, sub in value.items()
            }
    return out


def iter_schemas(schema: Any) -> list[JSONDict]:
    """Every subschema of ``schema``, itself included, depth first."""
    found: list[JSONDict] = []
    stack: list[Any] = [schema]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        found.append(node)
        for key in _SINGLE:
            if isinstance(node.get(key), dict):
                stack.append(node[key])
        for key in _LISTS:
            if isinstance(node.get(key), list):
                stack.extend(node[key])
        for key in _MAPS:
            if isinstance(node.get(key), dict):
                stack.extend(node[key].values())
    return found
