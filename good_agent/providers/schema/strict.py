"""The strict form of a tool schema, applied when the schema allows it.

Strict function calling (structured outputs) requires every object to list all its
properties in ``required`` and to set ``additionalProperties: false``; optional fields
are expressed as nullable instead. Only a subset of JSON Schema is accepted
(`.strict_subset`). The form is OpenAI's (its dialect,
`good_agent.providers.openai.schema`, is this one), and it is also what typed
output and the structured strategy send to every vendor, so it lives here, beside
the other shared transformations.

References:
https://platform.openai.com/docs/guides/function-calling#strict-mode and
https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
"""

from __future__ import annotations

import json
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from good_agent.providers.schema.normalize import object_root
from good_agent.providers.schema.strict_subset import ANNOTATIONS, strict_subset_problems
from good_agent.providers.schema.walk import map_children
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
"""Keywords of JSON Schema that strict mode rejects (each makes a schema non-strict)."""

_DROPPED_IN_STRICT = tuple(sorted(ANNOTATIONS))


@dataclass(frozen=True, slots=True)
class StrictResult:
    """The outcome of `to_strict_schema`.

    ``strict`` says whether the schema is strict-compatible and was made strict;
    ``problems`` lists why not, when it is not.
    """

    schema: JSONDict
    strict: bool
    problems: list[str] = field(default_factory=list)


def strict_problems(schema: JSONDict) -> list[str]:
    """Why ``schema`` cannot be made strict without losing meaning (empty: it can).

    The schema is normalized first (non-standard type names fixed), then checked
    against OpenAI's strict subset (`.strict_subset`).
    """
    return strict_subset_problems(object_root(schema))


# The same tools come with every request of a conversation (and every request
# through the bridge): results are remembered by the schema's JSON text, keys in
# their order (the order of the output's properties and ``required`` follows it),
# the most recent 1,024 of up to 64,000 characters each.
_RESULTS: OrderedDict[tuple[str, bool | None], StrictResult] = OrderedDict()
_CACHED_RESULTS = 1_024
_CACHED_RESULT_CHARS = 64_000
_KEY_TEXT = json.JSONEncoder(separators=(",", ":")).encode
"""The cache key's text of a schema (the encoder made once, not per call)."""


def to_strict_schema(schema: JSONDict | None, strict: bool | None = None) -> StrictResult:
    """Transform a tool's parameters for OpenAI.

    ``strict`` is tri-state: ``None`` makes the schema strict when that loses
    nothing, ``True`` demands it (raising `ValueError` listing the problems
    when the schema cannot be strict), ``False`` only normalizes.

    The result is remembered by the schema's content, so the same schema gives the
    same (shared) result object: it must not be modified.
    """
    try:
        text = _KEY_TEXT(schema)
    except (TypeError, ValueError, RecursionError):  # not JSON: transformed each time
        return _transform(schema, strict)
    key = (text, strict)
    found = _RESULTS.get(key)
    if found is not None:
        _RESULTS.move_to_end(key)
        return found
    result = _transform(schema, strict)
    if len(text) <= _CACHED_RESULT_CHARS:
        _RESULTS[key] = result
        if len(_RESULTS) > _CACHED_RESULTS:
            _RESULTS.popitem(last=False)
    return result


def _transform(schema: JSONDict | None, strict: bool | None) -> StrictResult:
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
        # Strict mode takes no siblings beside "$ref" but does beside "anyOf": a
        # description stays with the field by wrapping the reference.
        notes = {k: out[k] for k in ("description", "title") if isinstance(out.get(k), str)}
        return {"anyOf": [{"$ref": out["$ref"]}], **notes} if notes else {"$ref": out["$ref"]}
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


__all__ = [
    "UNSUPPORTED_IN_STRICT",
    "StrictResult",
    "make_nullable",
    "make_strict",
    "strict_problems",
    "to_strict_schema",
]
