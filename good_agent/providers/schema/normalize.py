"""Lenient normalization of the non-standard type names found in real tool definitions.

Hand-written tool schemas often say ``"type": "dict"`` or ``"float"``; some omit the
``type`` of an object that has ``properties``. `normalize_schema` rewrites them
into standard JSON Schema before any provider transformer runs.
"""

from __future__ import annotations

from typing import Any

from good_agent.providers.schema.walk import map_children
from good_agent.providers.types import JSONDict

TYPE_ALIASES: dict[str, str | None] = {
    "object": "object",
    "dict": "object",
    "map": "object",
    "mapping": "object",
    "hashmap": "object",
    "struct": "object",
    "array": "array",
    "list": "array",
    "tuple": "array",
    "set": "array",
    "sequence": "array",
    "arraylist": "array",
    "string": "string",
    "str": "string",
    "text": "string",
    "char": "string",
    "number": "number",
    "float": "number",
    "double": "number",
    "decimal": "number",
    "integer": "integer",
    "int": "integer",
    "long": "integer",
    "short": "integer",
    "byte": "integer",
    "bigint": "integer",
    "boolean": "boolean",
    "bool": "boolean",
    "null": "null",
    "none": "null",
    "nonetype": "null",
    "any": None,
    "object_any": None,
}
"""Lower-cased type names mapped to JSON Schema types (``None``: no type constraint)."""


def normalize_type(name: Any) -> str | None:
    """Map one type name to its JSON Schema spelling; unknown names are kept."""
    if not isinstance(name, str):
        return None
    key = name.strip().lower()
    if key in TYPE_ALIASES:
        return TYPE_ALIASES[key]
    return name


def normalize_schema(schema: JSONDict) -> JSONDict:
    """Return ``schema`` with type names standardized, recursively.

    ``dict`` becomes ``object``, ``float`` ``number``, ``tuple`` and ``list``
    ``array``, ``int``, ``str``, ``bool`` their standard names, ``any`` removes the
    type, and an object with ``properties`` but no ``type`` gets ``"type": "object"``.
    """
    out = map_children(schema, normalize_schema)
    if "type" in out:
        raw = out["type"]
        if isinstance(raw, list):
            names = [t for t in (normalize_type(item) for item in raw) if t is not None]
            if len(names) != len(raw):
                del out["type"]
            else:
                unique = list(dict.fromkeys(names))
                out["type"] = unique[0] if len(unique) == 1 else unique
        else:
            mapped = normalize_type(raw)
            if mapped is None:
                del out["type"]
            else:
                out["type"] = mapped
    elif isinstance(out.get("properties"), dict):
        out["type"] = "object"
    if isinstance(out.get("required"), list):
        out["required"] = [name for name in out["required"] if isinstance(name, str)]
    return out


def object_root(schema: JSONDict | None) -> JSONDict:
    """Normalize a tool's parameters and make sure the root is an object schema."""
    if not schema:
        return {"type": "object", "properties": {}}
    out = normalize_schema(schema)
    ref = out.get("$ref")
    if isinstance(ref, str) and "type" not in out:
        target = _local_definition(out, ref)
        if target is not None:
            out = {**{k: v for k, v in out.items() if k != "$ref"}, **target}
    if out.get("type") == "object":
        return out
    if "type" not in out and not any(k in out for k in ("anyOf", "oneOf", "allOf", "$ref")):
        out["type"] = "object"
        out.setdefault("properties", {})
        return out
    return out


def _local_definition(schema: JSONDict, ref: str) -> JSONDict | None:
    for key in ("$defs", "definitions"):
        prefix = f"#/{key}/"
        table = schema.get(key)
        if ref.startswith(prefix) and isinstance(table, dict):
            target = table.get(ref[len(prefix) :])
            return dict(target) if isinstance(target, dict) else None
    return None
