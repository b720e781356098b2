"""Formatting of the comparison results: the console table and docs/performance.md."""

from __future__ import annotations

import datetime
import os
import platform
import statistics
import subprocess
from pathlib import Path
from typing import Any

OURS = "good_agent"

TITLES = {
    "import": "Import time",
    "schema": "Schema generation (20 functions)",
    "round_trip": "Tool-call round trip (scripted model)",
    "round_trip_10": "Round trip, 10 sequential tool calls",
    "round_trip_50": "Round trip, 50 sequential tool calls",
    "round_trip_200": "Round trip, 200 sequential tool calls",
    "anthropic": "OpenAI format to Anthropic Messages request",
    "gemini": "OpenAI format to Gemini request",
    "text": "JSON tool call in text",
}

PEER_WORK = {
    ("import", "pydantic_ai"): "`import pydantic_ai`",
    ("import", "litellm"): "`import litellm` (local price list)",
    ("import", "instructor"): "`import instructor` (lazy: loads little until used)",
    ("schema", "pydantic_ai"): "`Tool(f).tool_def`",
    ("round_trip", "pydantic_ai"): "`Agent(FunctionModel(...)).run`",
    **{
        (f"round_trip_{n}", "pydantic_ai"): "`Agent(FunctionModel(...)).run`" for n in (10, 50, 200)
    },
    ("anthropic", "litellm"): "`AnthropicConfig` `map_openai_params` + `transform_request`",
    ("gemini", "litellm"): "`GoogleAIStudioGeminiConfig.map_openai_params` + "
    "`_transform_request_body`",
    ("text", "instructor"): "`extract_json_from_codeblock` + `json.loads`",
}

OUR_WORK = {
    "import": "`import good_agent`",
    "schema": "`Tool.from_function(f).signature`",
    "round_trip": "`Agent(model=ScriptedModel(...)).call`",
    **{f"round_trip_{n}": "`Agent(model=ScriptedModel(...)).call`" for n in (10, 50, 200)},
    "anthropic": "`anthropic_messages.encode_request`",
    "gemini": "`gemini.encode_request`",
    "text": "`providers.text.parse_tool_calls`",
}


