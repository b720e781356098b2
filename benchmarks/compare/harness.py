"""What every worker shares: the command line, the timing loop and the JSON it prints.

A worker is run as ``python worker_<library>.py COMPARISON [--check] [--budget S]``
and prints one JSON object on its last line of standard output.

Only ``sys``, ``time`` and ``importlib`` are imported at module level, so the
``import`` comparison times the library's import and nothing of ours.
"""

from __future__ import annotations

import importlib
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

CALIBRATE_SECONDS = 0.02
"""How long the warm-up loop runs to size a batch."""

BATCH_SECONDS = 0.04
"""Target duration of one timed batch (small: many batches give a steadier median)."""


class NotApplicable(Exception):
    """Raised by a comparison this library has no equivalent for; the message says why."""


@dataclass
class Case:
    """One measured operation.

    ``run`` does the work once and returns its output (``arun`` the same, async);
    ``fingerprint`` reduces that output to what must agree across libraries;
    ``per`` divides the time of one ``run`` (e.g. the tool calls in a conversation).
    """

    name: str
    fingerprint: Callable[[Any], Any]
    run: Callable[[], Any] | None = None
    arun: Callable[[], Awaitable[Any]] | None = None
    per: int = 1
    unit: str = "op"
    note: str = ""
    samples: list[float] = field(default_factory=list)


Comparison = Callable[[], list[Case]]
"""Builds the cases of one comparison (raises :class:`NotApplicable` when none apply)."""


def main(library: str, module: str, distribution: str, comparisons: dict[str, Comparison]) -> None:
    """Parse the command line, run one comparison and print its JSON report."""
    args = sys.argv[1:]
    if not args:
        raise SystemExit(
            f"usage: worker COMPARISON [--check] [--budget S]; one of {sorted(comparisons)}"
        )
    name = args[0]
    check = "--check" in args
    budget = float(args[args.index("--budget") + 1]) if "--budget" in args else 0.4
    if name == "import":
        start = time.perf_counter()
        importlib.import_module(module)
        elapsed = time.perf_counter() - start
        _emit(
            library, distribution, name, results=[_result("import", [elapsed], None, 1, "import")]
        )
        return
    try:
        cases = comparisons[name]()
    except KeyError:
        raise SystemExit(f"{library}: unknown comparison {name!r}") from None
    except NotApplicable as exc:
        _emit(library, distribution, name, not_applicable=str(exc))
        return
    results = []
    for case in cases:
        output = _once(case)
        try:
            fingerprint = case.fingerprint(output)
        except NotApplicable as exc:
            _emit(library, distribution, name, not_applicable=str(exc))
            return
        samples = [] if check else _measure(case, budget)
        results.append(_result(case.name, samples, fingerprint, case.per, case.unit, case.note))
    _emit(library, distribution, name, results=results)


def _once(case: Case) -> Any:
    if case.run is not None:
        return case.run()
    import asyncio

    assert case.arun is not None
    return asyncio.run(case.arun())


def _measure(case: Case, budget: float) -> list[float]:
    """Seconds per operation, one figure per batch, for about ``budget`` seconds."""
    if case.run is not None:
        return _measure_sync(case.run, budget)
    import asyncio

    assert case.arun is not None
    return asyncio.run(_measure_async(case.arun, budget))


def _measure_sync(run: Callable[[], Any], budget: float) -> list[float]:
    clock = time.perf_counter
    count, start = 0, clock()
    while clock() - start < CALIBRATE_SECONDS:
        run()
        count += 1
    inner = max(1, int(count * BATCH_SECONDS / (clock() - start)))
    samples: list[float] = []
    deadline = clock() + budget
    while clock() < deadline or len(samples) < 3:
        start = clock()
        for _ in range(inner):
            run()
        samples.append((clock() - start) / inner)
    return samples


async def _measure_async(arun: Callable[[], Awaitable[Any]], budget: float) -> list[float]:
    clock = time.perf_counter
    count, start = 0, clock()
    while clock() - start < CALIBRATE_SECONDS:
        await arun()
        count += 1
    inner = max(1, int(count * BATCH_SECONDS / (clock() - start)))
    samples: list[float] = []
    deadline = clock() + budget
    while clock() < deadline or len(samples) < 3:
        start = clock()
        for _ in range(inner):
            await arun()
        samples.append((clock() - start) / inner)
    return samples


def _result(
    name: str, samples: list[float], fingerprint: Any, per: int, unit: str, note: str = ""
) -> dict[str, Any]:
    return {
        "name": name,
        "seconds": [s / per for s in samples],
        "fingerprint": fingerprint,
        "unit": unit,
        "note": note,
    }


def _emit(library: str, distribution: str, comparison: str, **body: Any) -> None:
    import json
    from importlib import metadata

    try:
        version = metadata.version(distribution)
    except metadata.PackageNotFoundError:
        version = "?"
    report = {"library": library, "version": version, "comparison": comparison, **body}
    sys.stdout.write(json.dumps(report, default=str) + "\n")
    sys.stdout.flush()
