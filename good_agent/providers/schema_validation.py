"""Checking a value against a tool's JSON schema, with problems a model can act on.

Tool schemas arriving over HTTP or from MCP servers are plain JSON Schema, with no
Python types behind them. `compile_schema` turns one into a function that
returns a list of problems (empty when the value is valid), each naming the path,
what was expected and what was given, in words a model can act on.

The check itself is `jsonschema-rs` (JSON Schema 2020-12, compiled once per schema
and cached): a valid value, the usual case, costs one call into it. Only when it
says no are its errors read and worded: from the library's cheaper evaluation output
where that tells enough (``schema_evaluation``), else from its error objects here,
in the same words (``schema_words``). Before compiling, the schema is
brought to 2020-12 where tool schemas commonly differ from it: OpenAPI's
``nullable: true`` adds ``null`` to ``type``, draft-07's array-form ``items``
becomes ``prefixItems``, and draft-04's boolean ``exclusiveMinimum`` /
``exclusiveMaximum`` are dropped. ``$ref`` must be local (``#/$defs/...``,
``#/definitions/...``, ``#``) and resolve; nothing is ever fetched. ``format`` is
an annotation, not checked.

A `pydantic.SecretStr` is accepted wherever a string is (as a value of
``type: string``; string constraints are not checked on it), so credentials can be
injected into schema-defined tools without revealing them early.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import SecretStr

from good_agent.providers.schema_evaluation import (
    Place,
    inline_branch_refs,
    locations_tell,
    resolve,
    word_evaluation,
)
from good_agent.providers.schema_words import BOUNDS, describe, kind_of, path_text, rank

__all__ = ["MAX_VALUE_DEPTH", "Validator", "compile_schema", "describe"]

Validator = Callable[[Any], list[str]]

MAX_VALUE_DEPTH = 1_000
"""The deepest nesting of objects and arrays a checked value may have (JSON
decoders stop earlier; a deeper value built in Python is a problem, not a crash)."""

_CACHE: OrderedDict[str, Validator] = OrderedDict()
_KEY = json.JSONEncoder(sort_keys=True, default=repr).encode
"""A schema's cache key, ``json.dumps(schema, sort_keys=True, default=repr)`` with
its encoder made once, not per call."""
_CACHE_SIZE = 1_024
_TOO_DEEP = ["arguments: nested too deeply to be checked"]
_STRING_ONLY = frozenset({"minLength", "maxLength", "pattern", "format"})


def compile_schema(schema: dict[str, Any] | bool) -> Validator:
    """Compile ``schema`` into a validator returning a list of problems.

    Raises `ValueError` when the schema itself is malformed (for example a
    ``$ref`` that does not resolve), so a bad tool definition fails when the tool is
    built, not when the model calls it. The same schema (by content) compiles once.
    """
    key = _KEY(schema)
    found = _CACHE.get(key)
    if found is not None:
        _CACHE.move_to_end(key)
        return found
    prepared = inline_branch_refs(_prepare(schema, schema))
    import jsonschema_rs  # the validator library, loaded with the first schema compiled

    try:
        library = jsonschema_rs.validator_for(prepared)
    except ValueError as exc:
        raise ValueError(f"not a valid JSON Schema: {str(exc).splitlines()[0]}") from None
    validator = _Compiled(library, prepared).validate
    _CACHE[key] = validator
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return validator


def _prepare(node: Any, root: Any) -> Any:
    """``node`` brought to JSON Schema 2020-12 (a copy; the input is left alone)."""
    if isinstance(node, list):
        return [_prepare(item, root) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _prepare(value, root) for key, value in node.items()}
    if "$ref" in out:
        _check_ref(out["$ref"], root)
    declared = out.get("type")
    if out.get("nullable") is True and declared is not None:
        names = [declared] if isinstance(declared, str) else list(declared)
        out["type"] = names if "null" in names else [*names, "null"]
    if isinstance(out.get("items"), list):
        out["prefixItems"] = out.pop("items")
    for bound in ("exclusiveMinimum", "exclusiveMaximum", "minimum", "maximum"):
        if isinstance(out.get(bound), bool):
            del out[bound]
    return out


def _check_ref(pointer: Any, root: Any) -> None:
    if not isinstance(pointer, str) or not pointer.startswith("#"):
        raise ValueError(f"only local $ref values are supported, got {pointer!r}")
    if resolve(root, pointer) is None:
        raise ValueError(f"$ref {pointer!r} does not resolve")


class _Compiled:
    """One compiled schema: the library's validator and the wording of its errors."""

    def __init__(self, library: Any, schema: Any) -> None:
        self.library = library
        self.schema = schema
        # Invalid values are worded from the library's cheaper evaluation output
        # where that can be done (see schema_evaluation), else from iter_errors.
        self.locations_tell = locations_tell(schema)
        self.places: dict[str, Place | None] = {}

    def validate(self, value: Any) -> list[str]:
        try:
            if _too_deep(value):
                return list(_TOO_DEEP)
            if self.library.is_valid(value):
                return []
            if self.locations_tell:
                worded = word_evaluation(self.library, self.schema, self.places, value)
                if worded is not None:
                    return worded
            return self.problems(value, value, set())
        except ValueError:  # a value that is not JSON: a secret, a tuple, ...
            return self.validate_python(value)

    def validate_python(self, value: Any) -> list[str]:
        secrets: set[tuple[Any, ...]] = set()
        foreign: list[tuple[tuple[Any, ...], Any]] = []
        plain = _plain(value, (), secrets, foreign)
        if foreign:
            return [
                f"{path_text(where)}: expected a JSON value, got {type(v).__name__} {describe(v)}"
                for where, v in foreign
            ]
        if self.library.is_valid(plain):
            return []
        return self.problems(plain, value, secrets)

    def problems(self, plain: Any, value: Any, secrets: set[tuple[Any, ...]]) -> list[str]:
        errors = self.library.iter_errors(plain)
        if secrets:
            errors = [
                e
                for e in errors
                if not (_where(plain, e.instance_path) in secrets and e.kind.name in _STRING_ONLY)
            ]
        return self.word(errors, value)

    def word(self, errors: Iterable[Any], value: Any) -> list[str]:
        best: dict[tuple[Any, ...], int] = {}
        kept: list[tuple[tuple[Any, ...], Any]] = []
        for error in errors:
            where, order = _where(value, error.instance_path), rank(error.kind.name)
            if where in best and best[where] < order:
                continue
            if best.get(where, order) > order:
                kept = [(w, e) for w, e in kept if w != where]
            best[where] = order
            kept.append((where, error))
        out: list[str] = []
        for where, error in kept:
            out.extend(self.words(error, value, where))
        return out

    def words(self, error: Any, value: Any, where: tuple[Any, ...]) -> list[str]:
        name = error.kind.name
        if name == "required":
            return [f"{path_text((*where, error.kind.as_dict()['property']))}: field required"]
        if name == "additionalProperties":
            node = self.node(error.schema_path[:-1])
            known = ", ".join(node.get("properties") or {}) or "none"
            return [
                f"{path_text((*where, key))}: unexpected field (allowed: {known})"
                for key in error.kind.as_dict()["unexpected"]
            ]
        # Only the wordings below show the given value (shown briefly as JSON).
        given = _at(value, where)
        at, shown = path_text(where), describe(given)
        if name == "type":
            declared = self.node(error.schema_path)
            names = [declared] if isinstance(declared, str) else declared
            return [f"{at}: expected {' or '.join(names)}, got {kind_of(given)} {shown}"]
        if name == "enum":
            allowed = ", ".join(describe(a) for a in self.node(error.schema_path))
            return [f"{at}: expected one of {allowed}, got {shown}"]
        if name == "const":
            expected = error.kind.as_dict()["expected_value"]
            return [f"{at}: expected {describe(expected)}, got {shown}"]
        if name in ("anyOf", "oneOf"):
            return self.branches(error, value, at, shown)
        if name == "not":
            return [f"{at}: {shown} is not allowed here"]
        if name == "falseSchema":
            return [f"{at}: no value is allowed here"]
        if name == "uniqueItems":
            return [f"{at}: items must be unique"]
        if name in BOUNDS:
            limit = self.node(error.schema_path)
            return [f"{at}: must be {BOUNDS[name].format(limit)}, got {shown}"]
        return [f"{at}: {error.message}"]

    def branches(self, error: Any, value: Any, at: str, shown: str) -> list[str]:
        context = list(error.kind.context)
        if context and all(not branch for branch in context):
            return [f"{at}: {shown} matches more than one allowed form"]
        failing = [branch for branch in context if branch]
        first = self.word(failing[0], value) if failing else []
        if len(context) == 1 and first:
            return first
        hint = f" ({first[0]})" if first else ""
        return [f"{at}: {shown} matches none of the allowed forms{hint}"]

    def node(self, path: Iterable[Any]) -> Any:
        """The schema at the library's schema path (a name that looks like a number is
        given as one there)."""
        node = self.schema
        for part in path:
            node = node[str(part) if isinstance(node, dict) else part]
        return node


