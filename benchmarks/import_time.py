"""Import time of ``good_agent``, beside pydantic-ai, pydantic and an earlier commit.

Run: ``python benchmarks/import_time.py [--before REF] [--rounds N] [--docs]``.

Each figure is the time of one ``import X`` statement in a fresh interpreter (the
interpreter's own start is not counted), the median of ``--rounds`` rounds; in every
round each subject runs once, in a shuffled order, so a busy machine slows them alike.
A first, uncounted run of each writes the bytecode caches. Besides the time, each run
reports how many modules the import added to ``sys.modules`` and how many of them are
the library's own.

The subjects: this checkout's ``import good_agent``; the same at ``--before REF``
(checked out into a temporary ``git worktree``, removed afterwards); ``import
pydantic_ai`` when an interpreter that has it is found (``--peer-python``, else this
one, else ``benchmarks/compare/.venv``, which ``benchmarks/compare/run.py`` sets up);
``from pydantic import BaseModel``, the floor every one of them stands on (a bare
``import pydantic`` loads little: pydantic itself imports on use); and the same with one
model class defined (``class M(BaseModel): x: int = 0``), the floor of any package whose
types are pydantic models: defining the first model loads the rest of pydantic (its
fields, constraint and validator modules), which importing ``BaseModel`` does not. The
verdict compares ``good_agent`` with pydantic_ai against the target (at most 0.15 of its
time), and says where the target falls against the floors.
``--docs`` writes the table into ``docs/performance.md`` between the import markers.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOCS_PAGE = REPO / "docs" / "performance.md"
START = "<!-- import-time:start -->"
END = "<!-- import-time:end -->"
TARGET = 0.15
"""``import good_agent`` at most this share of ``import pydantic_ai``'s time."""
ONE_MODEL = "from pydantic import BaseModel\nclass M(BaseModel):\n    x: int = 0"
"""The floor of a package whose types are pydantic models: one model defined."""
MODEL_FLOOR = "`from pydantic import BaseModel` and one model defined"

PROBE = """\
import json, sys, time
before = set(sys.modules)
start = time.perf_counter()
{statement}
elapsed = time.perf_counter() - start
added = set(sys.modules) - before
own = [m for m in added if m == {top!r} or m.startswith({top!r} + ".")]
print(json.dumps({{"seconds": elapsed, "modules": len(added), "own": len(own)}}))
"""


@dataclass
class Subject:
    """One ``import`` to time: its label, module, interpreter and source path."""

    label: str
    module: str
    python: str
    path: str | None = None
    statement: str = ""
    seconds: list[float] = field(default_factory=list)
    modules: int = 0
    own: int = 0

    def run(self) -> dict[str, float]:
        """Import the module once in a fresh interpreter and return its report."""
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        if self.path is not None:
            env["PYTHONPATH"] = self.path
        else:
            env.pop("PYTHONPATH", None)
        statement = self.statement or f"import {self.module}"
        code = PROBE.format(statement=statement, top=self.module.split(".")[0])
        result = subprocess.run(
            [self.python, "-c", code],
            capture_output=True,
            text=True,
            env=env,
            cwd=tempfile.gettempdir(),
            timeout=120,
            check=False,
        )
        if result.returncode != 0:
            raise RuntimeError(f"{self.label}: import failed:\n{result.stderr[-2000:]}")
        report: dict[str, float] = json.loads(result.stdout.splitlines()[-1])
        return report

    @property
    def median_ms(self) -> float:
        """The median of the rounds, in milliseconds."""
        return statistics.median(self.seconds) * 1000

    @property
    def spread(self) -> str:
        """The rounds' interquartile range around the median, as ± percent."""
        if len(self.seconds) < 4:
            return ""
        q1, _, q3 = statistics.quantiles(self.seconds, n=4)
        return f"±{(q3 - q1) / 2 / statistics.median(self.seconds) * 100:.0f}%"


def has_module(python: str, module: str) -> bool:
    """Whether ``python`` can import ``module`` (without importing it)."""
    code = f"import importlib.util, sys; sys.exit(importlib.util.find_spec({module!r}) is None)"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([python, "-c", code], env=env, check=False).returncode == 0


def peer_python(given: str | None) -> str | None:
    """An interpreter that has pydantic_ai, or ``None``."""
    candidates = [given] if given else [sys.executable]
    if not given:
        candidates.append(str(REPO / "benchmarks" / "compare" / ".venv" / "bin" / "python"))
    for python in candidates:
        if python and Path(python).exists() and has_module(python, "pydantic_ai"):
            return python
    return None


