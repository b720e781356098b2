"""The layers are an import-linter contract that CI runs, broken by a wrong-way import."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

RUN = (
    "import sys; from importlinter.cli import lint_imports; "
    "sys.exit(lint_imports(config_filename=sys.argv[1], no_cache=True, no_logo=True))"
)


def lint_imports(source_root: Path) -> subprocess.CompletedProcess[str]:
    """Run ``lint-imports`` with the project's contract over ``source_root/good_agent``."""
    env = {**os.environ, "PYTHONPATH": str(source_root)}
    return subprocess.run(
        [sys.executable, "-c", RUN, str(ROOT / "pyproject.toml")],
        capture_output=True,
        text=True,
        env=env,
        cwd=source_root,
        timeout=300,
        check=False,
    )


def test_the_layers_contract_is_declared_and_run_by_ci() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (contract,) = config["contracts"]
    assert contract["type"] == "layers"
    assert contract["exhaustive"] is True
    layers = contract["layers"]
    assert layers[-1] == "types | _util"
    assert layers.index("providers") > layers.index("models") > layers.index("core")
    assert "lint-imports" in (ROOT / ".ci" / "run").read_text()


def test_the_package_keeps_the_contract() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 kept, 0 broken" in result.stdout


def test_a_wrong_way_import_breaks_the_contract(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "good_agent", tmp_path / "good_agent")
    errors = tmp_path / "good_agent" / "types" / "errors.py"
    errors.write_text(errors.read_text() + "\nfrom good_agent.core import agent as _agent\n")
    result = lint_imports(tmp_path)
    assert result.returncode != 0
    assert "good_agent.types.errors -> good_agent.core.agent" in result.stdout
