"""A value valid against a JSON schema, built from the schema alone.

`value_for_schema` gives the simple, deterministic value a model double sends
as a tool's arguments or a typed answer: the bounds, lengths, enums, constants,
``$ref`` definitions and combinators of the schema are honoured; optional object
properties are filled in near the top and left out deeper down, so a recursive
model (a tree of nodes) ends. ``anyOf`` / ``oneOf`` branches are tried in order
and the first value the whole schema accepts is kept (checked with
`compile_schema`; ``pattern`` with
`re.search`). A schema no simple value satisfies raises
`SchemaValueError`.
"""

from __future__ import annotations

import math
import re
from typing import Any

from good_agent.providers.schema_validation import compile_schema

__all__ = ["SchemaValueError", "value_for_schema"]

_FILLED_DEPTH = 3
"""Objects deeper than this get their required properties only, arrays their minimum."""

_FORMATS = {
    "date-time": "2024-01-01T00:00:00Z",
    "date": "2024-01-01",
    "time": "00:00:00Z",
    "duration": "P1D",
    "email": "user@example.com",
    "idn-email": "user@example.com",
    "uri": "https://example.com/",
    "url": "https://example.com/",
    "iri": "https://example.com/",
    "uri-reference": "https://example.com/",
    "hostname": "example.com",
    "ipv4": "127.0.0.1",
    "ipv6": "::1",
    "uuid": "00000000-0000-4000-8000-000000000000",
}

_ORDER = ("object", "string", "integer", "number", "boolean", "array", "null")
"""The type chosen first when a schema allows several."""


class SchemaValueError(ValueError):
    """No simple value satisfies the schema (or a part of it, named in the message)."""


def value_for_schema(schema: dict[str, Any], variant: int = 0) -> Any:
    """A value that ``schema`` accepts.

    Args:
        schema: A JSON schema; local ``$ref`` values resolve against it.
        variant: Picks another value where there is a choice (the ``n``-th enum
            member, another string), for distinct array items.

    Raises:
        SchemaValueError: when the generated value does not satisfy the schema.
    """
    value = _Generator(schema).value(schema, variant, 0, "value")
    problems = compile_schema(schema)(value)
    if problems:
        raise SchemaValueError(f"no generated value satisfies the schema: {'; '.join(problems)}")
    return value


