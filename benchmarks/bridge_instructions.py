"""Instructions one bridge request costs, counted by valgrind: a figure the machine's
load does not move.

`benchmarks/bridge.py` measures requests per second against a floor. On a shared
machine its ratios move between runs by more than a change of a sixth of a request's
work, so a cut of that size cannot be seen there. This benchmark counts instead. For
each request it runs one process under valgrind (cachegrind, no cache simulation)
that sends the bridge's ASGI application requests in a loop (the ASGI calls made
directly; the upstream the fake of ``bridge_upstream.py`` in its own process, so not
counted), twice, with ``--warmup`` and with ``--warmup`` + ``--requests`` requests:
the difference, divided by ``--requests``, is one request's instructions, with the
start, the imports and the first requests' one-time work left out. The objects made
by then are frozen (``gc.freeze``) so that a full collection in the counted requests
costs the same in both versions, whatever each one imported, and the hash seed is
fixed, so two runs of the same code count nearly the same.

Counted in the same run: the bridge's stack alone (``bridge_stack_floor.make_app``:
the same ASGI server side and HTTP/1.1 client, no check, no routing), the bridge's
pass-through path (whole and streamed), its translating path and a prompted model
(streamed), and with ``--before REF`` the same routes of the bridge of that commit
(from a git worktree). Instruction counts are not time (a parse of JSON in Rust runs
more instructions a cycle than a loop of Python), but between two versions of the same
code they show what a change cut or added, exactly.

Run: ``python benchmarks/bridge_instructions.py [--before REF] [--requests 200] [--docs]``
(needs ``valgrind``; about two minutes a version on two cores).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bridge import REPO, body, bridge_config, free_port, process, worktree

HERE = Path(__file__).resolve().parent
DOCS_PAGE = REPO / "docs" / "performance.md"
START, END = "<!-- bridge-instructions:start -->", "<!-- bridge-instructions:end -->"


@dataclass(frozen=True)
class Request:
    """One kind of request counted: what answers it, its route and whether streamed."""

    label: str
    target: str  # "stack" or "bridge"
    model: str
    stream: bool
    current_only: bool = False


REQUESTS = [
    Request("stack alone, whole", "stack", "fake", False),
    Request("stack alone, streamed", "stack", "fake", True),
    Request("pass-through, whole", "bridge", "fake", False),
    Request("pass-through, streamed", "bridge", "fake", True),
    Request("translated, streamed", "bridge", "fake-translated", True, current_only=True),
    Request("prompted, streamed", "bridge", "fake-prompted", True),
]

_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def child(
    target: str, model: str, stream: bool, warmup: int, count: int, config: str, upstream: int
) -> None:
    """The loop valgrind counts: ``warmup`` requests through the ASGI application, the
    objects made so far frozen (`gc.freeze`: a full collection then costs the same in
    both versions, whatever each imported), then ``count`` more."""
    import asyncio
    import gc

    payload = json.dumps(body(model, stream)).encode()
    if target == "stack":
        from bridge_stack_floor import make_app

        app = make_app(f"http://127.0.0.1:{upstream}")
    else:
        from good_agent.server.app import create_app
        from good_agent.server.config import load_config

        app = create_app(load_config(config))
    headers = [
        (b"host", b"127.0.0.1"),
        (b"content-type", b"application/json"),
        (b"content-length", str(len(payload)).encode()),
    ]

    async def one() -> None:
        scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.4"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": "/v1/chat/completions",
            "raw_path": b"/v1/chat/completions",
            "query_string": b"",
            "root_path": "",
            "headers": headers,
            "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", 8000),
            "state": {},
        }
        done = asyncio.Event()
        pending = [{"type": "http.request", "body": payload, "more_body": False}]
        status: list[int] = []

        async def receive() -> dict[str, Any]:
            if pending:
                return pending.pop()
            await done.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])
            elif message["type"] == "http.response.body" and not message.get("more_body"):
                done.set()

        await app(scope, receive, send)
        if status != [200]:
            raise RuntimeError(f"{target} {model} answered {status}")

    async def loop() -> None:
        for _ in range(warmup):
            await one()
        gc.freeze()
        for _ in range(count):
            await one()

    try:
        import uvloop
    except ImportError:  # (as uvicorn: the standard loop where uvloop is missing)
        asyncio.run(loop())
    else:
        uvloop.run(loop())


def instructions(
    request: Request, warmup: int, count: int, code: Path, config: Path, upstream: int
) -> int:
    """The instructions of a run of ``warmup`` and ``count`` requests with the code of
    ``code``."""
    command = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=no",
        "--cachegrind-out-file=/dev/null",
        sys.executable,
        str(Path(__file__).resolve()),
        "--child",
        request.target,
        request.model,
        "s" if request.stream else "w",
        str(warmup),
        str(count),
        str(config),
        str(upstream),
    ]
    env = {**os.environ, "BENCH_UPSTREAM_KEY": "sk-bench", "PYTHONPATH": str(code)}
    env["PYTHONHASHSEED"] = "0"  # (the same hashes, so the same dict and set layouts, every run)
    done = subprocess.run(command, capture_output=True, text=True, cwd=code, env=env)
    found = _REFS.search(done.stderr)
    if done.returncode != 0 or found is None:
        raise RuntimeError(f"{request.label} failed under valgrind:\n{done.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def measure(args: argparse.Namespace) -> dict[str, dict[str, int]]:
    """Instructions a request, by version (``this``, ``before``) and request label."""
    up = free_port()
    work = Path(tempfile.mkdtemp())
    (work / "bridge.toml").write_text(bridge_config(up))
    (work / "before.toml").write_text(bridge_config(up, current=False))
    with ExitStack() as stack:
        stack.enter_context(
            process(
                [sys.executable, str(HERE / "bridge_upstream.py"), str(up), "raw"],
                f"http://127.0.0.1:{up}/v1/models",
            )
        )
        versions = {"this": (REPO, work / "bridge.toml")}
        if args.before:
            versions["before"] = (stack.enter_context(worktree(args.before)), work / "before.toml")
        jobs: list[tuple[str, Request, int, Path, Path]] = []
        for version, (code, config) in versions.items():
            for request in REQUESTS:
                if request.current_only and version == "before":
                    continue
                if request.target == "stack" and version == "before":
                    continue  # (the stack is the benchmark's own, the same for both)
                for count in (0, args.requests):
                    jobs.append((version, request, count, code, config))
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            counted = list(
                pool.map(
                    lambda job: instructions(job[1], args.warmup, job[2], job[3], job[4], up),
                    jobs,
                )
            )
    runs: dict[tuple[str, str, int], int] = {
        (version, request.label, count): total
        for (version, request, count, _, _), total in zip(jobs, counted, strict=True)
    }
    results: dict[str, dict[str, int]] = {}
    for version, label, count in runs:
        if count == 0:
            longer = runs[(version, label, args.requests)]
            results.setdefault(version, {})[label] = round(
                (longer - runs[(version, label, 0)]) / args.requests
            )
    return results


def report(results: dict[str, dict[str, int]], args: argparse.Namespace) -> str:
    """The table and what it says."""
    this, before = results["this"], results.get("before", {})
    lines = [
        f"Counted with `python benchmarks/bridge_instructions.py"
        f"{f' --before {args.before}' if args.before else ''} --requests {args.requests}`"
        f" (Python {sys.version.split()[0]}; each figure the instructions of one request:"
        f" a run of {args.warmup} requests, the objects frozen, then {args.requests} more,"
        f" less a run of the {args.warmup} alone, divided by {args.requests}).",
        "",
        "| request | this bridge | above the stack alone |"
        + (f" before (`{args.before}`) | this / before |" if before else ""),
        "| --- | --- | --- |" + (" --- | --- |" if before else ""),
    ]
    for request in REQUESTS:
        count = this[request.label]
        stack = this[f"stack alone, {'streamed' if request.stream else 'whole'}"]
        above = "" if request.target == "stack" else f"{count - stack:,}"
        row = f"| {request.label} | {count:,} | {above} |"
        if before:
            old = before.get(request.label)
            if request.target == "stack":
                row += " (the same) | |"
            elif old is None:
                row += " (no such route) | |"
            else:
                row += f" {old:,} | {count / old:.3f}x |"
        lines.append(row)
    if before:
        lines.append("")
        for request in REQUESTS:
            old = before.get(request.label)
            if request.target == "stack" or old is None:
                continue
            change = this[request.label] - old
            word = "fewer" if change < 0 else "more"
            lines.append(
                f"- {request.label}: {abs(change):,} {word} instructions a request than"
                f" `{args.before}` ({this[request.label] / old:.3f}x)."
            )
    return "\n".join(lines)


def write_docs(text: str) -> None:
    """Replace the section between the markers of the docs page."""
    page = DOCS_PAGE.read_text()
    if START not in page:
        raise SystemExit(f"{DOCS_PAGE} has no {START} marker")
    block = f"{START}\n{text}\n{END}"
    page = re.sub(re.escape(START) + r".*?" + re.escape(END), lambda _: block, page, flags=re.S)
    DOCS_PAGE.write_text(page)


def main() -> None:
    """Count, print, and with ``--docs`` rewrite the docs section."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--before", metavar="REF", help="also count the bridge of this commit")
    parser.add_argument("--requests", type=int, default=200, help="requests counted")
    parser.add_argument("--warmup", type=int, default=50, help="requests not counted")
    parser.add_argument("--docs", action="store_true", help="rewrite the docs section")
    parser.add_argument("--child", nargs=7, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        target, model, stream, warmup, count, config, upstream = args.child
        child(target, model, stream == "s", int(warmup), int(count), config, int(upstream))
        return
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (apt-get install valgrind): nothing counted")
        raise SystemExit(2)
    text = report(measure(args), args)
    print(text)
    if args.docs:
        write_docs(text)


if __name__ == "__main__":
    main()
