"""The run engine never imports the Agent: no module of ``good_agent.core`` but
``agent.py`` imports ``good_agent.core.agent`` (``TYPE_CHECKING`` imports included), so
``core/`` has no import circle through it."""

from __future__ import annotations

import grimp

ENGINE = (
    "good_agent.core._loop",
    "good_agent.core._run_state",
    "good_agent.core._turns",
    "good_agent.core._execution",
    "good_agent.core.components",
    "good_agent.core.conversation",
    "good_agent.core.run_context",
)


def test_no_core_module_imports_the_agent() -> None:
    graph = grimp.build_graph("good_agent", include_external_packages=False)
    importers = graph.find_modules_that_directly_import("good_agent.core.agent")
    in_core = sorted(m for m in importers if m.startswith("good_agent.core."))
    assert in_core == []
    for module in ENGINE:
        assert not graph.chain_exists(importer=module, imported="good_agent.core.agent"), module


def test_agent_py_is_in_no_import_cycle() -> None:
    graph = grimp.build_graph("good_agent", include_external_packages=False)
    for module in graph.find_modules_directly_imported_by("good_agent.core.agent"):
        assert not graph.chain_exists(importer=module, imported="good_agent.core.agent"), module
