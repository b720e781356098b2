"""``good-agent --version`` and help texts that say what each command does."""

from __future__ import annotations

import subprocess
import sys

import pytest

from good_agent import __version__
from good_agent.cli import _parser


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "good_agent.cli", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_version() -> None:
    result = run_cli("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"good-agent {__version__}"


def test_top_level_help_is_one_plain_sentence_and_lists_commands() -> None:
    result = run_cli("--help")
    assert result.returncode == 0
    text = " ".join(result.stdout.split())
    assert "``" not in text and ":class:" not in text
    assert "Run a demo agent, serve an agent's tools over MCP, or run the" in text
    for command in ("demo", "mcp-serve", "serve"):
        assert command in text


@pytest.mark.parametrize("command", ["demo", "mcp-serve", "serve"])
def test_each_subcommand_describes_itself_in_a_sentence(command: str) -> None:
    subparsers = next(a for a in _parser()._actions if a.__class__.__name__ == "_SubParsersAction")
    sub = subparsers.choices[command]  # type: ignore[attr-defined]
    description = sub.description or ""
    assert description.endswith(".") and description.count(". ") == 0, description
    assert len(description.split()) >= 6
    result = run_cli(command, "--help")
    assert result.returncode == 0
    assert description.split(" (")[0].split(";")[0] in " ".join(result.stdout.split())
