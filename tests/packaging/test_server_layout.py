"""The servers' layout: each client API of the bridge in its own module or folder, none
importing the application back, and the agent server built only on the shared pieces."""

from __future__ import annotations

from functools import cache

import grimp
import pytest

SERVER = "good_agent.server"
APP = f"{SERVER}.app"
COMMON = f"{SERVER}.common"
UI = f"{SERVER}.ui"

API_HOMES = (
    f"{SERVER}.chat",
    f"{SERVER}.messages",
    f"{SERVER}.responses",
    f"{SERVER}.generate_content",
    f"{SERVER}.embeddings",
)
"""One folder (or module) per client API the bridge speaks."""

BRIDGE_ONLY = (
    *API_HOMES,
    APP,
    f"{SERVER}.bridge",
    f"{SERVER}.exchange",
    f"{SERVER}.served",
    f"{SERVER}.streams",
    f"{SERVER}.media",
    f"{SERVER}.media_fetch",
    f"{SERVER}.request_schemas",
    f"{SERVER}.serve",
)
"""The bridge's own modules, which the agent server does not use."""


@cache
def graph() -> grimp.ImportGraph:
    """Every import inside ``good_agent``, ``TYPE_CHECKING`` blocks and imports inside
    functions included."""
    return grimp.build_graph("good_agent", exclude_type_checking_imports=False, cache_dir=None)


def within(home: str) -> set[str]:
    """``home`` and, for a package, every module under it."""
    g = graph()
    return {home} | (g.find_descendants(home) if g.find_children(home) else set())


def in_any(module: str, homes: tuple[str, ...]) -> bool:
    return any(module == home or module.startswith(home + ".") for home in homes)


ENDPOINT_MODULES = sorted(set().union(*(within(home) for home in API_HOMES)))


def test_each_client_api_has_its_own_home_with_an_endpoint() -> None:
    for home in API_HOMES:
        assert home in graph().modules
    for folder in API_HOMES[:-1]:
        assert f"{folder}.endpoint" in graph().modules
        assert f"{folder}.wire" in graph().modules


@pytest.mark.parametrize("module", ENDPOINT_MODULES)
def test_no_client_api_module_imports_the_app(module: str) -> None:
    chain = graph().find_shortest_chain(importer=module, imported=APP)
    assert chain is None, f"{module} reaches the app: {' -> '.join(chain or ())}"


def test_the_app_is_imported_only_by_the_package_face_and_the_runner() -> None:
    importers = graph().find_modules_that_directly_import(APP)
    assert importers <= {SERVER, f"{SERVER}.serve"}


def test_the_endpoints_take_the_bridge_state_from_its_own_module() -> None:
    importers = graph().find_modules_that_directly_import(f"{SERVER}.bridge")
    endpoints = {f"{home}.endpoint" for home in API_HOMES[:-1]} | {f"{SERVER}.embeddings"}
    assert endpoints <= importers
    reached = graph().find_upstream_modules(f"{SERVER}.bridge")
    assert {m for m in reached if in_any(m, (*API_HOMES, APP))} == set()


@pytest.mark.parametrize("module", sorted(within(UI)))
def test_the_agent_server_uses_only_the_shared_pieces(module: str) -> None:
    server_imports = {
        imported
        for imported in graph().find_modules_directly_imported_by(module)
        if imported.startswith(SERVER + ".")
    }
    allowed = (COMMON, UI, f"{SERVER}.config")
    assert {m for m in server_imports if not in_any(m, allowed)} == set()
    reached = graph().find_upstream_modules(module)
    assert {m for m in reached if in_any(m, BRIDGE_ONLY)} == set()


@pytest.mark.parametrize("module", sorted(within(COMMON)))
def test_the_shared_pieces_import_neither_server(module: str) -> None:
    reached = graph().find_upstream_modules(module)
    assert {m for m in reached if in_any(m, (*BRIDGE_ONLY, UI))} == set()


def test_importing_the_agent_server_loads_none_of_the_bridge() -> None:
    # The package face `good_agent.server` loads the bridge's app, state and endpoints
    # on first use only, so serving an agent does not pay for the bridge. (The runner,
    # `serve`, and the configuration stay on the face: they load no endpoint.)
    import subprocess
    import sys

    code = (
        "import sys, good_agent.server.ui\n"
        "print('\\n'.join(m for m in sys.modules if m.startswith('good_agent.server.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    loaded = {m for m in out if in_any(m, BRIDGE_ONLY) and m != f"{SERVER}.serve"}
    assert loaded == set(), f"importing the agent server loaded the bridge: {sorted(loaded)}"
