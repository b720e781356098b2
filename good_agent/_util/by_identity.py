"""A map from live objects, by identity, to values, that lets the objects go (not public API)."""

from __future__ import annotations

import weakref
from typing import Any, Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class ByIdentity(Generic[K, V]):
    """Values kept per object (by identity) and dropped when the object is collected.

    A lookup is one dictionary read and one call of a weak reference, where a
    ``weakref.WeakKeyDictionary`` makes a new weak reference at each lookup (and
    needs the keys to be hashable).
    """

    __slots__ = ("__weakref__", "_entries")

    def __init__(self) -> None:
        self._entries: dict[int, tuple[weakref.ref[Any], V]] = {}

    def get(self, key: K) -> V | None:
        """The value kept for ``key``, or ``None``."""
        entry = self._entries.get(id(key))
        if entry is not None and entry[0]() is key:
            return entry[1]
        return None

    def set(self, key: K, value: V) -> V:
        """Keep ``value`` for ``key`` (until ``key`` is collected); return it."""
        address = id(key)
        owner = weakref.ref(self)

        def forget(_: weakref.ref[Any]) -> None:
            memo = owner()
            if memo is not None:
                current = memo._entries.get(address)
                if current is not None and current[0]() is None:
                    del memo._entries[address]

        self._entries[address] = (weakref.ref(key, forget), value)
        return value

    def __len__(self) -> int:
        return len(self._entries)
