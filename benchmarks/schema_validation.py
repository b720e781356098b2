"""Checking model-written tool arguments against a tool's JSON schema: per-call cost.

Candidates, each given the same realistic tool schemas (a pydantic model with a
nested ``$defs`` object and an optional field, an MCP-style flat schema, a search
tool with enums and bounds) and the same arguments:

* ``ours``: ``good_agent.providers.schema_validation.compile_schema`` as it is in
  this checkout (the validator every tool call goes through);
* ``jsonschema-rs``: ``jsonschema_rs.validator_for(schema).is_valid``;
* ``rs iter_errors``: the same validator listing every error as error objects (what
  ``ours`` words on invalid arguments when the cheaper listing below cannot be);
* ``rs evaluate``: the same validator listing every error as flat records
  (``evaluate().errors()``, what ``ours`` words on invalid arguments where it can:
  the floor of its invalid figure);
* ``fastjsonschema``: ``fastjsonschema.compile(schema)`` (generated Python code);
* ``jsonschema``: ``jsonschema.Draft202012Validator(schema).is_valid``.

Every validator is compiled once, before timing; the figure is the cost of one
call on valid arguments (the usual case) and, separately, on invalid ones (where
``ours`` also words the problems; the libraries only answer yes or no, so the
invalid figure of a library is a floor for wording built on it). Rounds interleave
the candidates; medians are reported. Times are CPU time of this process
(``time.process_time``), so other work on a shared machine does not land on one
candidate more than another.

Verdict: on valid arguments ``ours`` must stay within 1.5x of what it was before the
library, and on invalid ones be no slower than it was (the figures in
docs/performance.md); the fastest library is named.

Run: ``python benchmarks/schema_validation.py``; a candidate that is not installed
is skipped.
"""

from __future__ import annotations

import importlib
import platform
import statistics
import time
from collections.abc import Callable
from typing import Any

from good_agent.providers.schema_validation import compile_schema

ROUNDS = 15
CALLS = 2_000
CLOCK = time.process_time
BEFORE_VALID_US = 2.7
"""``ours`` on valid arguments with the hand-written validator this replaced (us,
measured with this script on the 2-core reference machine: 2.70 valid, 6.20 invalid)."""
BEFORE_INVALID_US = 6.2
"""``ours`` on invalid arguments with the hand-written validator (us, as above)."""

FORECAST: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "minLength": 1, "description": "City name"},
        "days": {"type": "integer", "minimum": 1, "maximum": 14},
        "units": {"enum": ["metric", "imperial"], "default": "metric"},
        "point": {"$ref": "#/$defs/Point"},
        "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
    },
    "required": ["city"],
    "additionalProperties": False,
    "$defs": {
        "Point": {
            "type": "object",
            "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
            "required": ["lat", "lon"],
        }
    },
}
FETCH: dict[str, Any] = {
    "type": "object",
    "properties": {
        "url": {"type": "string", "format": "uri"},
        "max_length": {"type": "integer", "default": 5000},
        "raw": {"type": "boolean", "default": False},
    },
    "required": ["url"],
}
SEARCH: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "maxLength": 500},
        "sources": {
            "type": "array",
            "items": {"enum": ["web", "news", "papers"]},
            "uniqueItems": True,
            "maxItems": 3,
        },
        "since": {"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}]},
        "limit": {"type": "integer", "minimum": 1, "maximum": 50},
    },
    "required": ["query", "sources", "since", "limit"],
    "additionalProperties": False,
}
CASES: list[tuple[str, dict[str, Any], dict[str, Any], dict[str, Any]]] = [
    (
        "forecast",
        FORECAST,
        {"city": "Oslo", "days": 3, "point": {"lat": 59.9, "lon": 10.7}, "note": None},
        {"city": "Oslo", "days": 30, "point": {"lat": 59.9}},
    ),
    ("fetch", FETCH, {"url": "https://example.com/a", "max_length": 2000}, {"url": 5}),
    (
        "search",
        SEARCH,
        {"query": "solar", "sources": ["web", "papers"], "since": None, "limit": 10},
        {"query": "solar", "sources": ["tv"], "since": 3, "limit": 0},
    ),
]

