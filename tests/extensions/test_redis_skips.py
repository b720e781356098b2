"""Without ``redis-server`` on the PATH the Redis tests skip and say why (fail under ``CI``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REDIS_TESTS = [
    "tests/extensions/test_scale_out.py::test_a_second_process_reuses_the_first_ones_cache_entry",
    "tests/extensions/test_cache_store_failures.py"
    "::test_a_redis_server_that_stops_and_returns_never_loses_a_result",
]
REASON = "redis-server is not on PATH (apt-get install -y redis-server)"


def run_without_redis_server(tmp_path: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env.update(PATH=str(tmp_path), **extra)  # an empty directory: no redis-server
    return subprocess.run(
        [sys.executable, "-m", "pytest", *REDIS_TESTS, "-p", "no:randomly"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_redis_tests_skip_with_a_printed_reason(tmp_path: Path) -> None:
    result = run_without_redis_server(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 skipped" in result.stdout
    skipped = [line for line in result.stdout.splitlines() if line.startswith("SKIPPED")]
    assert skipped and all(REASON in line for line in skipped), result.stdout


def test_under_ci_a_missing_redis_server_fails(tmp_path: Path) -> None:
    result = run_without_redis_server(tmp_path, CI="1")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "2 error" in result.stdout or "2 failed" in result.stdout, result.stdout
    assert REASON in result.stdout
