"""OpenAI's strict subset of JSON Schema, checked node by node.

Strict function calling and ``response_format`` with ``strict: true`` accept only
the schemas described under "Supported schemas" in OpenAI's structured-outputs
guide: the types ``string``, ``number``, ``integer``, ``boolean``, ``object``,
``array`` and ``null`` (also as a list of types), ``enum``, ``const``, ``anyOf``
and local ``$ref`` (to ``$defs``/``definitions``, recursion included); for strings
``pattern`` (without lookaround) and ``format`` (a fixed list of formats), for numbers ``minimum``,
``maximum``, ``exclusiveMinimum``, ``exclusiveMaximum`` and ``multipleOf``, for
arrays ``items``, ``minItems`` and ``maxItems``; objects with ``properties``,
``required`` and ``additionalProperties: false``; an object at the root; at most
5,000 properties, 10 levels of nesting and 1,000 enum values.

A schema is strict-compatible when every node is in that subset. Anything else (a
property with no ``type``, a free-form ``dict`` field, ``allOf``, ``minLength``,
an unknown keyword...) makes the schema non-strict, so the tool is sent without
``strict: true`` instead of being rejected by the API.

Reference: https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
"""

from __future__ import annotations

from typing import Any

from good_agent.providers.types import JSONDict

STRICT_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})
"""The JSON types strict mode accepts."""

STRING_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
"""The string ``format`` values strict mode accepts."""

COMMON_KEYS = frozenset({"type", "description", "title", "enum", "const", "anyOf", "oneOf"})
"""Keywords allowed on any node (``oneOf`` is rewritten to ``anyOf``)."""

_NUMERIC = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"})

TYPE_KEYS: dict[str, frozenset[str]] = {
    "string": frozenset({"pattern", "format"}),
    "number": _NUMERIC,
    "integer": _NUMERIC,
    "array": frozenset({"items", "minItems", "maxItems"}),
    "object": frozenset({"properties", "required", "additionalProperties"}),
    "boolean": frozenset(),
    "null": frozenset(),
}
"""Keywords allowed per type."""

ANNOTATIONS = frozenset(
    {
        "default",
        "examples",
        "$schema",
        "$id",
        "$comment",
        "discriminator",
        "deprecated",
        "readOnly",
        "writeOnly",
    }
)
"""Annotation keywords removed when a schema is made strict (they carry no constraint)."""

ROOT_KEYS = frozenset({"$defs", "definitions"})
"""Keywords allowed at the root only."""

MAX_PROPERTIES = 5000
MAX_DEPTH = 10
MAX_ENUM_VALUES = 1000


def strict_subset_problems(schema: JSONDict) -> list[str]:
    """Why ``schema`` (already normalized) is outside OpenAI's strict subset (empty: inside)."""
    checker = _Checker(schema)
    if schema.get("type") != "object":
        checker.add("the root is not an object")
    checker.node(schema, "#", depth=0, root=True)
    for key in ROOT_KEYS:
        table = schema.get(key)
        if isinstance(table, dict):
            for name, sub in table.items():
                checker.node(sub, f"#/{key}/{name}", depth=0)
    if checker.properties > MAX_PROPERTIES:
        checker.add(f"more than {MAX_PROPERTIES} properties")
    if checker.enum_values > MAX_ENUM_VALUES:
        checker.add(f"more than {MAX_ENUM_VALUES} enum values")
    return list(dict.fromkeys(checker.problems))


class _Checker:
    def __init__(self, root: JSONDict) -> None:
        self.root = root
        self.problems: list[str] = []
        self.properties = 0
        self.enum_values = 0

    def add(self, problem: str) -> None:
        self.problems.append(problem)

    def node(self, node: Any, path: str, *, depth: int, root: bool = False) -> None:
        if not isinstance(node, dict):
            self.add(f"{path}: not a schema object")
            return
        if depth > MAX_DEPTH:
            self.add(f"{path}: more than {MAX_DEPTH} levels of nesting")
            return
        if "$ref" in node:
            self.ref(node, path)
            return
        keys = set(node) - ANNOTATIONS - (ROOT_KEYS if root else frozenset())
        variants = node.get("anyOf", node.get("oneOf"))
        types = self.types(node, path)
        allowed = set(COMMON_KEYS)
        for kind in types or ():
            allowed |= TYPE_KEYS[kind]
        unsupported = sorted(keys - allowed)
        if unsupported:
            self.add(f"{path}: unsupported keywords in strict mode: {', '.join(unsupported)}")
        if types is None and variants is None:
            self.add(f"{path}: a schema with no type")
            return
        if "anyOf" in node and "oneOf" in node:
            self.add(f"{path}: both anyOf and oneOf")
        if isinstance(node.get("enum"), list):
            self.enum_values += len(node["enum"])
        fmt = node.get("format")
        if fmt is not None and fmt not in STRING_FORMATS:
            self.add(f"{path}: string format {fmt!r} is not supported in strict mode")
        pattern = node.get("pattern")
        if pattern is not None and (not isinstance(pattern, str) or has_lookaround(pattern)):
            self.add(f"{path}: a pattern with lookaround is not supported in strict mode")
        if isinstance(variants, list):
            for index, variant in enumerate(variants):
                self.node(variant, f"{path}/anyOf/{index}", depth=depth)
        elif variants is not None:
            self.add(f"{path}: anyOf is not a list")
        if "object" in (types or ()):
            self.object(node, path, depth)
        if "array" in (types or ()):
            items = node.get("items")
            if items is None:
                self.add(f"{path}: an array with no items schema")
            else:
                self.node(items, f"{path}/items", depth=depth + 1)

    def types(self, node: JSONDict, path: str) -> list[str] | None:
        kind = node.get("type")
        if kind is None:
            return None
        names = kind if isinstance(kind, list) else [kind]
        unknown = [str(n) for n in names if n not in STRICT_TYPES]
        if unknown or not names:
            self.add(f"{path}: type {kind!r} is not a strict type")
            return [n for n in names if n in STRICT_TYPES]
        return list(names)

    def object(self, node: JSONDict, path: str, depth: int) -> None:
        extra = node.get("additionalProperties")
        if extra not in (None, False):
            self.add(f"{path}: a free-form object (dict field) cannot be strict")
        props = node.get("properties")
        if props is None:
            if extra is None:
                self.add(f"{path}: an object without properties cannot be strict")
            return
        if not isinstance(props, dict):
            self.add(f"{path}: properties is not an object")
            return
        self.properties += len(props)
        for name, sub in props.items():
            self.node(sub, f"{path}/properties/{name}", depth=depth + 1)

    def ref(self, node: JSONDict, path: str) -> None:
        ref = node["$ref"]
        siblings = set(node) - {"$ref", "description", "title"} - ANNOTATIONS
        if siblings:
            self.add(f"{path}: $ref with sibling keywords")
        if not isinstance(ref, str) or not _is_local(ref, self.root):
            self.add(f"{path}: $ref {ref!r} does not point into this schema's $defs")


_LOOKAROUND = ("(?=", "(?!", "(?<=", "(?<!")


def has_lookaround(pattern: str) -> bool:
    """Whether a regular expression uses lookahead or lookbehind (escapes respected)."""
    escaped = False
    for index, char in enumerate(pattern):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "(" and pattern.startswith(_LOOKAROUND, index):
            return True
    return False


def _is_local(ref: str, root: JSONDict) -> bool:
    if ref == "#":
        return True
    for key in ROOT_KEYS:
        prefix = f"#/{key}/"
        table = root.get(key)
        if ref.startswith(prefix) and isinstance(table, dict) and ref[len(prefix) :] in table:
            return True
    return False
