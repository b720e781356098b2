"""Undoing strict mode's nullable optionals on decoded arguments, at every depth.

Strict mode makes every property required and widens the optional ones to accept
``null``, so a strict model writes ``"zip": null`` for a field it leaves out. Before
the arguments are validated against the tool's own (non-strict) schema, those
``null`` values are removed wherever the original schema has an optional field:
at the top level, inside nested objects (``$ref`` to ``$defs`` included), inside
array items and inside ``anyOf`` variants.
"""

from __future__ import annotations

from typing import Any

from good_agent.providers.schema.normalize import object_root
from good_agent.providers.types import JSONDict

_MAX_DEPTH = 64


def drop_added_nulls(arguments: JSONDict, original: JSONDict | None) -> JSONDict:
    """``arguments`` without the ``null`` values strict mode forced for optional fields."""
    root = object_root(original)
    value = _strip(arguments, root, root, 0)
    return value if isinstance(value, dict) else arguments


def _resolve(schema: JSONDict, root: JSONDict) -> JSONDict:
    seen: set[str] = set()
    while isinstance(schema.get("$ref"), str) and schema["$ref"] not in seen:
        ref: str = schema["$ref"]
        seen.add(ref)
        target = _target(ref, root)
        if target is None:
            return schema
        schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


def _target(ref: str, root: JSONDict) -> JSONDict | None:
    if ref == "#":
        return root
    for key in ("$defs", "definitions"):
        prefix = f"#/{key}/"
        table = root.get(key)
        if ref.startswith(prefix) and isinstance(table, dict):
            found = table.get(ref[len(prefix) :])
            return found if isinstance(found, dict) else None
    return None


def _strip(value: Any, schema: JSONDict, root: JSONDict, depth: int) -> Any:
    if depth > _MAX_DEPTH:
        return value
    schema = _resolve(schema, root)
    if isinstance(value, dict):
        shape = _object_shape(value, schema, root)
        if shape is None:
            return value
        props: JSONDict = shape.get("properties") or {}
        required = set(shape.get("required") or [])
        out: JSONDict = {}
        for key, item in value.items():
            sub = props.get(key)
            if item is None and sub is not None and key not in required:
                continue
            out[key] = _strip(item, sub, root, depth + 1) if isinstance(sub, dict) else item
        return out
    if isinstance(value, list):
        items = _array_items(schema, root)
        if items is None:
            return value
        return [_strip(item, items, root, depth + 1) for item in value]
    return value


def _variants(schema: JSONDict, root: JSONDict) -> list[JSONDict]:
    found = [schema]
    for key in ("anyOf", "oneOf"):
        for variant in schema.get(key) or []:
            if isinstance(variant, dict):
                found.append(_resolve(variant, root))
    return found


def _object_shape(value: JSONDict, schema: JSONDict, root: JSONDict) -> JSONDict | None:
    """The object schema ``value`` was written for: the first whose properties cover it."""
    for variant in _variants(schema, root):
        props = variant.get("properties")
        if isinstance(props, dict) and set(value) <= set(props):
            return variant
    return None


def _array_items(schema: JSONDict, root: JSONDict) -> JSONDict | None:
    for variant in _variants(schema, root):
        items = variant.get("items")
        if isinstance(items, dict):
            return items
    return None
