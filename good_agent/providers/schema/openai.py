"""OpenAI tool schemas, with strict mode applied when the schema allows it.

Strict function calling (structured outputs) requires every object to list all its
properties in ``required`` and to set ``additionalProperties: false``; optional fields
are expressed as nullable instead. Only a subset of JSON Schema is accepted.

References:
https://platform.openai.com/docs/guides/function-calling#strict-mode and
https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from good_agent.providers.schema.normalize import object_root
from good_agent.providers.schema.walk import iter_schemas, map_children
from good_agent.providers.types import JSONDict

UNSUPPORTED_IN_STRICT = frozenset(
    {
        "allOf",
        "not",
        "if",
        "then",
        "else",
        "dependentRequired",
        "dependentSchemas",
        "patternProperties",
        "unevaluatedProperties",
        "unevaluatedItems",
        "propertyNames",
        "minProperties",
        "maxProperties",
        "contains",
        "minContains",
        "maxContains",
        "uniqueItems",
        "minLength",
        "maxLength",
        "prefixItems",
    }
)
"""Keywords that strict mode rejects (moved into the description when forcing strict)."""

_DROPPED_IN_STRICT = ("default", "examples", "$schema", "$id", "discriminator")


@dataclass(frozen=True, slots=True)
class StrictResult:
    """The outcome of :func:`to_openai_schema`.

    ``strict`` says whether the schema is strict-compatible and was made strict;
    ``problems`` lists why not, when it is not.
    """

    schema: JSONDict
    strict: bool
    problems: list[str] = field(default_factory=list)


def strict_problems(schema: JSONDict) -> list[str]:
    """Why ``schema`` cannot be made strict without losing meaning (empty: it can)."""
    problems: list[str] = []
    root = object_root(schema)
    if root.get("type") != "object":
        problems.append("the root is not an object")
    for node in iter_schemas(root):
        extra = node.get("additionalProperties")
        if isinstance(extra, dict) or (extra is True):
            problems.append("a free-form object (dict field) cannot be strict")
        if node.get("type") == "object" and "properties" not in node and extra is None:
            problems.append("an object without properties cannot be strict")
        bad = sorted(UNSUPPORTED_IN_STRICT.intersection(node))
        if bad:
            problems.append(f"unsupported keywords in strict mode: {', '.join(bad)}")
        siblings = set(node) - {"$ref", "description", "title", *_DROPPED_IN_STRICT}
        if "$ref" in node and siblings:
            problems.append("$ref with sibling keywords")
    return list(dict.fromkeys(problems))


def to_openai_schema(schema: JSONDict | None, strict: bool | None = None) -> StrictResult:
    """Transform a tool's parameters for OpenAI.

    ``strict`` is tri-state: ``None`` makes the schema strict when that loses
    nothing, ``True`` demands it (raising :class:`ValueError` listing the problems
    when the schema cannot be strict), ``False`` only normalizes.
    """
    root = object_root(schema)
    if strict is False:
        return StrictResult(root, False)
    problems = strict_problems(root)
    if problems:
        if strict:
            raise ValueError("schema cannot be made strict: " + "; ".join(problems))
        return StrictResult(root, False, problems)
    return StrictResult(make_strict(root), True)


def make_strict(schema: JSONDict) -> JSONDict:
    """Rewrite a strict-compatible schema into OpenAI's strict form (recursively)."""
    out = map_children(schema, make_strict)
    for key in _DROPPED_IN_STRICT:
        out.pop(key, None)
    if "oneOf" in out:
        out["anyOf"] = out.pop("oneOf")
    if "$ref" in out:
        return {"$ref": out["$ref"]}
    if out.get("type") == "object" or "properties" in out:
        props: JSONDict = out.get("properties") or {}
        required = set(out.get("required") or [])
        out["properties"] = {
            name: sub if name in required else make_nullable(sub) for name, sub in props.items()
        }
        out["required"] = list(props)
        out["additionalProperties"] = False
    return out


def make_nullable(schema: JSONDict) -> JSONDict:
    """Return ``schema`` widened to also accept ``null``."""
    kind = schema.get("type")
    if isinstance(kind, str) and "enum" not in schema:
        return {**schema, "type": [kind, "null"]} if kind != "null" else schema
    if isinstance(kind, list) and "enum" not in schema:
        return schema if "null" in kind else {**schema, "type": [*kind, "null"]}
    if isinstance(schema.get("anyOf"), list):
        variants: list[Any] = schema["anyOf"]
        if any(v.get("type") == "null" for v in variants if isinstance(v, dict)):
            return schema
        return {**schema, "anyOf": [*variants, {"type": "null"}]}
    return {"anyOf": [schema, {"type": "null"}]}


def nullable_optional_names(schema: JSONDict | None) -> set[str]:
    """Top-level property names that strict mode made required-but-nullable."""
    root = object_root(schema)
    props = root.get("properties") or {}
    required = set(root.get("required") or [])
    return {name for name in props if name not in required}


def drop_added_nulls(arguments: JSONDict, original: JSONDict | None) -> JSONDict:
    """Remove ``null`` values strict mode forced for fields that were optional."""
    optional = nullable_optional_names(original)
    return {k: v for k, v in arguments.items() if not (v is None and k in optional)}
