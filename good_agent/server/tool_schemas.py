"""Checking a client's tool parameter schema before it is used.

A tool schema is checked when the request arrives, so a bad one is a 400 naming
the keyword rather than a crash when the model's call is validated later:

* nesting is bounded (`MAX_SCHEMA_DEPTH` levels of objects and arrays), so
  the recursive stages after it (strict-mode transforms, the argument validator)
  cannot exhaust the stack;
* every keyword of JSON Schema 2020-12 (and draft-07's ``definitions``,
  ``dependencies`` and array-form ``items``) has the type its metaschema requires:
  ``properties`` an object of schemas, ``maxLength`` a non-negative integer,
  ``type`` a type name or a list of them, ``pattern`` a regular expression that
  compiles, and so on; unknown keywords are allowed, as the metaschema allows them;
* the schema then compiles with the validator the bridge checks calls with
  (local ``$ref`` values only).

The walk is iterative and linear in the schema's size; a schema accepted once is
remembered, since clients send the same tools on every turn.

Reference: https://json-schema.org/draft/2020-12/json-schema-core and
https://json-schema.org/draft/2020-12/json-schema-validation
"""

from __future__ import annotations

import math
import re
from collections import OrderedDict
from typing import Any

from pydantic_core import to_json

from good_agent.providers.schema_validation import compile_schema
from good_agent.server.common.errors import bad_request

MAX_SCHEMA_DEPTH = 64
"""The deepest nesting of objects and arrays a tool's parameter schema may have."""

# Clients send the same tools on every turn: schemas already accepted are
# remembered (the most recent 1,024 of up to 16,000 characters each).
_ACCEPTED: OrderedDict[bytes, None] = OrderedDict()
_CACHED_SCHEMAS = 1024
_CACHED_SCHEMA_CHARS = 16_000

_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})
_ONE_SCHEMA = frozenset(
    {
        "additionalProperties",
        "additionalItems",
        "contains",
        "not",
        "if",
        "then",
        "else",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
        "contentSchema",
    }
)
_SCHEMA_MAPS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)
_SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_COUNTS = frozenset(
    {
        "maxLength",
        "minLength",
        "maxItems",
        "minItems",
        "maxProperties",
        "minProperties",
        "maxContains",
        "minContains",
    }
)
_NUMBERS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"})
_STRINGS = frozenset(
    {
        "$ref",
        "$id",
        "$schema",
        "$anchor",
        "$dynamicRef",
        "$dynamicAnchor",
        "$comment",
        "title",
        "description",
        "format",
        "contentEncoding",
        "contentMediaType",
    }
)
_BOOLEANS = frozenset({"uniqueItems", "readOnly", "writeOnly", "deprecated", "nullable"})


def check_tool_schema(schema: Any, param: str) -> None:
    """Check a tool's parameter schema (``None`` means no parameters); a 400 names
    the offending keyword in ``param`` otherwise."""
    if schema is None:
        return
    if not isinstance(schema, dict):
        raise bad_request(f"{param} must be a JSON Schema object", param)
    if schema.get("type", "object") != "object":
        raise bad_request(f"{param} must have type 'object', got {schema.get('type')!r}", param)
    key = _key_text(schema)
    if key is not None and key in _ACCEPTED:
        _ACCEPTED.move_to_end(key)
        return
    found = schema_problem(schema) or ref_loop(schema)
    if found is not None:
        path, problem = found
        raise bad_request(f"{param}{path} {problem}", f"{param}{path}")
    try:
        compile_schema(schema)
    except (ValueError, TypeError, KeyError, RecursionError) as exc:
        raise bad_request(f"{param} is not a valid JSON Schema: {exc}", param) from None
    if key is not None and len(key) <= _CACHED_SCHEMA_CHARS:
        _ACCEPTED[key] = None
        if len(_ACCEPTED) > _CACHED_SCHEMAS:
            _ACCEPTED.popitem(last=False)


def _key_text(schema: dict[str, Any]) -> bytes | None:
    """The cache key of a schema: its JSON text, written by pydantic-core (a schema
    from a request body holds nothing it cannot write; one that does is not cached)."""
    try:
        return to_json(schema)
    except ValueError:
        return None


