"""The API reference page lists every public name and renders cross-references."""

from __future__ import annotations

import importlib
import inspect
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import good_agent

ROOT = Path(__file__).parent.parent
ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj|const):`")
RENDERED_PACKAGES = [
    "good_agent",
    "good_agent.testing",
    "good_agent.providers",
    "good_agent.server",
    "good_agent.server.ui",
]


def public_objects() -> Iterator[tuple[str, Any]]:
    """Each name of the packages the reference renders, and their classes' members."""
    for package_name in RENDERED_PACKAGES:
        package = importlib.import_module(package_name)
        for name in getattr(package, "__all__", []):
            obj = getattr(package, name)
            yield f"{package_name}.{name}", obj
            if inspect.isclass(obj):
                for member, value in vars(obj).items():
                    if not member.startswith("_"):
                        yield f"{package_name}.{name}.{member}", value


def test_no_sphinx_roles_in_the_docstrings_of_public_names() -> None:
    found = []
    for where, obj in public_objects():
        target = obj.fget if isinstance(obj, property) else obj
        doc = getattr(target, "__doc__", None)
        if isinstance(doc, str) and ROLE.search(doc) and not isinstance(target, str | int):
            found.append(where)
    assert not found, f"Sphinx roles (write [`Name`][good_agent.Name]) in: {found}"


@pytest.fixture(scope="module")
def reference_html(tmp_path_factory: pytest.TempPathFactory) -> str:
    pytest.importorskip("mkdocstrings")
    site = tmp_path_factory.mktemp("site")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(site)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stderr
    return (site / "reference" / "index.html").read_text(encoding="utf-8")


def test_every_public_name_has_an_entry_on_the_reference_page(reference_html: str) -> None:
    anchors = set(re.findall(r'id="(good_agent\.[^"]+)"', reference_html))
    missing = [
        name
        for name in good_agent.__all__
        if f"good_agent.{name}" not in anchors and not name.startswith("__")
    ]
    assert not missing, f"not on docs/reference.md: {missing}"
    assert "good_agent.__version__" in reference_html
    # The decorator, not the module of the same name, is what good_agent.tool is.
    tool_entry = reference_html.split('id="good_agent.tool"', 1)[1][:3000]
    assert "tool(function" in re.sub(r"<[^>]+>", "", tool_entry)


def test_the_reference_page_shows_cross_references_not_roles(reference_html: str) -> None:
    assert not re.search(r":(?:class|func|meth|mod|attr|exc|data):`", reference_html)
    tool_cache = reference_html.split('id="good_agent.ToolCache"', 1)[1][:6000]
    assert 'href="#good_agent.MemoryStore"' in tool_cache
