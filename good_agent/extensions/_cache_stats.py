"""What a `ToolCache` counts and reports: its events and statistics."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Literal

CacheEventKind = Literal[
    "hit", "miss", "set", "coalesced", "bypass", "uncacheable", "lookup_error", "store_error"
]
"""What happened: a hit, a miss, a stored entry, a call that waited for an identical
one (single-flight), a bypass through ``use_cache=false``, a response that could not
be stored, a store that failed to answer a lookup (the tool ran) or to keep a result
(the result was returned unstored)."""

_STAT_NAMES = {
    "hit": "hits",
    "miss": "misses",
    "set": "sets",
    "bypass": "bypasses",
    "lookup_error": "lookup_errors",
    "store_error": "store_errors",
}


@dataclass(frozen=True, slots=True)
class CacheEvent:
    """One cache event, as passed to ``on_event`` and logged (DEBUG) with ``extra=``."""

    kind: CacheEventKind
    tool_name: str
    key: str


@dataclass(slots=True)
class CacheStats:
    """Counters of a `ToolCache`, in total and per tool.

    ``lookup_errors`` and ``store_errors`` count store failures (the call was
    answered by the tool all the same).
    """

    hits: int = 0
    misses: int = 0
    sets: int = 0
    coalesced: int = 0
    bypasses: int = 0
    uncacheable: int = 0
    lookup_errors: int = 0
    store_errors: int = 0
    by_tool: dict[str, Counter[str]] = field(default_factory=dict)

    def record(self, kind: CacheEventKind, tool_name: str) -> None:
        """Count one event."""
        if kind == "miss":
            self.misses += 1
        elif kind == "set":
            self.sets += 1
        elif kind == "hit":
            self.hits += 1
        else:
            name = _STAT_NAMES.get(kind, kind)
            setattr(self, name, getattr(self, name) + 1)
        counter = self.by_tool.get(tool_name)
        if counter is None:
            counter = self.by_tool[tool_name] = Counter()
        counter[kind] += 1

    @property
    def hit_ratio(self) -> float:
        """Hits over lookups (0.0 before any lookup)."""
        lookups = self.hits + self.misses
        return self.hits / lookups if lookups else 0.0
