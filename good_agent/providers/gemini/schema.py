"""Gemini function-declaration schemas: the OpenAPI 3.0 subset Gemini accepts.

Gemini's ``Schema`` object supports ``type`` (a single type, with ``nullable``),
``format``, ``description``, ``enum`` (strings), ``properties``, ``required``,
``items``, ``anyOf``, ``minItems``/``maxItems``, ``minimum``/``maximum``,
``minLength``/``maxLength``, ``pattern``, ``title``, ``default`` and
``propertyOrdering``. This transformer inlines ``$ref``/``$defs`` (unrolling
recursive models to a fixed depth), turns type lists into ``nullable``, ``oneOf``
into ``anyOf``, ``const`` into a one-value ``enum``, and drops
``additionalProperties`` and other unsupported keywords, noting the lost
constraints in the description so the model still reads them.

References:
https://ai.google.dev/gemini-api/docs/function-calling and
https://ai.google.dev/api/caching#Schema
"""

from __future__ import annotations

from typing import Any

from good_agent.providers.schema.normalize import object_root
from good_agent.providers.schema.refs import inline_refs
from good_agent.providers.types import JSONDict

SUPPORTED_KEYS = frozenset(
    {
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "properties",
        "required",
        "items",
        "anyOf",
        "minItems",
        "maxItems",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "pattern",
        "default",
        "propertyOrdering",
        "minProperties",
        "maxProperties",
        "example",
    }
)
"""Schema keywords Gemini accepts in function declarations."""

_FORMATS = {
    "string": {"enum", "date-time"},
    "integer": {"int32", "int64"},
    "number": {"float", "double"},
}
_NOTED = ("exclusiveMinimum", "exclusiveMaximum", "multipleOf", "uniqueItems", "format")


def to_gemini_schema(schema: JSONDict | None, *, max_depth: int = 2) -> JSONDict:
    """Transform a tool's parameters into Gemini's schema subset."""
    root = inline_refs(object_root(schema), max_depth=max_depth)
    return _convert(root)


def _convert(schema: JSONDict) -> JSONDict:
    node = dict(schema)
    notes: list[str] = []
    node = _merge_all_of(node)
    if "const" in node:
        node["enum"] = [node.pop("const")]
    if "oneOf" in node:
        node["anyOf"] = node.pop("oneOf")
    nullable = False
    kind = node.get("type")
    if isinstance(kind, list):
        nullable = "null" in kind
        rest = [t for t in kind if t != "null"]
        if len(rest) == 1:
            node["type"] = rest[0]
        elif rest:
            del node["type"]
            node["anyOf"] = [{"type": t} for t in rest]
        else:
            node["type"] = "null"
    if isinstance(node.get("anyOf"), list):
        variants = [v for v in node["anyOf"] if isinstance(v, dict)]
        kept = [v for v in variants if v.get("type") != "null"]
        nullable = nullable or len(kept) != len(variants)
        if len(kept) == 1:
            del node["anyOf"]
            merged = {**kept[0], **{k: v for k, v in node.items() if k != "type"}}
            node = _convert(merged)
            if nullable:
                node["nullable"] = True
            return node
        node["anyOf"] = [_convert(v) for v in kept]
    if node.get("type") == "null":
        node.pop("type")
        nullable = True
    if "enum" in node:
        node = _enum(node, notes)
    fmt = node.get("format")
    if fmt is not None and fmt not in _FORMATS.get(str(node.get("type")), set()):
        node.pop("format")
        notes.append(f"format: {fmt}")
    for key in _NOTED:
        if key in node and key != "format":
            notes.append(f"{key}: {node.pop(key)}")
    extra = node.pop("additionalProperties", None)
    if isinstance(extra, dict) and extra:
        notes.append("an object whose values follow: " + _brief(extra))
    if isinstance(node.get("properties"), dict):
        node["properties"] = {k: _convert(v) for k, v in node["properties"].items()}
        node.setdefault("type", "object")
        required = [r for r in node.get("required") or [] if r in node["properties"]]
        if required:
            node["required"] = required
        else:
            node.pop("required", None)
    if isinstance(node.get("items"), dict):
        node["items"] = _convert(node["items"])
    elif isinstance(node.get("prefixItems"), list):
        items = [_convert(v) for v in node["prefixItems"] if isinstance(v, dict)]
        node["items"] = items[0] if len(items) == 1 else {"anyOf": items}
    if nullable:
        node["nullable"] = True
    if "default" in node and node["default"] is None:
        del node["default"]
    node = {k: v for k, v in node.items() if k in SUPPORTED_KEYS}
    if notes:
        text = "; ".join(notes)
        node["description"] = f"{node['description']} ({text})" if node.get("description") else text
    return node


