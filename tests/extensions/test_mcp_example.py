"""examples/mcp_tools.py runs offline and shows the MCP tool's result."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent.parent


def test_mcp_example_runs() -> None:
    result = subprocess.run(
        [sys.executable, "examples/mcp_tools.py"],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == [
        "tools from the server: ['weather_forecast']",
        "weather_forecast -> Lisbon: sunny, 21 C",
        "answer: Tomorrow in Lisbon: sunny, 21 C.",
        "server still running after close: False",
    ]
