"""Compare good_agent with pydantic-ai, LiteLLM and instructor on the same work.

Run: ``python benchmarks/compare/run.py`` (any Python 3.11+; only the standard
library is used here). The peers are installed into ``benchmarks/compare/.venv``,
created on first use from ``requirements.txt`` together with this repository
(editable), never into the project's own environment. No model is called: every
comparison is local work.

Each comparison first runs every library once and checks that the outputs agree
(same properties and required fields, same calls and arguments, same turns and
roles); a pair that does not agree is reported and not timed. Then, for several
rounds, each library's worker runs in its own fresh subprocess, in a shuffled
order within each round, and reports seconds per operation for many small
batches. A round's figure is the median of its batches; the result is the median
of the rounds. ``docs/performance.md`` is rewritten with the results unless
``--no-docs`` is given; ``--json FILE`` keeps the raw per-round figures and
``--render FILE`` rewrites the page from such a file without measuring again.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
VENV = HERE / ".venv"
REQUIREMENTS = HERE / "requirements.txt"
DOCS_PAGE = REPO / "docs" / "performance.md"

OURS = "good_agent"

COMPARISONS: dict[str, list[str]] = {
    "import": [OURS, "pydantic_ai", "litellm", "instructor"],
    "schema": [OURS, "pydantic_ai", "litellm"],
    "round_trip": [OURS, "pydantic_ai"],
    "translation": [OURS, "litellm"],
    "text": [OURS, "instructor"],
}
"""Each comparison and the libraries that take part (ours first)."""

TITLES = {
    "import": "Import time",
    "schema": "Schema generation",
    "round_trip": "Tool-call round trip",
    "anthropic": "Translation to Anthropic Messages",
    "gemini": "Translation to Gemini",
    "text": "Text tool-call extraction",
}


@dataclass
class Outcome:
    """What is known about one (case, peer) pair after the check and the rounds."""

    comparison: str
    case: str
    peer: str
    unit: str = ""
    ours_note: str = ""
    peer_note: str = ""
    skipped: str | None = None
    ours: list[float] = field(default_factory=list)
    theirs: list[float] = field(default_factory=list)


def venv_python() -> Path:
    """The separate environment's interpreter, created or refreshed when needed."""
    python = VENV / "bin" / "python"
    stamp = VENV / ".requirements.sha256"
    wanted = hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()
    if python.exists() and stamp.exists() and stamp.read_text().strip() == wanted:
        return python
    print(f"setting up {VENV.relative_to(REPO)} (pydantic-ai, litellm, instructor, good_agent)")
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, "-r", str(REQUIREMENTS)], check=True)
    subprocess.run([*pip, "-e", str(REPO)], check=True)
    stamp.write_text(wanted + "\n")
    return python


def run_worker(python: Path, library: str, comparison: str, *extra: str) -> dict[str, Any]:
    """Run one worker in a fresh process and return its JSON report."""
    script = HERE / f"worker_{library}.py"
    env = {**os.environ, "PYTHONPATH": str(HERE)}
    # Bytecode caches must be written (the first, uncounted run does it), or every
    # import of a library installed without them would be timed compiling source.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    proc = subprocess.run(
        [str(python), str(script), comparison, *extra],
        cwd=HERE,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(
            f"{library} {comparison} failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}"
        )
    report: dict[str, Any] = json.loads(lines[-1])
    return report


