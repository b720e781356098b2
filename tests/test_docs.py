"""Every Python code block in the docs runs.

A block is either executed here, or it includes an example file with a
``--8<--`` snippet line (examples are run by ``test_examples.py``). TOML blocks
must parse.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
FENCE = re.compile(r"^```python[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
TOML_FENCE = re.compile(r"^```toml[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def blocks() -> list[tuple[str, str]]:
    found = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for index, match in enumerate(FENCE.finditer(page.read_text())):
            code = match.group(1)
            if "--8<--" in code:
                continue
            found.append((f"{page.relative_to(ROOT)}#{index}", code))
    return found


BLOCKS = blocks()


def test_snippet_includes_point_at_existing_sections() -> None:
    for page in (ROOT / "docs").rglob("*.md"):
        for line in page.read_text().splitlines():
            target = re.match(r'^--8<-- "([^":]+)(?::(\w+))?"', line.strip())
            if not target:
                continue
            path = ROOT / target.group(1)
            assert path.exists(), f"{page.name}: {path} is missing"
            if target.group(2):
                assert f"--8<-- [start:{target.group(2)}]" in path.read_text(), line


@pytest.mark.parametrize(("where", "code"), BLOCKS, ids=[w for w, _ in BLOCKS])
def test_docs_code_block_runs(where: str, code: str) -> None:
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=ROOT,
    )
    assert result.returncode == 0, f"{where} failed:\n{result.stderr}"


def test_docs_toml_blocks_parse() -> None:
    import tomllib

    for page in (ROOT / "docs").rglob("*.md"):
        for match in TOML_FENCE.finditer(page.read_text()):
            if "--8<--" not in match.group(1):
                tomllib.loads(match.group(1))


RETIRED_CLAUDE = re.compile(r"claude-(3|instant|2|sonnet-4-5|sonnet-4-0|opus-4-0|sonnet-4-2025)")
"""Claude models past (or announced for) end of life: the docs name current ones."""


def test_docs_and_examples_name_current_claude_models() -> None:
    from good_agent.providers.profiles import get_profile

    pages = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "examples").rglob("*")]
    named: set[str] = set()
    for page in (p for p in pages if p.is_file()):
        for name in re.findall(r"claude-[a-z0-9][a-z0-9.-]*[a-z0-9]", page.read_text()):
            assert not RETIRED_CLAUDE.match(name), f"{page.relative_to(ROOT)} names {name}"
            named.add(name)
    assert named
    for name in named:
        profile = get_profile(name)
        assert profile.provider == "anthropic" and profile.rule is not None, name


def test_the_agent_page_lists_every_constructor_argument() -> None:
    import inspect

    from good_agent import Agent

    page = (ROOT / "docs" / "agent.md").read_text()
    block = page[page.index("agent = Agent(") : page.index("\n)\n")]
    named = [
        name
        for name, parameter in inspect.signature(Agent).parameters.items()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY
    ]
    missing = [name for name in named if f"    {name}=" not in block]
    assert missing == []


SPHINX_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|data|attr|mod|exc|obj|const):(?:`|<code)")


def test_the_built_site_builds_strict_and_shows_no_sphinx_role(tmp_path: Path) -> None:
    # mkdocs renders docstrings as Markdown: a Sphinx role would show literally.
    pytest.importorskip("mkdocs")
    site = tmp_path / "site"
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    shown = [
        f"{page.relative_to(site)}: {match.group(0)}"
        for page in site.rglob("*.html")
        for match in SPHINX_ROLE.finditer(page.read_text(errors="replace"))
    ]
    assert shown == [], shown[:20]
    assert (site / "reference" / "index.html").exists()


def test_every_example_is_in_the_gallery() -> None:
    gallery = (ROOT / "docs" / "examples.md").read_text()
    missing = [
        path.name
        for path in sorted((ROOT / "examples").glob("*.py"))
        if f"`{path.name}`" not in gallery
    ]
    assert missing == [], f"examples missing from docs/examples.md: {missing}"


def test_serve_help_names_every_bridge_api() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "good_agent.cli", "serve", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())
    for api in ("Chat Completions", "Responses", "embeddings", "Anthropic Messages", "Gemini"):
        assert api in text, api
