"""Quick accepts for the common valid values of simple schemas (not public API).

:func:`quick_accept` turns a schema into a predicate that says ``True`` only for a
value the full check of :mod:`good_agent.providers.schema_validation` accepts too:
a value in the usual shape (an ``int`` in range, a ``str``, a flat object of such
values) is accepted in one pass, and anything else (``False``) goes through the full
check, which words the problems. Schemas outside the simple subset have no quick
accept (``None``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Quick = Callable[[Any], bool]

KEYWORDS = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "prefixItems",
        "enum",
        "const",
        "anyOf",
        "oneOf",
        "allOf",
        "not",
        "$ref",
        "nullable",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minProperties",
        "maxProperties",
    }
)
"""The keywords the full check acts on; it ignores every other key (annotations
such as ``description``, ``format`` or ``writeOnly``, and unknown keywords)."""

_TYPE = frozenset({"type"})
_NUMBER_KEYS = _TYPE | {"minimum", "maximum"}
_OBJECT_KEYS = _TYPE | {"properties", "required", "additionalProperties"}
_ANY_OF_KEYS = frozenset({"anyOf"})


def _always(value: Any) -> bool:
    return True


def quick_accept(schema: Any) -> Quick | None:
    """A cheap predicate accepting only values ``schema`` accepts, or ``None``.

    The subset: ``true`` and ``{}``; ``integer`` and ``number`` with at most
    ``minimum`` / ``maximum``; ``string``, ``boolean`` and ``null``; ``anyOf`` of
    that subset (an optional parameter); ``object`` with ``properties`` of that
    subset, ``required`` and a boolean ``additionalProperties``. Keys the full
    check ignores (:data:`KEYWORDS` lists those it acts on) may sit anywhere.
    """
    if schema is True or schema == {}:
        return _always
    if not isinstance(schema, dict):
        return None
    kind = schema.get("type")
    keys = schema.keys() & KEYWORDS
    if kind in ("integer", "number") and keys <= _NUMBER_KEYS:
        return _number(schema, integer=kind == "integer")
    if kind == "string" and keys <= _TYPE:
        return lambda value: type(value) is str
    if kind == "boolean" and keys <= _TYPE:
        return lambda value: type(value) is bool
    if kind == "null" and keys <= _TYPE:
        return lambda value: value is None
    if kind == "object" and keys <= _OBJECT_KEYS:
        return _object(schema)
    if kind is None and "anyOf" in schema and keys <= _ANY_OF_KEYS:
        return _any_of(schema["anyOf"])
    return None


def _any_of(branches: Any) -> Quick | None:
    if not isinstance(branches, list):
        return None
    quick = [quick_accept(branch) for branch in branches]
    if not quick or any(q is None for q in quick):
        return None
    checks = tuple(q for q in quick if q is not None)
    return lambda value: any(check(value) for check in checks)


def _number(schema: dict[str, Any], *, integer: bool) -> Quick | None:
    low, high = schema.get("minimum"), schema.get("maximum")
    if not all(b is None or type(b) in (int, float) for b in (low, high)):
        return None
    low_bound = float("-inf") if low is None else low
    high_bound = float("inf") if high is None else high
    if integer:
        return lambda value: type(value) is int and low_bound <= value <= high_bound
    return lambda value: type(value) in (int, float) and low_bound <= value <= high_bound


def _object(schema: dict[str, Any]) -> Quick | None:
    properties = schema.get("properties") or {}
    extra = schema.get("additionalProperties", True)
    required = schema.get("required") or []
    if not isinstance(properties, dict) or not isinstance(extra, bool):
        return None
    if not isinstance(required, list) or not all(isinstance(n, str) for n in required):
        return None
    quick: dict[str, Quick] = {}
    for name, sub in properties.items():
        check = quick_accept(sub)
        if check is None:
            return None
        quick[name] = check
    needed = tuple(required)
    closed = extra is False

    def quick_object(value: Any) -> bool:
        if type(value) is not dict:
            return False
        for name in needed:
            if name not in value:
                return False
        for key, item in value.items():
            check = quick.get(key)
            if check is None:
                if closed:
                    return False
            elif not check(item):
                return False
        return True

    return quick_object