def first_difference(a: Any, b: Any, path: str = "") -> str:
    """Where two fingerprints first differ, in words."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{path}/{key}: present on one side only"
            if a[key] != b[key]:
                return first_difference(a[key], b[key], f"{path}/{key}")
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items vs {len(b)}"
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return first_difference(x, y, f"{path}[{index}]")
    return f"{path}: {json.dumps(a)[:120]} vs {json.dumps(b)[:120]}"


def check(python: Path, names: list[str]) -> tuple[list[Outcome], dict[str, str]]:
    """Run every worker once, compare outputs with ours, and decide what is timed."""
    outcomes: list[Outcome] = []
    versions: dict[str, str] = {}
    for comparison in names:
        reports = {}
        for library in COMPARISONS[comparison]:
            reports[library] = run_worker(python, library, comparison, "--check")
            versions[library] = reports[library]["version"]
        ours = reports[OURS]
        for peer in COMPARISONS[comparison][1:]:
            theirs = reports[peer]
            if "not_applicable" in theirs:
                outcomes.append(
                    Outcome(comparison, comparison, peer, skipped=theirs["not_applicable"])
                )
                continue
            by_name = {r["name"]: r for r in theirs["results"]}
            for mine in ours["results"]:
                other = by_name.get(mine["name"])
                outcome = Outcome(
                    comparison,
                    mine["name"],
                    peer,
                    unit=mine["unit"],
                    ours_note=mine["note"],
                    peer_note=other["note"] if other else "",
                )
                if other is None:
                    outcome.skipped = f"{peer} has no '{mine['name']}' case"
                elif mine["fingerprint"] != other["fingerprint"]:
                    outcome.skipped = "outputs differ, so the work differs: " + first_difference(
                        mine["fingerprint"], other["fingerprint"]
                    )
                outcomes.append(outcome)
    return outcomes, versions


def timed_rounds(
    python: Path, outcomes: list[Outcome], rounds: int, budget: float, seed: int
) -> None:
    """Run the timing rounds, interleaving libraries, and store one median per round."""
    rng = random.Random(seed)
    wanted: dict[str, set[str]] = {}
    for outcome in outcomes:
        if outcome.skipped is None:
            wanted.setdefault(outcome.comparison, set()).update({OURS, outcome.peer})
    jobs = [(c, lib) for c, libs in wanted.items() for lib in sorted(libs)]
    for number in range(1, rounds + 1):
        started = time.perf_counter()
        rng.shuffle(jobs)
        figures: dict[tuple[str, str, str], float] = {}
        for comparison, library in jobs:
            report = run_worker(python, library, comparison, "--budget", str(budget))
            for result in report["results"]:
                figures[(comparison, result["name"], library)] = statistics.median(
                    result["seconds"]
                )
        for outcome in outcomes:
            if outcome.skipped is None:
                outcome.ours.append(figures[(outcome.comparison, outcome.case, OURS)])
                outcome.theirs.append(figures[(outcome.comparison, outcome.case, outcome.peer)])
        print(f"  round {number}/{rounds} done in {time.perf_counter() - started:.0f}s")


def main(argv: list[str] | None = None) -> int:
    """Entry point: set up, check, time, print and (by default) write the docs page."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9, help="timing rounds (default 9)")
    parser.add_argument(
        "--budget", type=float, default=0.4, help="seconds of batches per worker run"
    )
    parser.add_argument("--only", action="append", choices=sorted(COMPARISONS), help="repeatable")
    parser.add_argument("--seed", type=int, default=8, help="seed of the interleaving order")
    parser.add_argument("--no-docs", action="store_true", help="do not rewrite the docs page")
    parser.add_argument(
        "--json", type=Path, help="also write the raw per-round figures to this file"
    )
    parser.add_argument(
        "--render", type=Path, help="only rewrite the docs page from a file written by --json"
    )
    args = parser.parse_args(argv)

    from report import machine, render_page, render_table

    if args.render:
        saved = json.loads(args.render.read_text())
        outcomes = [Outcome(**fields) for fields in saved["outcomes"]]
        print(render_table(outcomes))
        DOCS_PAGE.write_text(render_page(outcomes, saved["machine"]))
        print(f"wrote {DOCS_PAGE.relative_to(REPO)}")
        return 0

    started = time.perf_counter()
    python = venv_python()
    names = args.only or list(COMPARISONS)
    print("checking that every library produces the same output ...")
    outcomes, versions = check(python, names)
    for outcome in outcomes:
        if outcome.skipped:
            print(f"  skip {outcome.case} vs {outcome.peer}: {outcome.skipped}")
    print(f"timing: {args.rounds} rounds, one fresh process per library and comparison")
    timed_rounds(python, outcomes, args.rounds, args.budget, args.seed)
    info = machine(python, versions, args.rounds)
    info["elapsed_s"] = round(time.perf_counter() - started)
    print()
    print(render_table(outcomes))
    print(f"\n{info['summary']}; total {time.perf_counter() - started:.0f}s")
    if args.json:
        args.json.write_text(
            json.dumps({"machine": info, "outcomes": [vars(o) for o in outcomes]}, indent=2)
        )
    if not args.no_docs and not args.only:
        DOCS_PAGE.write_text(render_page(outcomes, info))
        print(f"wrote {DOCS_PAGE.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