def _merge_all_of(node: JSONDict) -> JSONDict:
    parts = node.pop("allOf", None)
    if not isinstance(parts, list):
        return node
    merged: JSONDict = {}
    for part in parts:
        if isinstance(part, dict):
            for key, value in part.items():
                if key == "properties" and isinstance(value, dict):
                    merged.setdefault("properties", {}).update(value)
                elif key == "required" and isinstance(value, list):
                    merged.setdefault("required", []).extend(value)
                else:
                    merged[key] = value
    return {**merged, **node}


def _enum(node: JSONDict, notes: list[str]) -> JSONDict:
    values: list[Any] = list(node["enum"])
    if None in values:
        values = [v for v in values if v is not None]
        node["nullable"] = True
    if all(isinstance(v, str) for v in values):
        node["enum"] = values
        node["type"] = "string"
        node["format"] = "enum"
    else:
        del node["enum"]
        notes.append("one of: " + ", ".join(repr(v) for v in values))
    return node


def _brief(schema: JSONDict) -> str:
    kind = schema.get("type")
    return str(kind) if kind else "any schema"


_CAMEL = {
    "property_ordering": "propertyOrdering",
    "any_of": "anyOf",
    "min_items": "minItems",
    "max_items": "maxItems",
    "min_length": "minLength",
    "max_length": "maxLength",
    "min_properties": "minProperties",
    "max_properties": "maxProperties",
}
_DROPPED_BACK = frozenset({"nullable", "propertyOrdering", "example"})


def from_gemini_schema(schema: Any) -> Any:
    """A Gemini ``Schema`` object (types in upper or lower case, ``nullable``,
    ``format: enum``, snake_case or camelCase keys) as the JSON Schema it means.

    The inverse of `to_gemini_schema`, for requests written in Gemini's
    dialect: ``{"type": "STRING", "nullable": true}`` becomes
    ``{"type": ["string", "null"]}``. Values that are not objects are returned as
    they are (the caller's schema checks then name them).
    """
    if not isinstance(schema, dict):
        return schema
    node = {_CAMEL.get(str(key)) or str(key): value for key, value in schema.items()}
    out: JSONDict = {k: v for k, v in node.items() if k not in _DROPPED_BACK}
    kind = node.get("type")
    if isinstance(kind, str):
        lowered = kind.lower()
        if lowered == "type_unspecified":
            out.pop("type")
        else:
            out["type"] = lowered
    if out.get("format") == "enum":
        out.pop("format")
    if isinstance(node.get("properties"), dict):
        out["properties"] = {k: from_gemini_schema(v) for k, v in node["properties"].items()}
    if "items" in node:
        out["items"] = from_gemini_schema(node["items"])
    if isinstance(node.get("anyOf"), list):
        out["anyOf"] = [from_gemini_schema(v) for v in node["anyOf"]]
    if node.get("nullable") is True:
        if isinstance(out.get("type"), str):
            out["type"] = [out["type"], "null"]
        elif "anyOf" in out:
            out["anyOf"] = [*out["anyOf"], {"type": "null"}]
        if isinstance(out.get("enum"), list) and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
    return out
