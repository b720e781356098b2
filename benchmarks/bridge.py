"""What the bridge costs, against a pass-through proxy that does nothing (the floor).

Separate processes: a fast fake OpenAI-compatible upstream (``bridge_upstream.py``:
canned replies with one tool call, the streamed one in 20 events with the usage the
bridge asks for, as OpenAI writes it (19 without); plain asyncio by
default, ``--upstream uvicorn`` for Starlette on uvicorn), the floor
(``bridge_floor.py``: a minimal pass-through proxy in aiohttp that forwards bytes and
nothing else), the bridge's own stack doing nothing (``bridge_stack_floor.py``: a bare
ASGI proxy on uvicorn with the bridge's HTTP client, to show what the stack costs apart
from the bridge's work), the bridge (``good-agent serve --workers N``) and the load generator
(``wrk`` from the system packages; a Python generator when ``wrk`` is missing). The
bridge serves three routes on the same upstream, each a target of its own: ``fake``
(native mode: the pass-through path), ``fake-translated`` (the same, with
``pass_through = false``: the translating path) and ``fake-prompted`` (a prompted
model, ``mode = "validated"``: the upstream writes the call as text, the bridge
parses it and writes Chat Completions events). With ``--before REF`` a second
bridge runs from a ``git worktree`` of ``REF`` (its ``fake`` and ``fake-prompted``
routes), so before and after are measured side by side in one run. Optionally
LiteLLM's proxy runs on the same upstream as a peer. Each round runs every scenario
against every target in turn (interleaved, the order reversed every other round),
and the report takes medians over rounds. Targets, as ratios within one run (issue
#43):

* throughput at concurrency 32: the pass-through path at least 0.8x the floor,
  non-streamed and streamed; the prompted route streamed at least 0.45x;
* added p50 latency at concurrency 1 (p50 minus the upstream's own p50) on the
  pass-through path at most 1.5x the floor's.

Run: ``python benchmarks/bridge.py [--rounds 5] [--duration 3] [--workers 1]
[--before REF] [--litellm-python PATH] [--docs]``. ``--docs`` rewrites the bridge
section of docs/performance.md. Setting up the LiteLLM peer:
``python -m venv benchmarks/bridge_peers/.venv &&
benchmarks/bridge_peers/.venv/bin/pip install "litellm[proxy]==1.102.4"``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DOCS_PAGE = REPO / "docs" / "performance.md"
START, END = "<!-- bridge:start -->", "<!-- bridge:end -->"
DEFAULT_PEER = HERE / "bridge_peers" / ".venv" / "bin" / "python"

TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}
FLOOR = "floor proxy"
STACK = "stack alone"
"""The bridge's server and client doing nothing (``bridge_stack_floor.py``)."""
PASS_THROUGH = "bridge, pass-through"
TRANSLATED = "bridge, translated"
PROMPTED = "bridge, prompted"
THROUGHPUT_TARGETS = {
    (PASS_THROUGH, "non-streamed"): 0.8,
    (PASS_THROUGH, "streamed"): 0.8,
    (PROMPTED, "streamed"): 0.45,
}
"""Requests/s at concurrency 32 as a ratio of the floor's, at least (target, scenario)."""
ADDED_P50_TARGET = 1.5
"""The pass-through path's added p50 at concurrency 1 as a multiple of the floor's, at most."""
BEFORE = "before: "
"""The prefix of the targets served by the bridge of ``--before REF``."""


def body(model: str, stream: bool) -> dict[str, Any]:
    data: dict[str, Any] = {
        "model": model,
        "messages": [{"role": "user", "content": "Weather in Paris?"}],
        "tools": [TOOL],
    }
    if stream:
        data["stream"] = True
    return data


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(url: str, process: subprocess.Popen[bytes], seconds: float = 90) -> None:
    import httpx2

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args} exited with {process.returncode}")
        try:
            if httpx2.get(url, timeout=1).status_code < 500:
                return
        except httpx2.TransportError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer within {seconds} s")


