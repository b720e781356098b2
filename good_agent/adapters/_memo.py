"""A :class:`ToolMemo`: a value remembered per tool, without keeping the tool alive."""

from __future__ import annotations

import weakref
from typing import Generic, TypeVar

from good_agent.tools.tool import Tool

V = TypeVar("V")


class ToolMemo(Generic[V]):
    """Values remembered per :class:`~good_agent.Tool` (by identity), dropped with the tool.

    ``should_adapt`` and ``signature_key`` are asked at every request; an adapter
    whose answer depends only on the tool can remember it here. A lookup costs a
    dictionary read, where a ``weakref.WeakKeyDictionary`` makes a weak reference
    each time.
    """

    __slots__ = ("__weakref__", "_entries")

    def __init__(self) -> None:
        self._entries: dict[int, tuple[weakref.ref[Tool], V]] = {}

    def get(self, tool: Tool) -> V | None:
        """The value remembered for ``tool``, or ``None``."""
        entry = self._entries.get(id(tool))
        if entry is not None and entry[0]() is tool:
            return entry[1]
        return None

    def set(self, tool: Tool, value: V) -> V:
        """Remember ``value`` for ``tool`` (until the tool is collected); return it."""
        key = id(tool)
        memo = weakref.ref(self)

        def forget(_: weakref.ref[Tool]) -> None:
            owner = memo()
            if owner is not None:
                current = owner._entries.get(key)
                if current is not None and current[0]() is None:
                    del owner._entries[key]

        self._entries[key] = (weakref.ref(tool, forget), value)
        return value

    def __len__(self) -> int:
        return len(self._entries)
