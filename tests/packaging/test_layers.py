"""The package's import graph: a leaf of shared types, and no cycle between packages."""

from __future__ import annotations

from functools import cache
from graphlib import CycleError, TopologicalSorter

import grimp
import pytest

LEAF = "good_agent.types"


@cache
def graph() -> grimp.ImportGraph:
    """Every import inside ``good_agent``, ``TYPE_CHECKING`` blocks included."""
    return grimp.build_graph("good_agent", exclude_type_checking_imports=False)


def top_level(module: str) -> str:
    """``good_agent.core.agent`` -> ``good_agent.core``; the root stays itself."""
    return ".".join(module.split(".")[:2])


def package_edges() -> dict[str, set[str]]:
    """For each child of ``good_agent`` (package or module), the children it imports."""
    edges: dict[str, set[str]] = {}
    for module in graph().modules:
        if module == "good_agent":
            continue  # the public face imports everything by design
        source = top_level(module)
        edges.setdefault(source, set())
        for imported in graph().find_modules_directly_imported_by(module):
            target = top_level(imported)
            if target not in {source, "good_agent"}:
                edges[source].add(target)
    return edges


def test_the_leaf_imports_nothing_else_of_the_package() -> None:
    outside = {
        (module, imported)
        for module in graph().find_descendants(LEAF) | {LEAF}
        for imported in graph().find_modules_directly_imported_by(module)
        if not (imported == LEAF or imported.startswith(LEAF + "."))
    }
    assert outside == set()


@pytest.mark.parametrize("home", ["messages", "errors", "usage", "history"])
def test_messages_errors_and_usage_live_in_the_leaf(home: str) -> None:
    assert f"{LEAF}.{home}" in graph().modules


def test_the_package_graph_has_no_cycle() -> None:
    edges = package_edges()
    try:
        order = list(TopologicalSorter(edges).static_order())
    except CycleError as error:  # pragma: no cover - the message is the point
        pytest.fail(f"packages import each other in a loop: {error.args[1]}")
    assert order.index(LEAF) < order.index("good_agent.core")
