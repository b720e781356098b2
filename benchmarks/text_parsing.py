"""Benchmark the text tool-call parsers (run: python benchmarks/text_parsing.py).

Every row is a ratio of two timings measured in this run, interleaved (A, B, A,
B, ...) and reduced to medians, then printed with its target and a verdict:

* a realistic reply (~8 KB: reasoning, prose and three Hermes calls) parsed
  one-shot, as throughput relative to ``json.loads`` of its three payloads;
* the same reply streamed in 1- and 4-character deltas, relative to one-shot;
* 1 MB of repeated ```` ```json\\n{ ```` openings, and every other adversarial
  1 MB input, relative to a clean 1 MB call;
* 100 KB -> 1 MB -> 10 MB of the same inputs: each 10x step must cost under
  15x (linear, with room for cache effects).

Timings pause the garbage collector, as ``timeit`` does, so that a collection
triggered by the many objects of a 10 MB parse does not count as parsing.
``--quick`` runs fewer rounds (for a smoke test).
"""

from __future__ import annotations

import gc
import itertools
import json
import statistics
import sys
import time
from collections.abc import Callable

from good_agent.providers.text import get_parser, parse_text

KB = 1_000
MB = 1_000_000
PARSER = get_parser()


def clock(function: Callable[[], object], repeat: int) -> float:
    """Mean seconds per call, with the garbage collector paused (as ``timeit`` does)."""
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        for _ in range(repeat):
            function()
        return (time.perf_counter() - start) / repeat
    finally:
        gc.enable()


def interleaved(
    a: Callable[[], object], b: Callable[[], object], rounds: int, repeat: int = 1
) -> tuple[float, float]:
    """Median seconds of ``a`` and of ``b``, measured alternately."""
    times_a: list[float] = []
    times_b: list[float] = []
    for _ in range(rounds):
        times_a.append(clock(a, repeat))
        times_b.append(clock(b, repeat))
    return statistics.median(times_a), statistics.median(times_b)


def arguments(index: int) -> dict[str, object]:
    return {
        "query": f"flights from city {index} to the coast",
        "filters": {"max_price": 400 + index, "airlines": ["AF", "BA", "LH"], "direct": True},
        "notes": 'Prefer a window seat, "soon", no red-eyes. ' * 6,
        "legs": [
            {"from": f"C{index}{j}", "to": f"D{j}", "day": j, "price": 99.5 + j, "ok": j % 2 == 0}
            for j in range(24)
        ],
    }


def realistic_reply() -> tuple[str, list[str]]:
    """About 8 KB: reasoning, prose and three Hermes/Qwen calls, as a local model writes."""
    payloads = [
        json.dumps({"name": f"search_{index}", "arguments": arguments(index)}) for index in range(3)
    ]
    prose = "I'll compare prices and times across several sources before booking. "
    text = (
        "<think>"
        + prose * 6
        + "</think>\n"
        + prose * 8
        + "".join(f"\n<tool_call>\n{payload}\n</tool_call>" for payload in payloads)
        + "\n"
    )
    return text, payloads


def big_call(size: int) -> str:
    rows = []
    total = 0
    index = 0
    while total < size:
        row = {"id": index, "name": f"item {index}", "tags": ["a", "b"], "ok": True, "v": 1.5}
        rows.append(row)
        total += len(json.dumps(row)) + 2
        index += 1
    call = json.dumps({"name": "store", "arguments": {"rows": rows, "note": 'a " and } b'}})
    return f"<tool_call>{call}</tool_call>"