Check = Callable[[Any], Any]


def _ours(schema: dict[str, Any]) -> Check:
    return compile_schema(schema)


def _jsonschema_rs(schema: dict[str, Any]) -> Check:
    module = importlib.import_module("jsonschema_rs")
    return module.validator_for(schema).is_valid  # type: ignore[no-any-return]


def _jsonschema_rs_errors(schema: dict[str, Any]) -> Check:
    """Every error listed, not worded: the floor of ``ours`` on invalid arguments."""
    module = importlib.import_module("jsonschema_rs")
    validator = module.validator_for(schema)
    return lambda value: list(validator.iter_errors(value))


def _jsonschema_rs_evaluate(schema: dict[str, Any]) -> Check:
    """Every error listed as flat records: the floor of ``ours`` on invalid arguments."""
    module = importlib.import_module("jsonschema_rs")
    validator = module.validator_for(schema)
    return lambda value: validator.evaluate(value).errors()


def _fastjsonschema(schema: dict[str, Any]) -> Check:
    module = importlib.import_module("fastjsonschema")
    compiled = module.compile(schema)

    def check(value: Any) -> bool:
        try:
            compiled(value)
        except module.JsonSchemaException:
            return False
        return True

    return check


def _jsonschema(schema: dict[str, Any]) -> Check:
    module = importlib.import_module("jsonschema")
    return module.Draft202012Validator(schema).is_valid  # type: ignore[no-any-return]


CANDIDATES: dict[str, Callable[[dict[str, Any]], Check]] = {
    "ours": _ours,
    "jsonschema-rs": _jsonschema_rs,
    "rs iter_errors": _jsonschema_rs_errors,
    "rs evaluate": _jsonschema_rs_evaluate,
    "fastjsonschema": _fastjsonschema,
    "jsonschema": _jsonschema,
}


def _per_call_us(check: Check, value: Any) -> float:
    start = CLOCK()
    for _ in range(CALLS):
        check(value)
    return (CLOCK() - start) / CALLS * 1e6


def main() -> None:
    compiled: dict[str, list[tuple[Check, Any, Any]]] = {}
    for name, build in CANDIDATES.items():
        try:
            compiled[name] = [(build(schema), good, bad) for _, schema, good, bad in CASES]
        except ImportError:
            print(f"{name}: not installed, skipped")
    valid: dict[str, list[float]] = {name: [] for name in compiled}
    invalid: dict[str, list[float]] = {name: [] for name in compiled}
    for _ in range(ROUNDS):
        for name, checks in compiled.items():
            valid[name].append(statistics.fmean(_per_call_us(c, g) for c, g, _ in checks))
            invalid[name].append(statistics.fmean(_per_call_us(c, b) for c, _, b in checks))
    print(f"python {platform.python_version()}, {ROUNDS} rounds x {CALLS} calls, medians")
    print(f"{'candidate':<16}{'valid us/call':>15}{'invalid us/call':>17}")
    medians = {name: statistics.median(times) for name, times in valid.items()}
    for name in compiled:
        print(f"{name:<16}{medians[name]:>15.2f}{statistics.median(invalid[name]):>17.2f}")
    libraries = {n: t for n, t in medians.items() if n != "ours"}
    if libraries:
        fastest = min(libraries, key=libraries.__getitem__)
        print(f"fastest library on valid arguments: {fastest} ({libraries[fastest]:.2f} us)")
    ratio = medians["ours"] / BEFORE_VALID_US
    verdict = "PASS" if ratio <= 1.5 else "FAIL"
    print(f"ours valid vs before ({BEFORE_VALID_US} us): {ratio:.2f}x -> {verdict}")
    ratio = statistics.median(invalid["ours"]) / BEFORE_INVALID_US
    verdict = "PASS" if ratio <= 1.0 else "FAIL"
    print(f"ours invalid vs before ({BEFORE_INVALID_US} us): {ratio:.2f}x -> {verdict}")


if __name__ == "__main__":
    main()
