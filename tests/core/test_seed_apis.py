"""The documented imports and helpers of the original adapter design."""

from __future__ import annotations

import pytest

from good_agent.extensions.citation_index import CitationIndex


def test_adapter_vocabulary_imports_from_core_components() -> None:
    from good_agent.adapters import AdapterMetadata as FromAdapters
    from good_agent.adapters import ConflictStrategy as StrategyFromAdapters
    from good_agent.core.components import AdapterMetadata, ConflictStrategy

    assert AdapterMetadata is FromAdapters
    assert ConflictStrategy is StrategyFromAdapters
    assert {s.name for s in ConflictStrategy} >= {"CHAIN", "EXCLUSIVE", "PRIORITY", "MERGE"}


def test_citation_index_get_url() -> None:
    index = CitationIndex()
    first = index.add("https://example.com/a")
    second = index.add("https://example.com/b?x=1")
    assert index.get_url(first) == "https://example.com/a"
    assert index.get_url(second) == "https://example.com/b?x=1"
    for unknown in (0, 3, -1, True):
        assert index.get_url(unknown) is None
    with pytest.raises(KeyError):
        index.get(3)
