"""The model's source numbers back to URLs, at every URL position of the arguments.

A URL the model wrote itself, a number that is not a source, or a value of the wrong
kind at a URL position is refused with a `ToolError` the model
reads: a made-up URL never reaches the tool, wherever it sits. Map keys count like
values: a URL-typed key takes a source number (``"1"``), and a URL in the free-text
key of a map that holds URLs must be a registered source.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from good_agent.extensions.citation_index import find_urls
from good_agent.extensions.citation_schema import (
    ArraySlot,
    FieldSlot,
    MapSlot,
    Node,
    ObjectSlot,
    RefSlot,
    Slots,
    UnionSlot,
    UrlSlot,
)
from good_agent.types.errors import ToolError

Lookup = Callable[[int], str]
"""A source number to its URL; raises ``KeyError`` for an unknown number."""

Registered = Callable[[str], str | None]
"""A URL to the registered source's URL (compared canonically), or ``None``."""


def _none(url: str) -> str | None:
    return None


def translate_arguments(
    slots: Slots,
    arguments: dict[str, Any],
    lookup: Lookup,
    valid: Callable[[], str],
    registered: Registered = _none,
) -> dict[str, Any]:
    """``arguments`` with every source number replaced by its URL (``valid()``
    describes the valid numbers in error messages; it is only called for one).
    ``registered`` finds the URLs written in map keys (none by default)."""
    return ArgumentTranslator(slots, lookup, valid, registered)(arguments)