def check_output_schema(schema: Any, param: str) -> None:
    """Check a ``response_format`` JSON Schema (any root type); a 400 names the keyword."""
    if not isinstance(schema, dict | bool):
        raise bad_request(f"{param} must be a JSON Schema object", param)
    found = schema_problem(schema) or (ref_loop(schema) if isinstance(schema, dict) else None)
    if found is not None:
        path, problem = found
        raise bad_request(f"{param}{path} {problem}", f"{param}{path}")


def schema_problem(schema: Any) -> tuple[str, str] | None:
    """The path (``.properties.a.maxLength``) and description of the first problem
    in ``schema``, or ``None`` when it is a usable JSON Schema."""
    # Each entry: path, value, depth, whether the value is a schema (or plain data).
    stack: list[tuple[str, Any, int, bool]] = [("", schema, 1, True)]
    while stack:
        path, node, depth, is_schema = stack.pop()
        if isinstance(node, dict | list) and depth > MAX_SCHEMA_DEPTH:
            return path, f"is nested more than {MAX_SCHEMA_DEPTH} levels deep"
        if not is_schema:
            if isinstance(node, float) and not math.isfinite(node):
                return path, "must be a finite number"
            if isinstance(node, dict | list):
                children = node.items() if isinstance(node, dict) else enumerate(node)
                for key, child in children:
                    stack.append((_join(path, key), child, depth + 1, False))
            continue
        if isinstance(node, bool):
            continue
        if not isinstance(node, dict):
            return path, "must be a schema (an object or a boolean)"
        for key, value in node.items():
            where = _join(path, key)
            problem = _keyword_problem(key, value)
            if problem is not None:
                return where, problem
            for sub_path, child, child_is_schema, levels in _children(key, value, where):
                stack.append((sub_path, child, depth + levels, child_is_schema))
    return None


_LOOP = "leads into a loop of references that never steps into the value"
_SAME_VALUE = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else")
"""Keywords whose schemas apply to the same value (no step into it)."""


def ref_loop(schema: dict[str, Any]) -> tuple[str, str] | None:
    """The path of a ``$ref`` that leads into a loop which never steps into the
    value (``{"$ref": "#"}`` at the root, two ``$defs`` naming each other), which
    would make validating any value recurse forever; ``None`` when there is none.

    Depth-first over the schemas that apply to one value, linear in their number.
    """
    visiting: set[int] = set()
    done: set[int] = set()
    for start_path, start in _all_schemas(schema):
        # Each entry: path, schema, and whether its children were pushed already.
        stack: list[tuple[str, Any, bool]] = [(start_path, start, False)]
        while stack:
            path, node, expanded = stack.pop()
            if not isinstance(node, dict):
                continue
            key = id(node)
            if expanded:
                visiting.discard(key)
                done.add(key)
                continue
            if key in done:
                continue
            if key in visiting:
                return f"{start_path}.$ref", _LOOP
            visiting.add(key)
            stack.append((path, node, True))
            for child_path, child in _same_value(schema, node, path):
                if id(child) in visiting:
                    return f"{start_path}.$ref", _LOOP
                stack.append((child_path, child, False))
    return None


def _same_value(root: dict[str, Any], node: dict[str, Any], path: str) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    ref = node.get("$ref")
    if isinstance(ref, str):
        target = _resolve(root, ref)
        if target is not None:
            out.append((f"{path}.$ref", target))
    for key in _SAME_VALUE:
        value = node.get(key)
        if isinstance(value, dict):
            out.append((f"{path}.{key}", value))
        elif isinstance(value, list):
            out.extend((f"{path}.{key}[{i}]", item) for i, item in enumerate(value))
    return out


