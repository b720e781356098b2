"""The stacked-extensions example runs offline and shows what it promises."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_stacked_extensions_example_runs() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "stacked_extensions.py")],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=True,
    )
    out = result.stdout
    assert "model-visible parameters: ['citation_idx']" in out
    assert "tool ran for: ['https://investors.example.com/reports/2024/q2-report.pdf']" in out
    assert "cache: 1 hit(s), 1 miss(es)" in out
    assert "[[2]](https://investors.example.com/reports/2024/q2-report.pdf)" in out
    assert "example-token-123" not in out + result.stderr
    assert result.stderr.count("tool fetch succeeded") == 2


def test_public_names_are_importable_from_good_agent() -> None:
    import good_agent

    for name in [
        "AuthInjector",
        "CitationIndex",
        "CitationManager",
        "MemoryStore",
        "RateLimiter",
        "RedisStore",
        "SQLiteStore",
        "ToolCache",
        "ToolLogger",
    ]:
        assert name in good_agent.__all__
        assert getattr(good_agent, name) is not None
