"""Two OS processes share one Redis: the second sees the first's cache entry, and together
they never exceed one rate-limit budget."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

WORKER = Path(__file__).with_name("scale_out_worker.py")


def start(url: str, prefix: str, role: str, name: str = "") -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(WORKER), url, prefix, role, name],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(process: subprocess.Popen[str]) -> dict[str, Any]:
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


def test_a_second_process_reuses_the_first_ones_cache_entry(redis_port: int) -> None:
    url, prefix = f"redis://127.0.0.1:{redis_port}/0", f"scale-{uuid.uuid4().hex}"
    first = finish(start(url, prefix, "cache"))
    assert first["executions"] == ["Paris"] and first["cache_hits"] == 0
    second_process = start(url, prefix, "cache")
    second = finish(second_process)
    assert second["executions"] == [], "the tool did not run again"
    assert second["cache_hits"] == 1
    assert second["results"] == first["results"]
    assert f"process {second_process.pid}" not in second["results"][0]["text"]


def test_two_processes_share_one_rate_limit_budget(redis_port: int) -> None:
    url, prefix = f"redis://127.0.0.1:{redis_port}/0", f"scale-{uuid.uuid4().hex}"
    processes = [start(url, prefix, "limit", name) for name in ("a", "b")]
    results = [finish(process) for process in processes]
    allowed = sum(r["allowed"] for r in results)
    executed = sum(len(r["executions"]) for r in results)
    assert allowed == executed == 5, results  # the budget is 5 per hour across both
    assert sum(r["rejected"] for r in results) == 5
    refusals = [x for r in results for x in r["results"] if not x["success"]]
    assert all("rate limit for tool 'lookup' exceeded" in x["text"] for x in refusals)