def _resolve(root: dict[str, Any], pointer: str) -> Any:
    if not pointer.startswith("#"):
        return None
    node: Any = root
    for part in [p for p in pointer[1:].split("/") if p]:
        key = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def _all_schemas(schema: dict[str, Any]) -> list[tuple[str, Any]]:
    """Every subschema holding a ``$ref``, with its path (the starts of possible loops)."""
    found: list[tuple[str, Any]] = []
    stack: list[tuple[str, Any, bool]] = [("", schema, True)]
    while stack:
        path, node, is_schema = stack.pop()
        if not is_schema or not isinstance(node, dict):
            continue
        if "$ref" in node:
            found.append((path, node))
        for key, value in node.items():
            for sub_path, child, child_is_schema, _ in _children(key, value, _join(path, key)):
                stack.append((sub_path, child, child_is_schema))
    return found


def _join(path: str, key: Any) -> str:
    return f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}"


def _keyword_problem(key: str, value: Any) -> str | None:
    if key in _ONE_SCHEMA:
        return None if isinstance(value, dict | bool) else "must be a schema"
    if key in _SCHEMA_MAPS:
        return None if isinstance(value, dict) else "must be an object of schemas"
    if key in _SCHEMA_LISTS:
        if not isinstance(value, list) or not value:
            return "must be a non-empty array of schemas"
        return None
    if key == "items":
        return None if isinstance(value, dict | bool | list) else "must be a schema"
    if key in _COUNTS:
        if isinstance(value, bool) or not _is_integer(value) or value < 0:
            return f"must be a non-negative integer, got {value!r}"
        return None
    if key in _NUMBERS or key == "multipleOf":
        if isinstance(value, bool) or not isinstance(value, int | float):
            return f"must be a number, got {value!r}"
        if not math.isfinite(value):
            return "must be a finite number"
        if key == "multipleOf" and value <= 0:
            return f"must be greater than 0, got {value!r}"
        return None
    if key in _STRINGS:
        return None if isinstance(value, str) else f"must be a string, got {value!r}"
    if key in _BOOLEANS:
        return None if isinstance(value, bool) else f"must be a boolean, got {value!r}"
    if key == "type":
        return _type_problem(value)
    if key == "required":
        if not _names(value) or len(set(value)) != len(value):
            return "must be an array of distinct property names"
        return None
    if key == "pattern":
        if not isinstance(value, str):
            return f"must be a string, got {value!r}"
        try:
            re.compile(value)
        except re.error as exc:
            return f"is not a valid regular expression: {exc}"
        return None
    if key in ("enum", "examples"):
        return None if isinstance(value, list) else "must be an array"
    if key == "dependentRequired":
        if not isinstance(value, dict) or not all(_names(v) for v in value.values()):
            return "must be an object of arrays of property names"
        return None
    if key == "dependencies":
        if not isinstance(value, dict) or not all(
            isinstance(v, dict | bool)
            or (isinstance(v, list) and all(isinstance(n, str) for n in v))
            for v in value.values()
        ):
            return "must be an object of schemas or arrays of property names"
        return None
    return None


def _names(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(name, str) for name in value)


def _type_problem(value: Any) -> str | None:
    names = value if isinstance(value, list) else [value]
    if not names or not all(isinstance(name, str) and name in _TYPES for name in names):
        known = ", ".join(sorted(_TYPES))
        return f"must be a type name ({known}) or an array of them, got {value!r}"
    if len(set(names)) != len(names):
        return "must not repeat a type name"
    return None


def _is_integer(value: Any) -> bool:
    return isinstance(value, int) or (
        isinstance(value, float) and math.isfinite(value) and value.is_integer()
    )


def _children(key: str, value: Any, where: str) -> list[tuple[str, Any, bool, int]]:
    """The values under keyword ``key`` to walk next: path, value, whether it is a
    schema, and how many levels of nesting down it sits."""
    if key in _ONE_SCHEMA or (key == "items" and not isinstance(value, list)):
        return [(where, value, True, 1)]
    if key in _SCHEMA_MAPS:
        return [(_join(where, name), child, True, 2) for name, child in value.items()]
    if key in _SCHEMA_LISTS or key == "items":
        return [(_join(where, index), child, True, 2) for index, child in enumerate(value)]
    if key == "dependencies":
        return [
            (_join(where, name), child, isinstance(child, dict | bool), 2)
            for name, child in value.items()
        ]
    if isinstance(value, dict | list):
        return [(where, value, False, 1)]
    return []
