"""The instruction-count benchmark counts what it says: its loop (run here without
valgrind) gets a 200 from every request it sends, on the bridge's routes and on the
stack alone, and refuses to count a request that is not answered."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
SCRIPT = BENCHMARKS / "bridge_instructions.py"
sys.path.insert(0, str(BENCHMARKS))

from bridge import bridge_config, free_port  # noqa: E402
from bridge_instructions import REQUESTS, Request, report  # noqa: E402


@pytest.fixture(scope="module")
def upstream() -> Iterator[int]:
    """The benchmark's fake upstream, in its own process."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(BENCHMARKS / "bridge_upstream.py"), str(port), "raw"],
        stdout=subprocess.PIPE,
    )
    try:
        assert process.stdout is not None
        process.stdout.readline()  # "upstream ready"
        yield port
    finally:
        process.kill()
        process.wait()


def _loop(target: str, model: str, config: Path, port: int) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "BENCH_UPSTREAM_KEY": "sk-bench"}
    command = [sys.executable, str(SCRIPT), "--child", target, model, "s", "2", "3", str(config)]
    return subprocess.run([*command, str(port)], capture_output=True, text=True, env=env)


@pytest.mark.parametrize("kind", REQUESTS, ids=lambda kind: kind.label)
def test_the_counted_loop_is_answered(kind: Request, upstream: int, tmp_path: Path) -> None:
    config = tmp_path / "bridge.toml"
    config.write_text(bridge_config(upstream))
    done = _loop(kind.target, kind.model, config, upstream)
    assert done.returncode == 0, done.stderr[-2000:]


def test_a_request_not_answered_is_not_counted(upstream: int, tmp_path: Path) -> None:
    config = tmp_path / "bridge.toml"
    config.write_text(bridge_config(upstream))
    done = _loop("bridge", "no-such-model", config, upstream)
    assert done.returncode != 0 and "answered [400]" in done.stderr


def test_the_report_compares_each_route_with_the_commit_before() -> None:
    labels = [kind.label for kind in REQUESTS]
    this = {label: 1_000 + 100 * at for at, label in enumerate(labels)}
    before = {label: count * 2 for label, count in this.items()}
    del before["translated, streamed"]
    args = argparse.Namespace(before="abc123", requests=200, warmup=50)
    text = report({"this": this, "before": before}, args)
    assert "| pass-through, streamed | 1,300 | 200 | 2,600 | 0.500x |" in text
    assert "| translated, streamed | 1,400 | 300 | (no such route) | |" in text
    assert "- pass-through, streamed: 1,300 fewer instructions a request than `abc123`" in text
