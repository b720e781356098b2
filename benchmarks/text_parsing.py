"""Benchmark the text tool-call parsers (run: python benchmarks/text_parsing.py).

Prints three tables:

* clean payloads: our extraction throughput as a ratio of ``json.loads`` on the
  same JSON (target at least 0.3x);
* 1 MB adversarial inputs: time as a multiple of the clean 1 MB case (target
  under 20x);
* streaming: 1-character deltas (and 16-character deltas) as a multiple of the
  one-shot parse of the same text (target under 5x).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

from good_agent.providers.text import get_parser, parse_text

MB = 1_000_000


def best(function: Callable[[], object], repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def big_arguments(size: int) -> dict[str, object]:
    rows = []
    total = 0
    index = 0
    while total < size:
        row = {"id": index, "name": f"item {index}", "tags": ["a", "b"], "ok": True, "v": 1.5}
        rows.append(row)
        total += len(json.dumps(row)) + 2
        index += 1
    return {"rows": rows, "note": 'quotes " and braces } inside'}


def clean_cases() -> dict[str, tuple[str, str]]:
    call = json.dumps({"name": "store", "arguments": big_arguments(MB)})
    small = json.dumps({"name": "get_weather", "arguments": {"city": "Paris", "unit": "C"}})
    return {
        "hermes 1 MB": (f"<tool_call>{call}</tool_call>", call),
        "bare JSON 1 MB": (call, call),
        "mistral 1 MB": (f"[TOOL_CALLS][{call}]", f"[{call}]"),
        "llama3 1 MB": (f"<|python_tag|>{call}", call),
        "hermes small x1000": (f"Let me check. <tool_call>{small}</tool_call>", small),
    }


def adversarial_cases() -> dict[str, str]:
    return {
        "1 MB of {": "{" * MB,
        "1 MB of [": "[" * MB,
        '1 MB of {"': '{"' * (MB // 2),
        "[TOOL_CALLS] x 100k": "[TOOL_CALLS]" * 100_000,
        "<tool_call> x 90k": "<tool_call>" * 90_000,
        "unclosed string": '{"name": "f", "arguments": {"a": "' + "x" * MB,
        "unclosed string in tag": '<tool_call>{"name": "f", "arguments": {"a": "' + "x" * MB,
        "nested arrays 100k": "[" * 100_000 + "]" * 100_000,
        "nested arrays in tag": "<tool_call>" + "[" * 100_000 + "]" * 100_000 + "</tool_call>",
        "nested objects 100k": '{"a":' * 100_000 + "1" + "}" * 100_000,
        "backslashes": '{"a": "' + "\\" * MB,
        "whitespace": " " * MB,
    }


def row(*cells: object) -> None:
    print("  ".join(f"{cell:<26}" if i == 0 else f"{cell:>12}" for i, cell in enumerate(cells)))


def main() -> None:
    parser = get_parser()
    print("Clean payloads (throughput ratio = json.loads time / our time; target >= 0.3x)")
    row("case", "ours ms", "json ms", "ratio")
    clean = clean_cases()
    for name, (text, payload) in clean.items():
        repeat = 1000 if "small" in name else 1
        ours = best(lambda t=text, r=repeat: [parser.parse(t) for _ in range(r)])
        ref = best(lambda p=payload, r=repeat: [json.loads(p) for _ in range(r)])
        row(name, f"{ours * 1e3:.2f}", f"{ref * 1e3:.2f}", f"{ref / ours:.2f}x")
    assert parse_text(clean["hermes 1 MB"][0]).calls

    baseline_text = clean["hermes 1 MB"][0]
    baseline = best(lambda: parser.parse(baseline_text))
    print()
    print(f"Adversarial inputs (multiple of the clean 1 MB hermes parse, {baseline * 1e3:.1f} ms;")
    print("target < 20x)")
    row("case", "size", "ms", "multiple")
    for name, text in adversarial_cases().items():
        took = best(lambda t=text: parser.parse(t), repeat=3)
        row(name, f"{len(text):,}", f"{took * 1e3:.1f}", f"{took / baseline:.1f}x")

    print()
    print("Streaming (multiple of the one-shot parse of the same text; target < 5x)")
    row("case", "one-shot ms", "delta=1 ms", "x", "delta=16 x")
    small = json.dumps({"name": "search", "arguments": {"query": "cheap flights", "limit": 5}})
    texts = {
        "hermes 2 KB": "I'll search. " * 100 + f"<tool_call>{small}</tool_call>",
        "mistral 64 KB args": "[TOOL_CALLS]"
        + json.dumps([{"name": "store", "arguments": big_arguments(64_000)}]),
        "prose 64 KB": "Plain answer text with no calls. " * 2000,
    }
    for name, text in texts.items():
        one = best(lambda t=text: parser.parse(t))

        def chunked(t: str, size: int) -> None:
            stream = parser.streaming()
            for i in range(0, len(t), size):
                stream.feed(t[i : i + size])
            stream.finish()

        by_one = best(lambda t=text: chunked(t, 1), repeat=3)
        by_16 = best(lambda t=text: chunked(t, 16), repeat=3)
        row(
            name,
            f"{one * 1e3:.2f}",
            f"{by_one * 1e3:.1f}",
            f"{by_one / one:.0f}x",
            f"{by_16 / one:.0f}x",
        )


if __name__ == "__main__":
    main()