def _too_deep(value: Any) -> bool:
    """Whether ``value`` nests objects and arrays deeper than `MAX_VALUE_DEPTH`."""
    if isinstance(value, dict):
        level = [c for c in value.values() if isinstance(c, _NESTED)]
    elif isinstance(value, list):
        level = [c for c in value if isinstance(c, _NESTED)]
    else:
        return False
    # ``level`` holds the objects and arrays at depth 1, then 2, ...
    for _ in range(MAX_VALUE_DEPTH - 1):
        if not level:
            return False
        below: list[Any] = []
        for item in level:
            for child in item.values() if isinstance(item, dict) else item:
                if isinstance(child, _NESTED):
                    below.append(child)
        level = below
    return bool(level)


_NESTED = (dict, list)


def _plain(
    value: Any,
    where: tuple[Any, ...],
    secrets: set[tuple[Any, ...]],
    foreign: list[tuple[tuple[Any, ...], Any]],
) -> Any:
    """``value`` with each secret replaced by a stand-in string (noting where)."""
    if isinstance(value, SecretStr):
        secrets.add(where)
        return "**********"
    if isinstance(value, dict):
        return {k: _plain(v, (*where, k), secrets, foreign) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v, (*where, i), secrets, foreign) for i, v in enumerate(value)]
    if value is None or isinstance(value, str | int | float):
        return value
    foreign.append((where, value))
    return None


def _where(value: Any, path: Iterable[Any]) -> tuple[Any, ...]:
    """The library's instance path with each step typed as in ``value`` (a key of an
    object is a string, even when it looks like a number)."""
    where: list[Any] = []
    for part in path:
        if isinstance(value, dict):
            part = str(part)
        elif isinstance(value, list | tuple):
            part = int(part)
        where.append(part)
        value = value[part]
    return tuple(where)


def _at(value: Any, where: tuple[Any, ...]) -> Any:
    for part in where:
        value = value[part]
    return value