def human(seconds: float) -> str:
    """A duration with a unit that keeps three significant digits readable."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


NOISE = 1.2
"""Ratios within this factor of 1 are flagged as within the noise of a loaded machine."""


def verdict(ratio: float) -> str:
    """Which side is faster, in words (differences under 5% are called even)."""
    if 0.95 <= ratio <= 1.05:
        return "about even"
    words = (
        f"good_agent {1 / ratio:.1f}x faster" if ratio < 1 else f"good_agent {ratio:.1f}x slower"
    )
    if 1 / NOISE <= ratio <= NOISE:
        words += " (within noise)"
    return words


def spread(values: list[float]) -> str:
    """Half the interquartile range of the round medians, relative to their median."""
    if len(values) < 4:
        return ""
    q1, _, q3 = statistics.quantiles(values, n=4)
    return f" ±{50 * (q3 - q1) / statistics.median(values):.0f}%"


def rows(outcomes: list[Any]) -> list[dict[str, str]]:
    """One row per timed pair, with medians over rounds and the ratio ours/theirs."""
    out = []
    for o in outcomes:
        if o.skipped is not None:
            continue
        ours, theirs = statistics.median(o.ours), statistics.median(o.theirs)
        ratio = ours / theirs
        out.append(
            {
                "what": TITLES.get(o.case, o.case),
                "unit": f"per {o.unit}",
                "peer": o.peer,
                "ours": human(ours) + spread(o.ours),
                "theirs": human(theirs) + spread(o.theirs),
                "ratio": f"{ratio:.2f}",
                "verdict": verdict(ratio),
                "ours_work": OUR_WORK.get(o.case, ""),
                "peer_work": PEER_WORK.get((o.case, o.peer), o.peer_note),
                "slower": "yes" if ratio > 1.05 else "",
            }
        )
    return out


def render_table(outcomes: list[Any]) -> str:
    """The markdown results table (also printed on the console)."""
    lines = [
        "| Comparison | Unit | good_agent | Peer | Peer's time | Ratio (ours / theirs) | Faster |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows(outcomes):
        lines.append(
            f"| {r['what']} | {r['unit']} | {r['ours']} | {r['peer']} | {r['theirs']} "
            f"| {r['ratio']} | {r['verdict']} |"
        )
    for o in outcomes:
        if o.skipped is not None:
            lines.append(
                f"| {TITLES.get(o.case, o.case)} | | | {o.peer} | not timed | | see below |"
            )
    return "\n".join(lines)


def cpu_model() -> str:
    """The CPU's model name on Linux, else what :mod:`platform` reports."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine(python: Path, versions: dict[str, str], rounds: int) -> dict[str, Any]:
    """Where and with what the figures were taken."""
    peer_python = subprocess.run(
        [str(python), "-c", "import platform; print(platform.python_version())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    info = {
        "date": datetime.date.today().isoformat(),
        "platform": platform.platform(),
        "cpu": cpu_model(),
        "cpu_count": os.cpu_count(),
        "python": peer_python,
        "versions": versions,
        "rounds": rounds,
    }
    libs = ", ".join(f"{k} {v}" for k, v in sorted(versions.items()))
    info["summary"] = (
        f"{info['date']}, {info['platform']}, {info['cpu']} x{info['cpu_count']}, "
        f"Python {peer_python}; {libs}"
    )
    return info


GROWTH_TARGET = 1.5
"""good_agent's per-call cost at 200 sequential calls, at most this times its cost at 10."""


def growth(outcomes: list[Any]) -> str:
    """The verdict on how good_agent's per-call cost grows with the conversation."""
    per_call = {
        o.case: statistics.median(o.ours)
        for o in outcomes
        if o.skipped is None and o.case.startswith("round_trip_")
    }
    if "round_trip_10" not in per_call or "round_trip_200" not in per_call:
        return "- Not measured in this run."
    lines = [
        f"- {n} calls: {human(per_call[f'round_trip_{n}'])} per call"
        for n in (10, 50, 200)
        if f"round_trip_{n}" in per_call
    ]
    ratio = per_call["round_trip_200"] / per_call["round_trip_10"]
    met = "meets" if ratio <= GROWTH_TARGET else "MISSES"
    lines.append(f"- target, 200 calls within {GROWTH_TARGET}x of 10: **{met}** ({ratio:.2f}x)")
    return "\n".join(lines)


INTERNAL_HEADING = "## The project's own benchmarks"


def kept_internal_section(page: Path) -> str:
    """The hand-maintained section on the project's own benchmarks, kept on rewrite."""
    if not page.exists():
        return INTERNAL_HEADING + "\n\nNot yet recorded.\n"
    text = page.read_text()
    start = text.find(INTERNAL_HEADING)
    return text[start:] if start >= 0 else INTERNAL_HEADING + "\n\nNot yet recorded.\n"


def render_page(outcomes: list[Any], info: dict[str, Any]) -> str:
    """The whole of docs/performance.md."""
    table_rows = rows(outcomes)
    slower = [r for r in table_rows if r["slower"]]
    skipped = [o for o in outcomes if o.skipped is not None]
    versions = "\n".join(f"- {k} {v}" for k, v in sorted(info["versions"].items()))
    elapsed = info.get("elapsed_s")
    took = f", and the whole run took {elapsed / 60:.0f} minutes" if elapsed else ""
    work = "\n".join(
        f"| {r['what']} | {r['peer']} | {r['ours_work']} | {r['peer_work']} |" for r in table_rows
    )
    if slower:
        slow_text = "\n".join(
            f"- **{r['what']}** against {r['peer']}: {r['ratio']} times the time "
            f"({r['ours']} against {r['theirs']} {r['unit']})." + _why(r)
            for r in slower
        )
    else:
        slow_text = "- Nowhere in this run: every timed comparison was even or faster."
    skipped_text = (
        "\n".join(
            f"- **{TITLES.get(o.case, o.case)}** against {o.peer}: {o.skipped.rstrip('.')}."
            for o in skipped
        )
        or "- None: every pair produced equivalent output."
    )
    return PAGE.format(
        date=info["date"],
        platform=info["platform"],
        cpu=info["cpu"],
        cpu_count=info["cpu_count"],
        python=info["python"],
        rounds=info["rounds"],
        versions=versions,
        table=render_table(outcomes),
        slower=slow_text,
        skipped=skipped_text,
        work=work,
        took=took,
        growth=growth(outcomes),
        internal=kept_internal_section(Path(__file__).resolve().parents[2] / "docs/performance.md"),
    )


WHY = {
    "Import time": " good_agent loads pydantic and its agent core (the agent, its run "
    "engine, message and tool models) when imported; vendors, extensions, the server "
    "and the text parsers load on first use. instructor defers nearly all "
    "of its imports until an attribute such as `instructor.from_openai` is first used, "
    "so its figure is the cost of a lookup table, not of a working library.",
    "Schema generation (20 functions)": " Both build a pydantic model per function and "
    "ask pydantic for its JSON schema; they differ in docstring parsing (good_agent's "
    "own Google-style parser, pydantic-ai's griffe) and in what they do around it.",
    "JSON tool call in text": " instructor's helper finds the last JSON span and the "
    "caller decodes it; `parse_tool_calls` runs the same incremental scanner used for "
    "streaming, recognizes every text format at once (Hermes tags, Mistral, Llama, "
    "pythonic, fenced and bare JSON), separates the prose around the call, keeps "
    "`<think>` reasoning apart and leaves calls naming unknown tools as text.",
}


def _why(row: dict[str, str]) -> str:
    return WHY.get(row["what"], "")


PAGE = """# Performance against other libraries

These figures compare good_agent with [pydantic-ai](https://ai.pydantic.dev/),
[LiteLLM](https://docs.litellm.ai/) and [instructor](https://python.useinstructor.com/)
on the same local work: nothing calls a model or the network. They are regenerated,
page and all, by

```bash
python benchmarks/compare/run.py            # all comparisons, rewrites this page
python benchmarks/compare/run.py --no-docs  # print only
```

Measured on {date}: `{platform}`, {cpu}, {cpu_count} CPUs, Python {python},
{rounds} rounds{took}. Library versions:

{versions}

## Results

Times are medians over rounds (± half the interquartile range of the round medians,
relative). The ratio is good_agent's time divided by the peer's: below 1 good_agent
is faster, above 1 it is slower. A ratio between 0.83 and 1.2 is marked "within
noise": on a loaded 2-core machine such differences do not reliably repeat.

{table}

## Growth with the conversation

The round trip at 10, 50 and 200 sequential tool calls (one call per model turn, so
the history grows by two messages per call), per tool call:

{growth}

## Where good_agent is slower

{slower}

## Comparisons that were not timed

{skipped}

## What each side runs

| Comparison | Peer | good_agent runs | The peer runs |
| --- | --- | --- | --- |
{work}

## Method

- **Same inputs.** `benchmarks/compare/shared.py` and `tool_functions.py` define the
  inputs once: 20 tool functions over nested pydantic models, enums, literals, lists
  and optional fields;
  a scripted conversation of 5 model turns with 2 tools and one parallel pair (5 tool
  calls); the same 2 tools over 10, 50 and 200 sequential calls (one per model turn,
  so each request carries a longer history); an OpenAI-format history with a system
  prompt, parallel tool calls, tool results and a follow-up question; and model
  replies that each hold one fenced JSON tool call with prose around it.
- **Same output, checked first.** Every library runs each comparison once and its
  output is reduced to what must agree: for schemas, each tool's property names,
  types, enums and required lists with `$ref`s resolved; for the round trip, the calls,
  their arguments, the tool results, the number of model turns and the final answer;
  for translation, the system prompt, each turn's role and block kinds, tool call ids,
  names and arguments, tool result ids and text, and the tools' schemas; for text, the
  tool names and arguments. Only pairs whose reductions are equal are timed; any other
  pair is listed above with the first difference or the reason, never timed.
  Two normalizations are applied: consecutive Gemini contents of the same role are
  merged (the API reads them as one turn; LiteLLM leaves them apart, good_agent merges
  them), and Gemini's function response payload is not compared (LiteLLM sends the
  tool's JSON object itself, good_agent wraps it as `{{"output": ...}}`).
- **One process per library and comparison.** `run.py` starts each library's worker
  (`worker_<library>.py`) in a fresh subprocess of a separate virtualenv,
  `benchmarks/compare/.venv`, built from `benchmarks/compare/requirements.txt` plus
  this repository. Within a round the order of the subprocesses is shuffled, so
  background load falls on every library alike.
- **Small batches, medians.** A worker sizes a batch to about 40 ms from a warm-up,
  then runs batches for about 0.4 s and reports the time per operation of each batch.
  A round's figure is the median of its batches; the table shows the median of the
  rounds. Import time is one import in a fresh process per round (after a first,
  uncounted import that writes the bytecode caches).
- **Per what.** Schema generation is per function, translation per request, text
  extraction per reply, and the round trip per tool call: a whole conversation from
  the prompt to the answer, divided by its 5 calls. good_agent builds an `Agent` per
  conversation (the agent holds the history); pydantic-ai reuses one `Agent` for
  every run, as its documentation intends, so its figure does not include building one.
- **Noise.** The reference machine has 2 cores and other work (test suites, other
  benchmarks) was running; treat differences under about 20% as noise unless they
  repeat across runs.

LiteLLM is imported with `LITELLM_LOCAL_MODEL_COST_MAP=True`: otherwise it fetches
its price list over the network at import time (and, offline, retries with sleeps).
LiteLLM removes the system message from the message list it is given, so each call
on both sides gets a fresh shallow copy of the list.

{internal}"""