class ArgumentTranslator:
    """`translate_arguments` for one tool's ``slots``, made once and called per call.

    Arguments whose URL fields all sit at the top level take a short path: each
    number is looked up in place, with the same checks and messages.
    """

    def __init__(
        self,
        slots: Slots,
        lookup: Lookup,
        valid: Callable[[], str],
        registered: Registered = _none,
    ) -> None:
        self.slots = slots
        self._translator = _Translator(slots, lookup, valid, registered)
        self._lookup = lookup
        root = slots.root
        self._flat: tuple[tuple[str, str, bool, UrlSlot], ...] | None = None
        if isinstance(root, ObjectSlot) and all(isinstance(f.node, UrlSlot) for f in root.fields):
            self._flat = tuple(
                (f.original, f.replacement, f.replacement != f.original, f.node)  # type: ignore[misc]
                for f in root.fields
            )

    def __call__(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """``arguments`` with every source number replaced by its URL."""
        root = self.slots.root
        if root is None:
            return arguments
        flat = self._flat
        if flat is not None and isinstance(arguments, dict):
            result = dict(arguments)
            for original, replacement, renamed, slot in flat:
                if renamed and original in arguments:
                    raise self._translator.given_directly("", original, replacement)
                if replacement not in arguments:
                    continue
                given = result.pop(replacement)
                if type(given) is int and slot.form != "many":
                    try:
                        result[original] = self._lookup(given)
                    except KeyError:
                        raise self._translator.refuse(replacement, given) from None
                else:
                    result[original] = self._translator.url(slot, given, replacement)
            return result
        result = self._translator.node(root, arguments, "")
        if not isinstance(result, dict):
            raise ToolError("the arguments must be an object")
        return result


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return "string" if isinstance(value, str) else "other"


class _Translator:
    def __init__(
        self,
        slots: Slots,
        lookup: Lookup,
        valid: Callable[[], str],
        registered: Registered = _none,
    ) -> None:
        self.slots, self.lookup, self._valid = slots, lookup, valid
        self.registered = registered

    @property
    def valid(self) -> str:
        return self._valid()

    def refuse(self, path: str, value: Any) -> ToolError:
        shown = json.dumps(value, default=str)[:40]
        return ToolError(
            f"{path}={shown} does not refer to a source. Valid citation indices: {self.valid}"
        )

    def given_directly(self, prefix: str, original: str, replacement: str) -> ToolError:
        return ToolError(
            f"'{prefix}{original}' cannot be given directly; pass "
            f"'{prefix}{replacement}' (valid citation indices: {self.valid})"
        )

    def url(self, slot: UrlSlot, value: Any, path: str) -> Any:
        if value is None and slot.nullable:
            return None
        if isinstance(value, list) and slot.form in ("many", "either"):
            return [self.one(item, f"{path}[{i}]") for i, item in enumerate(value)]
        if slot.form in ("one", "either"):
            return self.one(value, path)
        raise self.refuse(path, value)

    def one(self, value: Any, path: str) -> str:
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.refuse(path, value)
        try:
            return self.lookup(value)
        except KeyError:
            raise self.refuse(path, value) from None

    def node(self, node: Node | None, value: Any, path: str) -> Any:
        if node is None:
            return value
        if isinstance(node, RefSlot):
            return self.node(self.slots.defs.get(node.name), value, path)
        if isinstance(node, UrlSlot):
            return self.url(node, value, path)
        if isinstance(node, ArraySlot):
            if not isinstance(value, list):
                return value
            return [self.node(node.items, v, f"{path}[{i}]") for i, v in enumerate(value)]
        if isinstance(node, MapSlot):
            return self.map(node, value, path)
        if isinstance(node, ObjectSlot):
            return self.object(node.fields, value, path)
        return self.union(node, value, path)

    def map(self, node: MapSlot, value: Any, path: str) -> Any:
        if not isinstance(value, dict):
            return value
        result: dict[Any, Any] = {}
        for given, item in value.items():
            key = self.key(node, given, path)
            if key in result:
                shown = json.dumps(str(given))[:60]
                raise ToolError(f"{path}: key {shown} names a source given by another key")
            result[key] = self.node(node.values, item, f"{path}.{given}")
        return result

    def key(self, node: MapSlot, key: Any, path: str) -> Any:
        """A map key: a source number for a URL-typed key; a free-text key as given,
        once every URL in it is a registered source (a key that is one URL becomes
        the registered URL)."""
        if node.keys == "url":
            if isinstance(key, str) and key.isascii() and key.isdigit():
                number: Any = int(key)
            else:
                number = key
            return self.one(number, f"{path} key")
        return self.free_key(key, path)

    def free_key(self, key: Any, path: str) -> Any:
        """A free-text key, once every URL in it is a registered source."""
        if not isinstance(key, str) or "://" not in key:
            return key
        urls = find_urls(key)
        found = [self.registered(url) for url in urls]
        if not urls or None in found or key.count("://") != len(urls):
            raise self.refuse(f"{path} key", key)
        return found[0] if len(urls) == 1 and urls[0] == key.strip() else key

    def object(self, fields: tuple[FieldSlot, ...], value: Any, path: str) -> Any:
        if not isinstance(value, dict):
            return value
        result = dict(value)
        prefix = f"{path}." if path else ""
        for slot in fields:
            renamed = slot.replacement != slot.original
            if renamed and slot.original in value:
                raise self.given_directly(prefix, slot.original, slot.replacement)
            if slot.replacement not in value:
                continue
            given = result.pop(slot.replacement)
            result[slot.original] = self.node(slot.node, given, prefix + slot.replacement)
        return result

    def union(self, node: UnionSlot, value: Any, path: str) -> Any:
        kind = _kind(value)
        if kind == "null":
            return None
        branches = [self._resolve(b) for b in node.branches]
        urls = [b for b in branches if isinstance(b, UrlSlot)]
        if urls and kind in ("integer", "array", "string", "boolean", "other"):
            fits = [u for u in urls if kind != "array" or u.form in ("many", "either")]
            return self.url(fits[0] if fits else urls[0], value, path)
        objects = [b for b in branches if isinstance(b, ObjectSlot)]
        if kind == "object" and objects:
            merged: dict[str, FieldSlot] = {}
            for obj in objects:
                for slot in obj.fields:
                    merged.setdefault(slot.replacement, slot)
                    merged.setdefault(slot.original, slot)
            maps = [b for b in branches if isinstance(b, MapSlot)]
            if maps:  # ``Model | dict[str, Model]``: a map unless a URL field is named
                if not any(key in merged for key in value):
                    return self.map(maps[0], value, path)
                for key in value:
                    if key not in merged:
                        self.free_key(key, path)
            unique = {id(slot): slot for slot in merged.values()}
            return self.object(tuple(unique.values()), value, path)
        for branch in branches:
            if isinstance(branch, MapSlot) and kind == "object":
                return self.node(branch, value, path)
            if isinstance(branch, ArraySlot) and kind == "array":
                return self.node(branch, value, path)
        return value

    def _resolve(self, node: Node | None) -> Node | None:
        seen = 0
        while isinstance(node, RefSlot) and seen < 64:
            node, seen = self.slots.defs.get(node.name), seen + 1
        return node
