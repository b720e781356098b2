"""Every third-party package the code imports is declared in pyproject.toml."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def imported_top_level_modules() -> set[str]:
    found: set[str] = set()
    for path in (ROOT / "good_agent").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return found - {"good_agent", "__future__"} - set(sys.stdlib_module_names)


def declared_distributions() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirements = list(project["dependencies"])
    for name, extra in project["optional-dependencies"].items():
        if name not in {"dev", "docs", "all"}:
            requirements += extra
    return {normalize(re.split(r"[<>=!~\[; ]", req, maxsplit=1)[0]) for req in requirements}


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_every_imported_package_is_declared() -> None:
    owners = packages_distributions()
    declared = declared_distributions()
    undeclared = {}
    for module in sorted(imported_top_level_modules()):
        distributions = {normalize(d) for d in owners.get(module, [])}
        assert distributions, f"no installed distribution provides '{module}'"
        if not distributions & declared:
            undeclared[module] = sorted(distributions)
    assert not undeclared, f"imported but not declared in pyproject.toml: {undeclared}"


def test_the_check_sees_the_transitive_imports() -> None:
    # httpx2 and jiter arrive with openai, yet the code imports them itself.
    modules = imported_top_level_modules()
    assert {"httpx2", "jiter", "pydantic_core"} <= modules


def test_ci_runs_the_suite_at_the_lowest_allowed_versions() -> None:
    # The floors are only true if something installs them: .ci/run does, then tests.
    script = (ROOT / ".ci" / "run").read_text()
    lowest = script.split("--resolution lowest-direct", 1)
    assert len(lowest) == 2, ".ci/run does not install the lowest allowed versions"
    assert '-e ".[dev]"' in lowest[1].splitlines()[0]
    assert '"$LOWEST/bin/python" -m pytest' in lowest[1]
