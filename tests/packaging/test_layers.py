"""The package's import graph: a leaf of shared types, and no cycle between packages."""

from __future__ import annotations

import importlib
from functools import cache
from graphlib import CycleError, TopologicalSorter
from pathlib import Path
from typing import Any

import grimp
import pytest

LEAF = "good_agent.types"


@cache
def graph() -> grimp.ImportGraph:
    """Every import inside ``good_agent``, ``TYPE_CHECKING`` blocks included."""
    return grimp.build_graph("good_agent", exclude_type_checking_imports=False, cache_dir=None)


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


VENDORS = ("openai", "anthropic", "gemini", "ollama")

VENDOR_TABLES = {
    "good_agent.providers.registry",  # the one registration line of each built-in vendor
    "good_agent.server.chat.wire",  # the bridge's inbound /v1/chat/completions
    "good_agent.server.messages.wire",  # the bridge's inbound /v1/messages
    "good_agent.server.generate_content.wire",  # the bridge's inbound Gemini generateContent
    "good_agent.server.passthrough_stream",  # usage in relayed Chat and Messages streams
}


def in_vendor_folder(module: str, vendor: str | None = None) -> bool:
    """Whether ``module`` lies in ``providers/<vendor>/`` (any vendor when ``None``)."""
    return any(
        module == f"good_agent.providers.{v}" or module.startswith(f"good_agent.providers.{v}.")
        for v in ([vendor] if vendor else VENDORS)
    )


@pytest.mark.parametrize("vendor", VENDORS)
def test_each_vendor_has_one_folder_with_codec_stream_decoder_and_transport(vendor: str) -> None:
    folder = f"good_agent.providers.{vendor}"
    names = {module.rsplit(".", 1)[-1] for module in graph().find_descendants(folder)}
    assert any(name.endswith("codec") for name in names)
    assert any(name.endswith("stream") for name in names)
    assert any(name.endswith("transport") for name in names)
    assert "profile" in names


VENDOR_OF_PROVIDER = {
    "openai": "openai",
    "openai-responses": "openai",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "ollama": "ollama",
}


def test_each_vendors_profile_rules_live_in_its_folder() -> None:
    from good_agent.providers.profiles import BUILTIN_PROVIDERS, BUILTIN_RULES

    for rule in BUILTIN_RULES:
        vendor = VENDOR_OF_PROVIDER.get(str(rule.values.get("provider", rule.provider)))
        if vendor is not None:
            home = importlib.import_module(f"good_agent.providers.{vendor}.profile")
            assert rule in [*home.RULES, *getattr(home, "LAST_RULES", [])], rule.pattern
    for name, info in BUILTIN_PROVIDERS.items():
        home = importlib.import_module(f"good_agent.providers.{VENDOR_OF_PROVIDER[name]}.profile")
        assert home.PROVIDERS[name] is info


def test_vendor_code_outside_its_folder_only_where_a_table_lists_the_built_ins() -> None:
    reaching = {
        module
        for module in graph().modules
        if not in_vendor_folder(module)
        and any(in_vendor_folder(t) for t in graph().find_modules_directly_imported_by(module))
    }
    assert reaching <= VENDOR_TABLES


def test_no_module_outside_a_vendor_folder_is_named_after_a_vendor() -> None:
    named = {
        module
        for module in graph().modules
        if not in_vendor_folder(module)
        and any(vendor in module.rsplit(".", 1)[-1] for vendor in VENDORS)
    }
    assert named <= {
        "good_agent.server.chat.wire",
        "good_agent.server.messages.wire",
        "good_agent.server.generate_content.wire",
    }


@cache
def runtime_graph() -> grimp.ImportGraph:
    """Every import run when ``good_agent`` is used (``TYPE_CHECKING`` blocks left out;
    imports inside functions kept: they run too)."""
    return grimp.build_graph("good_agent", exclude_type_checking_imports=True, cache_dir=None)


def circles_within(package: str, g: grimp.ImportGraph | None = None) -> list[list[str]]:
    """The import circles among ``package`` and its modules (its face included), each
    as its modules, sorted: Tarjan's strongly connected components of more than one."""
    g = g or runtime_graph()
    nodes = sorted({package} | g.find_descendants(package))
    inside = set(nodes)
    edges = {m: sorted(g.find_modules_directly_imported_by(m) & inside) for m in nodes}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in edges[module]:
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in nodes:
        if module not in index:
            visit(module)
    return found


PACKAGES = sorted(
    module
    for module in runtime_graph().modules
    if module.count(".") == 1 and runtime_graph().find_children(module)
)


def test_the_packages_are_found() -> None:
    assert {"good_agent.models", "good_agent.extensions", "good_agent.server"} <= set(PACKAGES)
    assert "good_agent.http" in PACKAGES


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_circle_between_the_modules_of_one_package(package: str) -> None:
    assert circles_within(package) == []


def test_a_circle_through_a_package_face_is_found(tmp_path: Path, monkeypatch: Any) -> None:
    """The check itself: a face importing a module that imports the face back."""
    root = tmp_path / "circle_pkg"
    (root / "inner").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "inner" / "__init__.py").write_text("from circle_pkg.inner.a import A\n")
    (root / "inner" / "a.py").write_text("from circle_pkg.inner import b\nA = 1\n")
    (root / "inner" / "b.py").write_text("import circle_pkg.inner\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    g = grimp.build_graph("circle_pkg", exclude_type_checking_imports=True, cache_dir=None)
    assert circles_within("circle_pkg.inner", g) == [
        ["circle_pkg.inner", "circle_pkg.inner.a", "circle_pkg.inner.b"]
    ]


@pytest.mark.parametrize("vendor", VENDORS)
def test_each_vendor_folder_exports_one_descriptor_the_registry_holds(vendor: str) -> None:
    from good_agent.providers.registry import vendor_of
    from good_agent.providers.vendor import Vendor

    package = importlib.import_module(f"good_agent.providers.{vendor}")
    assert package.__all__ == ["VENDOR"]
    descriptor = package.VENDOR
    assert isinstance(descriptor, Vendor) and descriptor.name == vendor
    for provider in descriptor.providers:
        assert vendor_of(provider) is descriptor
        assert descriptor.http_transports[provider].provider in {vendor, "openai"}
    assert descriptor.codecs and all(codec.stream_decoder for codec in descriptor.codecs)