@contextmanager
def process(
    args: list[str], health: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> Iterator[None]:
    proc = subprocess.Popen(
        args,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env or dict(os.environ),
        cwd=cwd,
    )
    try:
        wait_for(health, proc)
        yield
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def check_reply(url: str, model: str, stream: bool) -> None:
    """One request first: the target must answer the tool call, or nothing is timed."""
    import httpx2

    response = httpx2.post(url, json=body(model, stream), timeout=30)
    response.raise_for_status()
    complete = "[DONE]" in response.text if stream else "Paris" in response.text
    if "get_weather" not in response.text or not complete:
        raise RuntimeError(f"{url} did not return the tool call: {response.text[:300]}")


@dataclass
class Sample:
    p50_ms: float
    rps: float


def _ms(value: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", value).groups()  # type: ignore[union-attr]
    return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def run_wrk(url: str, payload: dict[str, Any], concurrency: int, seconds: float) -> Sample:
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(
            'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n'
            f"wrk.body = {json.dumps(json.dumps(payload))}\n"
        )
    threads = min(2, concurrency)
    out = subprocess.run(
        [
            "wrk",
            f"-t{threads}",
            f"-c{concurrency}",
            f"-d{seconds:g}s",
            "--timeout",
            "30s",
            "--latency",
            "-s",
            script.name,
            url,
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    os.unlink(script.name)
    if "Non-2xx" in out or re.search(r"Socket errors: connect [1-9]|read [1-9]|write [1-9]", out):
        raise RuntimeError(f"errors under load at {url}:\n{out}")
    p50 = re.search(r"^\s+50%\s+(\S+)", out, re.MULTILINE)
    rps = re.search(r"^Requests/sec:\s+([\d.]+)", out, re.MULTILINE)
    assert p50 and rps, out
    return Sample(_ms(p50.group(1)), float(rps.group(1)))


def run_python_load(url: str, payload: dict[str, Any], concurrency: int, seconds: float) -> Sample:
    out = subprocess.run(
        [
            sys.executable,
            __file__,
            "--loadgen",
            url,
            json.dumps(payload),
            str(concurrency),
            str(seconds),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    data = json.loads(out)
    return Sample(data["p50_ms"], data["rps"])


def python_loadgen(url: str, payload: str, concurrency: int, seconds: float) -> None:
    """The fallback load generator (its own process): keep-alive clients for ``seconds``."""
    import anyio
    import httpx2

    latencies: list[float] = []

    async def worker(http: httpx2.AsyncClient, until: float) -> None:
        while time.perf_counter() < until:
            started = time.perf_counter()
            response = await http.post(
                url, content=payload, headers={"content-type": "application/json"}
            )
            response.raise_for_status()
            latencies.append(time.perf_counter() - started)

    async def main() -> None:
        limits = httpx2.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
        async with httpx2.AsyncClient(limits=limits, timeout=60) as http:
            until = time.perf_counter() + seconds
            async with anyio.create_task_group() as group:
                for _ in range(concurrency):
                    group.start_soon(worker, http, until)

    started = time.perf_counter()
    anyio.run(main)
    elapsed = time.perf_counter() - started
    print(
        json.dumps({"p50_ms": statistics.median(latencies) * 1000, "rps": len(latencies) / elapsed})
    )


@dataclass
class Results:
    samples: dict[tuple[str, str, int], list[Sample]] = field(default_factory=dict)

    def add(self, target: str, scenario: str, concurrency: int, sample: Sample) -> None:
        self.samples.setdefault((target, scenario, concurrency), []).append(sample)

    def p50(self, target: str, scenario: str) -> float:
        return statistics.median(s.p50_ms for s in self.samples[(target, scenario, 1)])

    def rps(self, target: str, scenario: str, concurrency: int) -> float:
        return statistics.median(s.rps for s in self.samples[(target, scenario, concurrency)])


def bridge_config(upstream: int, *, current: bool = True) -> str:
    """The bridge's routes: native (``fake``), prompted (``fake-prompted``) and, on the
    current code, native with the pass-through path off (``fake-translated``)."""

    def route(name: str, model: str, mode: str, extra: str = "") -> str:
        return (
            f'\n[[models]]\nname = "{name}"\nprovider = "openai"\nmodel = "{model}"\n'
            f'base_url = "http://127.0.0.1:{upstream}/v1"\napi_key_env = "BENCH_UPSTREAM_KEY"\n'
            f'mode = "{mode}"\n{extra}'
        )

    text = '[server]\nlog_level = "warning"\n' + route("fake", "fake-gpt", "native")
    text += route("fake-prompted", "fake-prompted", "validated")
    if current:
        text += route("fake-translated", "fake-gpt", "native", "pass_through = false\n")
    return text


@contextmanager
def worktree(ref: str) -> Iterator[Path]:
    """A detached ``git worktree`` of ``ref``, removed on leaving."""
    where = Path(tempfile.mkdtemp(prefix="bridge-before-")) / "tree"
    subprocess.run(
        ["git", "-C", str(REPO), "worktree", "add", "--detach", str(where), ref],
        check=True,
        capture_output=True,
    )
    try:
        yield where
    finally:
        subprocess.run(
            ["git", "-C", str(REPO), "worktree", "remove", "--force", str(where)],
            check=False,
            capture_output=True,
        )


def serve(config: Path, port: int, workers: int, env: dict[str, str], code: Path = REPO) -> Any:
    """The bridge process serving ``config`` on ``port``, with the code of the checkout
    ``code`` (its working directory too: ``python -m`` puts that first on the path)."""
    return process(
        [
            sys.executable,
            "-m",
            "good_agent.cli",
            "serve",
            "--config",
            str(config),
            "--port",
            str(port),
            "--workers",
            str(workers),
        ],
        f"http://127.0.0.1:{port}/health",
        env,
        code,
    )


def litellm_config(upstream: int) -> str:
    return (
        "model_list:\n  - model_name: fake\n    litellm_params:\n      model: openai/fake-gpt\n"
        f"      api_base: http://127.0.0.1:{upstream}/v1\n      api_key: sk-bench\n"
        "litellm_settings:\n  telemetry: false\n"
    )


def measure(args: argparse.Namespace) -> tuple[Results, list[str], dict[str, str]]:
    load = run_wrk if shutil.which("wrk") and not args.python_load else run_python_load
    notes = {"load": "wrk" if load is run_wrk else "Python (httpx2) load generator"}
    results = Results()
    up, bridge_port, floor_port = free_port(), free_port(), free_port()
    work = Path(tempfile.mkdtemp())
    (work / "bridge.toml").write_text(bridge_config(up))
    (work / "before.toml").write_text(bridge_config(up, current=False))
    (work / "litellm.yaml").write_text(litellm_config(up))
    env = {**os.environ, "BENCH_UPSTREAM_KEY": "sk-bench", "PYTHONPATH": str(REPO)}
    peer = Path(args.litellm_python) if args.litellm_python else DEFAULT_PEER
    with ExitStack() as stack:
        stack.enter_context(
            process(
                [sys.executable, str(HERE / "bridge_upstream.py"), str(up), args.upstream],
                f"http://127.0.0.1:{up}/v1/models",
            )
        )
        stack.enter_context(serve(work / "bridge.toml", bridge_port, args.workers, env))
        stack.enter_context(
            process(
                [
                    sys.executable,
                    str(HERE / "bridge_floor.py"),
                    str(floor_port),
                    f"http://127.0.0.1:{up}",
                ],
                f"http://127.0.0.1:{floor_port}/v1/models",
            )
        )
        stack_port = free_port()
        stack.enter_context(
            process(
                [
                    sys.executable,
                    str(HERE / "bridge_stack_floor.py"),
                    str(stack_port),
                    f"http://127.0.0.1:{up}",
                ],
                f"http://127.0.0.1:{stack_port}/health",
                env,
            )
        )
        bridge_url = f"http://127.0.0.1:{bridge_port}/v1/chat/completions"
        urls = {
            "direct": (f"http://127.0.0.1:{up}/v1/chat/completions", "fake-gpt"),
            FLOOR: (f"http://127.0.0.1:{floor_port}/v1/chat/completions", "fake-gpt"),
            STACK: (f"http://127.0.0.1:{stack_port}/v1/chat/completions", "fake-gpt"),
            PASS_THROUGH: (bridge_url, "fake"),
            TRANSLATED: (bridge_url, "fake-translated"),
            PROMPTED: (bridge_url, "fake-prompted"),
        }
        if args.before:
            tree = stack.enter_context(worktree(args.before))
            before_port = free_port()
            before_env = {**env, "PYTHONPATH": str(tree)}
            stack.enter_context(
                serve(work / "before.toml", before_port, args.workers, before_env, tree)
            )
            before_url = f"http://127.0.0.1:{before_port}/v1/chat/completions"
            commit = subprocess.run(
                ["git", "-C", str(tree), "rev-parse", "--short", "HEAD"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
            notes["before"] = f"`{args.before}` ({commit})"
            urls[f"{BEFORE}bridge"] = (before_url, "fake")
            urls[f"{BEFORE}bridge, prompted"] = (before_url, "fake-prompted")
        if peer.exists():
            lite = free_port()
            litellm_bin = str(peer.parent / "litellm")
            peer_env = {
                **os.environ,
                "LITELLM_LOCAL_MODEL_COST_MAP": "True",
                "LITELLM_LOG": "ERROR",
            }
            try:
                stack.enter_context(
                    process(
                        [
                            litellm_bin,
                            "--config",
                            str(work / "litellm.yaml"),
                            "--host",
                            "127.0.0.1",
                            "--port",
                            str(lite),
                            "--num_workers",
                            str(args.workers),
                        ],
                        f"http://127.0.0.1:{lite}/health/liveliness",
                        peer_env,
                    )
                )
                urls["litellm proxy"] = (f"http://127.0.0.1:{lite}/v1/chat/completions", "fake")
            except RuntimeError as exc:
                notes["litellm"] = f"LiteLLM's proxy did not start here ({exc})"
        else:
            shown = peer.relative_to(REPO) if peer.is_relative_to(REPO) else peer
            notes["litellm"] = f"LiteLLM's proxy is not installed ({shown} is missing)"
        for url, model in urls.values():
            for stream in (False, True):
                check_reply(url, model, stream)
        for round_no in range(args.rounds):
            for scenario in ("non-streamed", "streamed"):
                for concurrency in (1, 32):
                    order = list(urls.items())
                    if round_no % 2:
                        order.reverse()
                    for target, (url, model) in order:
                        sample = load(
                            url, body(model, scenario == "streamed"), concurrency, args.duration
                        )
                        results.add(target, scenario, concurrency, sample)
            print(f"round {round_no + 1}/{args.rounds} done", file=sys.stderr)
    return results, list(urls), notes


def work_costs(repeats: int = 7, number: int = 2000) -> dict[str, float]:
    """What the bridge's own checks cost, in process (µs, median of ``repeats`` runs
    of ``number`` calls): the request parsed and checked as the pass-through path
    does it, and the streamed reply's 20 events read by the pass-through relay."""
    import timeit

    sys.path[:0] = [str(HERE), str(REPO)]
    from bridge_upstream import STREAMED_BODY

    from good_agent.server.chat.wire import parse_chat_request
    from good_agent.server.passthrough_stream import ChatRelay, model_renames

    payload = json.dumps(body("fake", True))
    renames = model_renames("fake-gpt", "fake")

    def parse() -> None:
        parse_chat_request(json.loads(payload))

    def relay() -> None:
        reader = ChatRelay("openai", renames=renames)
        reader.feed(STREAMED_BODY)
        reader.close()

    def cost(work: Any) -> float:
        runs = timeit.repeat(work, number=number, repeat=repeats)
        return statistics.median(runs) / number * 1e6

    return {"request": cost(parse), "relay": cost(relay)}


def report(
    results: Results,
    targets: list[str],
    notes: dict[str, str],
    args: argparse.Namespace,
    costs: dict[str, float] | None = None,
) -> str:
    before = (
        f" The bridge before is {notes['before']}, run from a git worktree."
        if ("before" in notes)
        else ""
    )
    lines = [
        f"Measured {time.strftime('%Y-%m-%d')}: `{platform.platform()}`, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, {args.rounds} rounds of {args.duration:g} s per "
        f"run, floor, bridges and peer with {args.workers} worker process(es), upstream fake "
        f"{args.upstream!r}, load from "
        f"{notes['load']}.{before} The machine was shared with other work while measuring: the "
        "figures are noisy, the ratios within one run are what to compare.",
        "",
        "| Scenario | Target | p50 at concurrency 1 | Added p50 | Requests/s at 32 "
        "| Ratio to the floor |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    verdicts = []
    for scenario in ("non-streamed", "streamed"):
        direct_p50 = results.p50("direct", scenario)
        floor_rps = results.rps(FLOOR, scenario, 32)
        for target in targets:
            p50, rps = results.p50(target, scenario), results.rps(target, scenario, 32)
            added = "" if target == "direct" else f"{p50 - direct_p50:+.3f} ms"
            ratio = "" if target in ("direct", FLOOR) else f"{rps / floor_rps:.2f}x"
            lines.append(
                f"| {scenario} | {target} | {p50:.3f} ms | {added} | {rps:,.0f} | {ratio} |"
            )
        for (target, kind), least in THROUGHPUT_TARGETS.items():
            if kind != scenario:
                continue
            ratio = results.rps(target, scenario, 32) / floor_rps
            verdicts.append(
                f"- {target}, {scenario}, throughput at concurrency 32: {ratio:.2f}x of the "
                f"floor, target at least {least:g}x: **{'met' if ratio >= least else 'MISSED'}**"
            )
        added_bridge = results.p50(PASS_THROUGH, scenario) - direct_p50
        added_floor = results.p50(FLOOR, scenario) - direct_p50
        times = added_bridge / added_floor if added_floor > 0 else float("inf")
        verdicts.append(
            f"- {PASS_THROUGH}, {scenario}, added p50 at concurrency 1: {added_bridge:.3f} ms, "
            f"{times:.1f}x the floor's {added_floor:.3f} ms, target at most "
            f"{ADDED_P50_TARGET:g}x: **{'met' if times <= ADDED_P50_TARGET else 'MISSED'}**"
        )
    lines += ["", "Verdicts (against the floor, same run):", "", *verdicts]
    lines += ["", "Where the bridge's time goes (same run):", ""]
    for scenario in ("non-streamed", "streamed"):
        floor_rps = results.rps(FLOOR, scenario, 32)
        alone = results.rps(STACK, scenario, 32)
        lines.append(
            f"- {scenario}: the bridge's server and client doing nothing (`{STACK}`: a bare "
            f"ASGI proxy on uvicorn with the bridge's HTTP client) serve {alone / floor_rps:.2f}x "
            "the floor's requests/s: the stack is not what holds the bridge below the floor."
        )
    if costs:
        lines.append(
            f"- In process, per request: the request parsed and checked takes "
            f"{costs['request']:.0f} µs; the pass-through relay's reading of the streamed reply "
            f"(20 events: shapes, indexes, usage, errors, the end, the model renamed) "
            f"{costs['relay']:.0f} µs. These are checks the bridge keeps on every path."
        )
    if "before" in notes:
        lines += ["", "Before and after (requests/s at concurrency 32, same run):", ""]
        for scenario in ("non-streamed", "streamed"):
            pairs = ((f"{BEFORE}bridge", PASS_THROUGH), (f"{BEFORE}bridge, prompted", PROMPTED))
            for was, now in pairs:
                old, new = results.rps(was, scenario, 32), results.rps(now, scenario, 32)
                lines.append(
                    f"- {scenario}, {now}: {new:,.0f} against {old:,.0f} before ({new / old:.2f}x)"
                )
    if "litellm" in notes:
        lines += ["", f"LiteLLM: {notes['litellm']}."]
    return "\n".join(lines)


def write_docs(text: str) -> None:
    page = DOCS_PAGE.read_text()
    block = f"{START}\n{text}\n{END}"
    if START in page:
        page = re.sub(
            re.escape(START) + r".*?" + re.escape(END), lambda _: block, page, flags=re.DOTALL
        )
    else:
        page += f"\n## The bridge against a proxy that does nothing\n\n{block}\n"
    DOCS_PAGE.write_text(page)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--duration", type=float, default=3.0, help="seconds per load run")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument(
        "--upstream",
        choices=["uvicorn", "raw"],
        default="raw",
        help="the fake upstream: plain asyncio (default) or Starlette on uvicorn",
    )
    parser.add_argument(
        "--before",
        metavar="REF",
        help="also run the bridge of this git commit (from a worktree), side by side",
    )
    parser.add_argument("--litellm-python", help="a python with litellm[proxy] installed")
    parser.add_argument("--python-load", action="store_true", help="use the Python load generator")
    parser.add_argument("--docs", action="store_true", help="rewrite the docs section")
    parser.add_argument("--loadgen", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.loadgen:
        url, payload, concurrency, seconds = args.loadgen
        python_loadgen(url, payload, int(concurrency), float(seconds))
        return
    results, targets, notes = measure(args)
    text = report(results, targets, notes, args, work_costs())
    print(text)
    if args.docs:
        write_docs(text)


if __name__ == "__main__":
    main()
