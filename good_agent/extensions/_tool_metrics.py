"""Counters and a latency histogram per tool, kept by the `ToolLogger`."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field, replace

DEFAULT_BUCKETS_MS = (1.0, 5.0, 10.0, 25.0, 50.0, 100.0, 250.0, 500.0, 1000.0, 2500.0, 10000.0)
"""Upper bounds of the latency histogram buckets, in milliseconds (plus +inf)."""


@dataclass(slots=True)
class ToolMetrics:
    """Counters and a latency histogram of one tool.

    ``buckets[i]`` counts calls with a duration up to ``bounds[i]`` ms (and above
    the previous bound); the last bucket is unbounded.
    """

    calls: int = 0
    errors: int = 0
    total_ms: float = 0.0
    min_ms: float | None = None
    max_ms: float | None = None
    bounds: tuple[float, ...] = DEFAULT_BUCKETS_MS
    buckets: list[int] = field(default_factory=list)

    def observe(self, duration_ms: float, success: bool) -> None:
        """Count one call."""
        if not self.buckets:
            self.buckets = [0] * (len(self.bounds) + 1)
        self.calls += 1
        self.errors += 0 if success else 1
        self.total_ms += duration_ms
        self.min_ms = duration_ms if self.min_ms is None else min(self.min_ms, duration_ms)
        self.max_ms = duration_ms if self.max_ms is None else max(self.max_ms, duration_ms)
        position = bisect.bisect_left(self.bounds, duration_ms)
        self.buckets[position] += 1

    @property
    def mean_ms(self) -> float:
        """Mean duration (0.0 before any call)."""
        return self.total_ms / self.calls if self.calls else 0.0

    def quantile(self, q: float) -> float:
        """An upper estimate of the ``q`` quantile: the bound of the bucket holding it."""
        if not self.calls:
            return 0.0
        target, seen = q * self.calls, 0
        for bound, count in zip((*self.bounds, float("inf")), self.buckets, strict=True):
            seen += count
            if seen >= target:
                return min(bound, self.max_ms or bound)
        return self.max_ms or 0.0

    def copy(self) -> ToolMetrics:
        """An independent copy."""
        return replace(self, buckets=list(self.buckets))