def fill(piece: str, size: int) -> str:
    return piece * (size // len(piece))


def adversarial(size: int) -> dict[str, str]:
    """Adversarial inputs of about ``size`` characters."""
    return {
        "```json\\n{ repeated": fill("```json\n{", size),
        "{ repeated": "{" * size,
        "[ repeated": "[" * size,
        '{" repeated': fill('{"', size),
        "[TOOL_CALLS] repeated": fill("[TOOL_CALLS]", size),
        "<tool_call> repeated": fill("<tool_call>", size),
        "<think> repeated": fill("<think>", size),
        "<|python_tag|>{} repeated": fill('<|python_tag|>{"name": "f", "parameters": {}};', size),
        "unclosed string": '{"name": "f", "arguments": {"a": "' + "x" * size,
        "unclosed string in tag": '<tool_call>{"name": "f", "arguments": {"a": "' + "x" * size,
        "nested arrays": "[" * (size // 2) + "]" * (size // 2),
        "nested arrays in tag": "<tool_call>" + "[" * (size // 2) + "]" * (size // 2),
        "nested objects": fill('{"a":', size // 2) + "1" + "}" * (size // 10),
        "backslashes in string": '{"a": "' + "\\" * size,
        "whitespace": " " * size,
        "prose": fill("Plain answer text, no calls at all. ", size),
    }


class _NoOpParser:
    """The least a streaming parser can do per delta: keep it and return no events."""

    def __init__(self) -> None:
        self._held: list[str] = []

    def feed(self, delta: str) -> list[object]:
        self._held.append(delta)
        return []


def floor(text: str, size: int) -> Callable[[], object]:
    """One Python method call per delta and nothing else: the floor of any streaming parser."""
    deltas = [text[i : i + size] for i in range(0, len(text), size)]

    def run() -> object:
        stream = _NoOpParser()
        feed = stream.feed
        for delta in deltas:
            feed(delta)
        return stream

    return run


def streamed(text: str, size: int) -> Callable[[], object]:
    deltas = [text[i : i + size] for i in range(0, len(text), size)]

    def run() -> object:
        stream = PARSER.streaming()
        feed = stream.feed
        for delta in deltas:
            feed(delta)
        stream.finish()
        return stream.result()

    return run


class Table:
    """Collects verdicts and prints rows."""

    def __init__(self) -> None:
        self.misses: list[str] = []

    def row(self, case: str, measured: str, target: str, ok: bool) -> None:
        verdict = "met" if ok else "MISSED"
        if not ok:
            self.misses.append(case)
        print(f"  {case:<44} {measured:>10}   target {target:<10} {verdict}")


def main() -> None:
    quick = "--quick" in sys.argv
    rounds = 3 if quick else 9
    table = Table()

    text, payloads = realistic_reply()
    assert len(parse_text(text).calls) == 3
    print(f"Realistic reply ({len(text):,} characters, 3 calls); medians of {rounds} interleaved")
    print("rounds; machine state printed by the caller")
    one, ref = interleaved(
        lambda: PARSER.parse(text), lambda: [json.loads(p) for p in payloads], rounds, 200
    )
    table.row(
        "one-shot throughput vs json.loads of payloads",
        f"{ref / one:.2f}x",
        ">= 0.5x",
        ref / one >= 0.5,
    )
    for size, target in ((1, 3.0), (4, 2.0)):
        by_delta, one = interleaved(streamed(text, size), lambda: PARSER.parse(text), rounds, 20)
        table.row(
            f"{size}-character deltas vs one-shot",
            f"{by_delta / one:.2f}x",
            f"< {target:g}x",
            by_delta / one < target,
        )
        least, one = interleaved(floor(text, size), lambda: PARSER.parse(text), rounds, 20)
        print(f"    (floor: one no-op method call per delta = {least / one:.2f}x one-shot)")

    clean = big_call(MB)
    print()
    print("Adversarial 1 MB inputs vs a clean 1 MB call")
    for name, bad in adversarial(MB).items():
        took, base = interleaved(
            lambda b=bad: PARSER.parse(b), lambda: PARSER.parse(clean), max(3, rounds // 3)
        )
        table.row(name, f"{took / base:.2f}x", "< 10x", took / base < 10)
    base_json = json.loads(clean[len("<tool_call>") : -len("</tool_call>")])
    assert parse_text(clean).calls[0].arguments == base_json["arguments"]

    print()
    print("Scaling: time of each 10x step in size (linear = 10x)")
    sizes = (100 * KB, MB) if quick else (100 * KB, MB, 10 * MB)
    cases: dict[str, Callable[[int], str]] = {
        "clean call": big_call,
        "```json\\n{ repeated": lambda n: fill("```json\n{", n),
        "<tool_call> repeated": lambda n: fill("<tool_call>", n),
        "{ repeated": lambda n: "{" * n,
        "prose": lambda n: fill("Plain answer text, no calls at all. ", n),
    }
    for name, make in cases.items():
        times = []
        for size in sizes:
            sample = make(size)
            times.append(
                statistics.median(clock(lambda s=sample: PARSER.parse(s), 1) for _ in range(3))
            )
        steps = [later / earlier for earlier, later in itertools.pairwise(times)]
        shown = " -> ".join(f"{step:.1f}x" for step in steps)
        table.row(
            f"{name} ({' -> '.join(_size(s) for s in sizes)})",
            shown,
            "< 15x/step",
            all(step < 15 for step in steps),
        )

    print()
    if table.misses:
        print(f"MISSED {len(table.misses)} target(s): " + "; ".join(table.misses))
    else:
        print("All targets met.")


def _size(size: int) -> str:
    return f"{size // MB} MB" if size >= MB else f"{size // KB} KB"


if __name__ == "__main__":
    main()
