"""The examples in docs/prompted-tools.md run and their assertions hold."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PAGE = Path(__file__).parents[3] / "docs" / "prompted-tools.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```", PAGE.read_text(), re.MULTILINE | re.DOTALL)


def test_page_has_examples() -> None:
    assert len(BLOCKS) >= 10


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_docs_example(index: int) -> None:
    exec(compile(BLOCKS[index], f"prompted-tools.md#{index}", "exec"), {})