def checkout(ref: str, where: Path) -> str:
    """Check ``ref`` out into a detached worktree at ``where``; its commit's short hash."""
    subprocess.run(
        ["git", "-C", str(REPO), "worktree", "add", "--detach", "--force", str(where), ref],
        check=True,
        capture_output=True,
    )
    return subprocess.run(
        ["git", "-C", str(where), "rev-parse", "--short", "HEAD"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def measure(subjects: list[Subject], rounds: int) -> None:
    """One uncounted run of each subject, then ``rounds`` shuffled rounds."""
    for subject in subjects:
        report = subject.run()
        subject.modules, subject.own = int(report["modules"]), int(report["own"])
    order = list(subjects)
    for index in range(rounds):
        random.shuffle(order)
        for subject in order:
            subject.seconds.append(subject.run()["seconds"])
        print(f"round {index + 1}/{rounds}", file=sys.stderr, end="\r")
    print(file=sys.stderr)


def table(subjects: list[Subject], rounds: int) -> list[str]:
    """The results as Markdown lines: a table, the ratios and the verdict."""
    ours = subjects[0]
    lines = [
        f"| import | time (median of {rounds}) | modules loaded | of them its own |",
        "| --- | --- | --- | --- |",
    ]
    for subject in subjects:
        lines.append(
            f"| {subject.label} | {subject.median_ms:.0f} ms {subject.spread} "
            f"| {subject.modules} | {subject.own} |"
        )
    lines.append("")
    by_label = {s.label: s for s in subjects}
    peer = next((s for s in subjects if s.module == "pydantic_ai"), None)
    before = next((s for s in subjects if s.label.startswith("`import good_agent` at")), None)
    if before is not None:
        lines.append(
            f"- Against {before.label.removeprefix('`import good_agent` at ')}: "
            f"{ours.median_ms / before.median_ms:.2f}x the time "
            f"({before.median_ms:.0f} ms -> {ours.median_ms:.0f} ms), "
            f"{before.own} -> {ours.own} of the package's modules."
        )
    floor = by_label.get("`from pydantic import BaseModel`")
    if floor is not None:
        lines.append(
            f"- Above pydantic alone: {ours.median_ms - floor.median_ms:.0f} ms "
            f"(`from pydantic import BaseModel`: {floor.median_ms:.0f} ms; a bare "
            "`import pydantic` defers that very import)."
        )
    if peer is None:
        lines.append("- pydantic_ai: not installed for this run (`--peer-python`); no verdict.")
    else:
        ratio = ours.median_ms / peer.median_ms
        verdict = "met" if ratio <= TARGET else "NOT met"
        lines.append(
            f"- Against pydantic_ai: {ratio:.2f}x its time; the target is at most "
            f"{TARGET:.2f}x: **{verdict}**."
        )
        if floor is not None:
            share = floor.median_ms / peer.median_ms
            lines.append(
                f"- `from pydantic import BaseModel` alone is {share:.2f}x pydantic_ai's "
                f"time: the target leaves {max(TARGET - share, 0):.2f}x for all that "
                "`import good_agent` adds above pydantic."
            )
        model_floor = by_label.get(MODEL_FLOOR)
        if model_floor is not None:
            share = model_floor.median_ms / peer.median_ms
            where = "above" if share > TARGET else "below"
            lines.append(
                f"- With one model defined (what defining the first pydantic model "
                f"loads), the floor is {share:.2f}x pydantic_ai's time, {where} the "
                f"{TARGET:.2f}x target; `import good_agent` adds "
                f"{ours.median_ms - model_floor.median_ms:.0f} ms above it."
            )
    return lines


def write_docs(lines: list[str], note: str) -> None:
    """Put the table between the import markers of ``docs/performance.md``."""
    text = DOCS_PAGE.read_text()
    block = "\n".join([START, note, "", *lines, END])
    if START in text and END in text:
        head, rest = text.split(START, 1)
        text = head + block + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    DOCS_PAGE.write_text(text)


def main(argv: list[str] | None = None) -> int:
    """Measure, print the table, and with ``--docs`` write it into the page."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="HEAD~1", help="the earlier commit (default HEAD~1)")
    parser.add_argument("--rounds", type=int, default=21, help="rounds (default 21)")
    parser.add_argument("--peer-python", help="an interpreter that has pydantic_ai")
    parser.add_argument("--docs", action="store_true", help="write docs/performance.md")
    args = parser.parse_args(argv)

    here = sys.executable
    subjects = [Subject("`import good_agent`", "good_agent", here, str(REPO))]
    with tempfile.TemporaryDirectory(prefix="good-agent-before-") as tmp:
        where = Path(tmp) / "checkout"
        try:
            commit = checkout(args.before, where)
            label = f"`import good_agent` at {commit}"
            subjects.append(Subject(label, "good_agent", here, str(where)))
            peer = peer_python(args.peer_python)
            if peer is not None:
                subjects.append(Subject("`import pydantic_ai`", "pydantic_ai", peer))
            floor = "from pydantic import BaseModel"
            subjects.append(Subject(f"`{floor}`", "pydantic", here, statement=floor))
            subjects.append(Subject(MODEL_FLOOR, "pydantic", here, statement=ONE_MODEL))
            measure(subjects, args.rounds)
        finally:
            subprocess.run(
                ["git", "-C", str(REPO), "worktree", "remove", "--force", str(where)],
                check=False,
                capture_output=True,
            )
    lines = table(subjects, args.rounds)
    print("\n".join(lines))
    if args.docs:
        load = os.getloadavg()[0]
        note = (
            f"Measured on {time.strftime('%Y-%m-%d')} with `python benchmarks/import_time.py "
            f"--before {args.before} --rounds {args.rounds}` (Python "
            f"{sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {load:.1f} "
            "at the end): each time is one `import` in a fresh interpreter, the subjects "
            "interleaved in a shuffled order in every round."
        )
        write_docs(lines, note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