class _Generator:
    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.defs: dict[str, Any] = {k: root[k] for k in ("$defs", "definitions") if k in root}
        self.nesting = 0

    def accepts(self, schema: dict[str, Any], value: Any) -> bool:
        """Whether ``schema`` (its refs resolved against the root) accepts ``value``."""
        return not compile_schema({**schema, **self.defs})(value) and _patterns_match(schema, value)

    def resolve(self, pointer: str, path: str) -> Any:
        if pointer == "#":
            return self.root
        if not pointer.startswith("#/"):
            raise SchemaValueError(f"{path}: only local $ref values are supported ({pointer})")
        node: Any = self.root
        for part in pointer[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, dict) or part not in node:
                raise SchemaValueError(f"{path}: $ref {pointer} does not resolve")
            node = node[part]
        return node

    def value(self, schema: Any, variant: int, depth: int, path: str) -> Any:
        """A value for ``schema``; ``depth`` counts the objects and arrays around it."""
        self.nesting += 1
        try:
            if self.nesting > 100:
                raise SchemaValueError(f"{path}: the schema nests too deeply for a finite value")
            return self.built(schema, variant, depth, path)
        finally:
            self.nesting -= 1

    def built(self, schema: Any, variant: int, depth: int, path: str) -> Any:
        if schema is True or schema == {}:
            return "a" if variant == 0 else f"a{variant}"
        if not isinstance(schema, dict):
            raise SchemaValueError(f"{path}: the schema {schema!r} accepts no value")
        if "$ref" in schema:
            target = self.resolve(str(schema["$ref"]), path)
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            schema = _merged(target, rest) if rest else target
            return self.value(schema, variant, depth, path)
        if "allOf" in schema:
            merged = {k: v for k, v in schema.items() if k != "allOf"}
            for part in schema["allOf"]:
                if isinstance(part, dict) and "$ref" in part:
                    part = self.resolve(str(part["$ref"]), path)
                merged = _merged(merged, part)
            return self.value(merged, variant, depth, path)
        if "const" in schema:
            return schema["const"]
        if "enum" in schema:
            members = [m for m in schema["enum"] if self.accepts(_without(schema, "enum"), m)]
            if not members:
                raise SchemaValueError(f"{path}: no enum member satisfies the schema")
            return members[variant % len(members)]
        for key in ("anyOf", "oneOf"):
            if key in schema:
                return self.branch(schema, key, variant, depth, path)
        return self.typed(schema, variant, depth, path)

    def branch(self, schema: dict[str, Any], key: str, variant: int, depth: int, path: str) -> Any:
        rest = _without(schema, key)
        branches = list(schema[key])
        # Deep down, a null branch ends a recursive structure soonest.
        if depth >= _FILLED_DEPTH:
            branches.sort(key=lambda b: not (isinstance(b, dict) and b.get("type") == "null"))
        for option in branches:
            candidate = _merged(rest, option) if isinstance(option, dict) else option
            try:
                value = self.value(candidate, variant, depth, path)
            except SchemaValueError:
                continue
            if self.accepts(schema, value):
                return value
        raise SchemaValueError(f"{path}: no {key} branch gives a value the schema accepts")

    def typed(self, schema: dict[str, Any], variant: int, depth: int, path: str) -> Any:
        kinds = schema.get("type")
        if kinds is None:
            kinds = _implied_type(schema)
        options = [kinds] if isinstance(kinds, str) else list(kinds)
        if schema.get("nullable") is True:
            options.append("null")
        options.sort(key=lambda k: _ORDER.index(k) if k in _ORDER else len(_ORDER))
        if depth >= _FILLED_DEPTH and "null" in options:
            return None
        errors = []
        for kind in options:
            maker = _MAKERS.get(kind)
            if maker is None:
                errors.append(f"{path}: unknown type {kind!r}")
                continue
            try:
                return maker(self, schema, variant, depth, path)
            except SchemaValueError as error:
                errors.append(str(error))
        raise SchemaValueError("; ".join(errors) or f"{path}: the schema allows no type")

    def object(self, schema: dict[str, Any], variant: int, depth: int, path: str) -> Any:
        properties: dict[str, Any] = schema.get("properties") or {}
        required = set(schema.get("required") or ())
        result: dict[str, Any] = {}
        for name, sub in properties.items():
            if name in required or depth < _FILLED_DEPTH:
                try:
                    result[name] = self.value(sub, variant, depth + 1, f"{path}.{name}")
                except SchemaValueError:
                    if name in required:
                        raise
        for name in required - set(properties):
            result[name] = "a"
        extra = schema.get("additionalProperties", True)
        wanted = int(schema.get("minProperties", 0))
        if not properties and depth < _FILLED_DEPTH:
            wanted = max(wanted, 1)
        index = 0
        while len(result) < wanted and extra is not False:
            key = f"key{index}"
            if key not in result:
                sub = extra if isinstance(extra, dict) else {}
                result[key] = self.value(sub, index, depth + 1, f"{path}.{key}")
            index += 1
        limit = schema.get("maxProperties")
        if limit is not None and len(result) > limit:
            for name in [n for n in result if n not in required][: len(result) - limit]:
                del result[name]
        return result

    def array(self, schema: dict[str, Any], variant: int, depth: int, path: str) -> Any:
        prefix = list(schema.get("prefixItems") or [])
        items = schema.get("items", {})
        if isinstance(items, list):  # the draft-04 tuple form
            prefix, items = items, schema.get("additionalItems", {})
        low = int(schema.get("minItems", 0))
        high = schema.get("maxItems")
        count = max(low, len(prefix), 1 if depth < _FILLED_DEPTH else 0)
        if items is False:
            count = max(low, len(prefix))
        if high is not None:
            count = min(count, int(high))
        result = []
        for index in range(count):
            sub = prefix[index] if index < len(prefix) else items
            result.append(self.value(sub, variant + index, depth + 1, f"{path}[{index}]"))
        return result

    def string(self, schema: dict[str, Any], variant: int, depth: int, path: str) -> Any:
        low = int(schema.get("minLength", 0))
        high = schema.get("maxLength")
        letter = "abcdefghijklmnopqrstuvwxyz"[variant % 26]
        suffix = str(variant // 26) if variant >= 26 else ""
        candidates = [_FORMATS[schema["format"]]] if schema.get("format") in _FORMATS else []
        base = letter + suffix
        candidates.append(base + "a" * max(0, low - len(base)))
        candidates += ["a" * low, "", "0", "a0", "A", "a_1", "example"]
        for candidate in candidates:
            if len(candidate) < low or (high is not None and len(candidate) > high):
                continue
            if _patterns_match(schema, candidate):
                return candidate
        raise SchemaValueError(
            f"{path}: no simple string satisfies this string schema "
            f"(pattern {schema.get('pattern')!r}, length {low}..{high}); "
            "give the arguments yourself"
        )

    def integer(self, schema: dict[str, Any], variant: int, depth: int, path: str) -> Any:
        low, high = _bounds(schema)
        start: float = -math.inf
        if low is not None:
            start = math.floor(low) + 1 if _exclusive_low(schema) else math.ceil(low)
        end: float = math.inf
        if high is not None:
            end = math.ceil(high) - 1 if _exclusive_high(schema) else math.floor(high)
        step = schema.get("multipleOf", 1)
        if not isinstance(step, int) or isinstance(step, bool) or step <= 0:
            step = 1
        if start <= 0 <= end:
            first = 0
        elif start > 0:
            first = math.ceil(start / step) * step
        else:
            first = math.floor(end / step) * step
        value = first + variant * step
        if value > end:
            value = first
        if not start <= value <= end:
            raise SchemaValueError(f"{path}: no integer lies within the bounds")
        return value

    def number(self, schema: dict[str, Any], variant: int, depth: int, path: str) -> Any:
        if isinstance(schema.get("multipleOf"), int):
            return self.integer(schema, variant, depth, path)
        low, high = _bounds(schema)
        candidates: list[float] = [float(variant), 0.0]
        if low is not None:
            candidates += [float(low), float(low) + 1]
        if high is not None:
            candidates += [float(high), float(high) - 1]
        if low is not None and high is not None:
            candidates.append((float(low) + float(high)) / 2)
        for candidate in candidates:
            if self.accepts(_only_number(schema), candidate):
                return candidate
        raise SchemaValueError(f"{path}: no number lies within the bounds")

    def boolean(self, schema: dict[str, Any], variant: int, depth: int, path: str) -> Any:
        return variant % 2 == 0

    def null(self, schema: dict[str, Any], variant: int, depth: int, path: str) -> Any:
        return None


_MAKERS = {
    "object": _Generator.object,
    "array": _Generator.array,
    "string": _Generator.string,
    "integer": _Generator.integer,
    "number": _Generator.number,
    "boolean": _Generator.boolean,
    "null": _Generator.null,
}


def _implied_type(schema: dict[str, Any]) -> list[str]:
    if "properties" in schema or "additionalProperties" in schema or "required" in schema:
        return ["object"]
    if "items" in schema or "prefixItems" in schema:
        return ["array"]
    if any(k in schema for k in ("minLength", "maxLength", "pattern", "format")):
        return ["string"]
    if any(k in schema for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")):
        return ["number"]
    return ["string"]


def _bounds(schema: dict[str, Any]) -> tuple[float | None, float | None]:
    low = schema.get("minimum")
    high = schema.get("maximum")
    ex_low, ex_high = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    if isinstance(ex_low, int | float) and not isinstance(ex_low, bool):
        low = ex_low if low is None else max(low, ex_low)
    if isinstance(ex_high, int | float) and not isinstance(ex_high, bool):
        high = ex_high if high is None else min(high, ex_high)
    return low, high


def _exclusive_low(schema: dict[str, Any]) -> bool:
    ex = schema.get("exclusiveMinimum")
    if ex is True:  # draft-04: a flag on minimum
        return True
    return isinstance(ex, int | float) and (
        schema.get("minimum") is None or ex >= schema["minimum"]
    )


def _exclusive_high(schema: dict[str, Any]) -> bool:
    ex = schema.get("exclusiveMaximum")
    if ex is True:
        return True
    return isinstance(ex, int | float) and (
        schema.get("maximum") is None or ex <= schema["maximum"]
    )


def _only_number(schema: dict[str, Any]) -> dict[str, Any]:
    keys = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
    return {"type": "number", **{k: schema[k] for k in keys if k in schema}}


def _patterns_match(schema: dict[str, Any], value: Any) -> bool:
    pattern = schema.get("pattern")
    if not isinstance(pattern, str) or not isinstance(value, str):
        return True
    try:
        return re.search(pattern, value) is not None
    except re.error:
        return True


def _without(schema: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in schema.items() if k != key}


def _merged(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """Two schemas a value must both satisfy, as one (properties and required united)."""
    merged = {**first, **second}
    if "properties" in first and "properties" in second:
        merged["properties"] = {**first["properties"], **second["properties"]}
    if "required" in first and "required" in second:
        merged["required"] = list(dict.fromkeys([*first["required"], *second["required"]]))
    return merged
