"""A compiled validator for the JSON Schema subset that tool definitions use.

Tool schemas arriving over HTTP or from MCP servers are plain JSON Schema, with no
Python types behind them. :func:`compile_schema` turns one into a function that
returns a list of problems (empty when the value is valid), each naming the path,
what was expected and what was given, in words a model can act on.

A :class:`pydantic.SecretStr` is accepted wherever a string is (as a value of
``type: string``; string constraints are not checked on it), so credentials can be
injected into schema-defined tools without revealing them early.

Supported keywords: ``type`` (string or list), ``properties``, ``required``,
``additionalProperties``, ``items``, ``prefixItems``, ``enum``, ``const``,
``anyOf``, ``oneOf``, ``allOf``, ``not``, local ``$ref`` (``#/$defs/...``,
``#/definitions/...``, ``#``), ``nullable`` (OpenAPI style), ``minimum``,
``maximum``, ``exclusiveMinimum``, ``exclusiveMaximum``, ``multipleOf``,
``minLength``, ``maxLength``, ``minItems``, ``maxItems``, ``uniqueItems``,
``minProperties``, ``maxProperties``. Annotations (``description``, ``format``,
``title``, ``default``, ``examples``) and unknown keywords are ignored.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pydantic import SecretStr

from good_agent.providers._schema_quick import Quick, quick_accept

Check = Callable[[Any, str, list[str]], None]
Validator = Callable[[Any], list[str]]

_TYPE_CHECKS: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    # A pydantic secret stands for a string (credentials injected into a tool).
    "string": lambda v: isinstance(v, str | SecretStr),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool))
        or (isinstance(v, float) and v.is_integer())
    ),
}


def describe(value: Any) -> str:
    """Show a given value briefly, for an error message."""
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= 60 else text[:57] + "..."


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _at(path: str) -> str:
    return path or "arguments"


class _Compiler:
    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.refs: dict[str, Check] = {}

    def ref(self, pointer: str) -> Check:
        if pointer in self.refs:
            return self.refs[pointer]
        slot: list[Check] = []

        def deferred(value: Any, path: str, errors: list[str]) -> None:
            slot[0](value, path, errors)

        self.refs[pointer] = deferred
        slot.append(self.compile(self.resolve(pointer)))
        return deferred

    def resolve(self, pointer: str) -> Any:
        if not pointer.startswith("#"):
            raise ValueError(f"only local $ref values are supported, got {pointer!r}")
        node: Any = self.root
        for part in [p for p in pointer[1:].split("/") if p]:
            key = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, dict) or key not in node:
                raise ValueError(f"$ref {pointer!r} does not resolve")
            node = node[key]
        return node

    def compile(self, schema: Any) -> Check:
        if schema is True or schema == {}:
            return _accept
        if schema is False:
            return _reject
        if not isinstance(schema, dict):
            raise ValueError(f"a schema must be an object or boolean, got {describe(schema)}")
        checks: list[Check] = []
        if "$ref" in schema:
            checks.append(self.ref(str(schema["$ref"])))
        type_check = self._type(schema)
        if type_check is not None:
            checks.append(type_check)
        checks.extend(self._values(schema))
        checks.extend(self._combinators(schema))
        checks.extend(_bounds(schema))
        if any(k in schema for k in ("properties", "required", "additionalProperties")):
            checks.append(self._object(schema))
        if "items" in schema or "prefixItems" in schema:
            checks.append(self._array(schema))
        return _quickly(quick_accept(schema), checks[0] if len(checks) == 1 else _all(checks))

    def _type(self, schema: dict[str, Any]) -> Check | None:
        declared = schema.get("type")
        if declared is None:
            return None
        names = [declared] if isinstance(declared, str) else list(declared)
        if schema.get("nullable") is True and "null" not in names:
            names.append("null")
        tests = [_TYPE_CHECKS[n] for n in names if n in _TYPE_CHECKS]
        if not tests:
            return None
        expected = " or ".join(names)

        def check_type(value: Any, path: str, errors: list[str]) -> None:
            for test in tests:
                if test(value):
                    return
            errors.append(f"{_at(path)}: expected {expected}, got {_kind(value)} {describe(value)}")

        return check_type

    def _values(self, schema: dict[str, Any]) -> list[Check]:
        checks: list[Check] = []
        if "enum" in schema:
            allowed = list(schema["enum"])
            shown = ", ".join(describe(a) for a in allowed)

            def check_enum(value: Any, path: str, errors: list[str]) -> None:
                if not any(_same(value, a) for a in allowed):
                    errors.append(f"{_at(path)}: expected one of {shown}, got {describe(value)}")

            checks.append(check_enum)
        if "const" in schema:
            const = schema["const"]

            def check_const(value: Any, path: str, errors: list[str]) -> None:
                if not _same(value, const):
                    errors.append(f"{_at(path)}: expected {describe(const)}, got {describe(value)}")

            checks.append(check_const)
        return checks

    def _combinators(self, schema: dict[str, Any]) -> list[Check]:
        checks: list[Check] = []
        for key in ("anyOf", "oneOf"):
            if key in schema:
                branches = [self.compile(s) for s in schema[key]]
                checks.append(_any_of(branches, exactly_one=key == "oneOf"))
        for sub in schema.get("allOf", []):
            checks.append(self.compile(sub))
        if "not" in schema:
            negated = self.compile(schema["not"])

            def check_not(value: Any, path: str, errors: list[str]) -> None:
                trial: list[str] = []
                negated(value, path, trial)
                if not trial:
                    errors.append(f"{_at(path)}: {describe(value)} is not allowed here")

            checks.append(check_not)
        return checks

    def _object(self, schema: dict[str, Any]) -> Check:
        props = {k: self.compile(v) for k, v in (schema.get("properties") or {}).items()}
        required = list(schema.get("required") or [])
        extra = schema.get("additionalProperties", True)
        extra_check = None if isinstance(extra, bool) else self.compile(extra)
        allow_extra = extra is not False

        def check_object(value: Any, path: str, errors: list[str]) -> None:
            if not isinstance(value, dict):
                return
            prefix = f"{path}." if path else ""
            for name in required:
                if name not in value:
                    errors.append(f"{prefix}{name}: field required")
            for key, item in value.items():
                check = props.get(key)
                if check is not None:
                    check(item, prefix + key, errors)
                elif not allow_extra:
                    known = ", ".join(props) or "none"
                    errors.append(f"{prefix}{key}: unexpected field (allowed: {known})")
                elif extra_check is not None:
                    extra_check(item, prefix + key, errors)

        return check_object

    def _array(self, schema: dict[str, Any]) -> Check:
        prefix_checks = [self.compile(s) for s in schema.get("prefixItems") or []]
        items = schema.get("items", True)
        item_check = self.compile(items) if not isinstance(items, list) else _accept
        if isinstance(items, list):
            prefix_checks = [self.compile(s) for s in items]

        def check_array(value: Any, path: str, errors: list[str]) -> None:
            if not isinstance(value, list):
                return
            for index, item in enumerate(value):
                check = prefix_checks[index] if index < len(prefix_checks) else item_check
                check(item, f"{path}[{index}]", errors)

        return check_array


def _all(checks: list[Check]) -> Check:
    def run_all(value: Any, path: str, errors: list[str]) -> None:
        for check in checks:
            before = len(errors)
            check(value, path, errors)
            if len(errors) > before:
                return

    return run_all


def _quickly(quick: Quick | None, full: Check) -> Check:
    """``full``, after ``quick`` (when there is one): the usual valid value is accepted
    in one pass; anything else is checked in full, with the same messages."""
    if quick is None:
        return full

    def check_quickly(value: Any, path: str, errors: list[str]) -> None:
        if not quick(value):
            full(value, path, errors)

    return check_quickly


def _accept(value: Any, path: str, errors: list[str]) -> None:
    return None


def _reject(value: Any, path: str, errors: list[str]) -> None:
    errors.append(f"{_at(path)}: no value is allowed here")


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) != isinstance(b, bool):
        return False
    return bool(a == b)


def _any_of(branches: list[Check], *, exactly_one: bool) -> Check:
    def check_branches(value: Any, path: str, errors: list[str]) -> None:
        first: list[str] | None = None
        matched = 0
        for branch in branches:
            trial: list[str] = []
            branch(value, path, trial)
            if not trial:
                matched += 1
                if not exactly_one:
                    return
            elif first is None:
                first = trial
        if matched == 1 or (matched and not exactly_one):
            return
        if matched > 1:
            errors.append(f"{_at(path)}: {describe(value)} matches more than one allowed form")
        elif len(branches) == 1 and first:
            errors.extend(first)
        else:
            hint = f" ({first[0]})" if first else ""
            errors.append(f"{_at(path)}: {describe(value)} matches none of the allowed forms{hint}")

    return check_branches


def _bounds(schema: dict[str, Any]) -> list[Check]:
    rules: list[tuple[str, Callable[[Any], bool], Callable[[Any, Any], bool], str]] = [
        ("minimum", _is_number, lambda v, b: v >= b, "at least {}"),
        ("maximum", _is_number, lambda v, b: v <= b, "at most {}"),
        ("exclusiveMinimum", _is_number, lambda v, b: v > b, "greater than {}"),
        ("exclusiveMaximum", _is_number, lambda v, b: v < b, "less than {}"),
        ("multipleOf", _is_number, lambda v, b: (v / b).is_integer(), "a multiple of {}"),
        ("minLength", _is_str, lambda v, b: len(v) >= b, "at least {} characters"),
        ("maxLength", _is_str, lambda v, b: len(v) <= b, "at most {} characters"),
        ("minItems", _is_list, lambda v, b: len(v) >= b, "at least {} items"),
        ("maxItems", _is_list, lambda v, b: len(v) <= b, "at most {} items"),
        ("minProperties", _is_dict, lambda v, b: len(v) >= b, "at least {} properties"),
        ("maxProperties", _is_dict, lambda v, b: len(v) <= b, "at most {} properties"),
    ]
    checks: list[Check] = []
    for key, applies, holds, wording in rules:
        if key in schema and not isinstance(schema[key], bool):
            checks.append(_bound(schema[key], applies, holds, wording.format(schema[key])))
    if schema.get("uniqueItems") is True:

        def check_unique(value: Any, path: str, errors: list[str]) -> None:
            if isinstance(value, list):
                seen = [json.dumps(v, sort_keys=True, default=repr) for v in value]
                if len(set(seen)) != len(seen):
                    errors.append(f"{_at(path)}: items must be unique")

        checks.append(check_unique)
    return checks


def _bound(
    limit: Any, applies: Callable[[Any], bool], holds: Callable[[Any, Any], bool], wording: str
) -> Check:
    def check_bound(value: Any, path: str, errors: list[str]) -> None:
        if not applies(value):
            return
        try:
            held = holds(value, limit)
        except OverflowError:  # an integer too large for a float (multipleOf 0.1, 10**400)
            held = False
        if not held:
            errors.append(f"{_at(path)}: must be {wording}, got {describe(value)}")

    return check_bound


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _is_str(v: Any) -> bool:
    return isinstance(v, str)


def _is_list(v: Any) -> bool:
    return isinstance(v, list)


def _is_dict(v: Any) -> bool:
    return isinstance(v, dict)


def compile_schema(schema: dict[str, Any] | bool) -> Validator:
    """Compile ``schema`` into a validator returning a list of problems.

    Raises :class:`ValueError` when the schema itself is malformed (for example a
    ``$ref`` that does not resolve), so a bad tool definition fails when the tool is
    built, not when the model calls it.
    """
    compiler = _Compiler(schema if isinstance(schema, dict) else {})
    check = compiler.compile(schema)

    def validate(value: Any) -> list[str]:
        errors: list[str] = []
        try:
            check(value, "", errors)
        except RecursionError:
            # A recursive schema ($ref) and a value nested deeper than the stack allows.
            return ["arguments: nested too deeply to be checked"]
        return errors

    return validate
