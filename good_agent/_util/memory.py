"""How much memory a piece of work allocates at its peak (for the memory benchmarks and
the tests that hold the same bounds)."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import Any


def peak_of(work: Callable[[], Any]) -> int:
    """Peak bytes allocated while ``work`` runs, beyond those held when it starts
    (``tracemalloc``: Python allocations only)."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base, _ = tracemalloc.get_traced_memory()
        result = work()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del result
    return peak - base
