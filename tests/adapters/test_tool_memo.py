"""``ToolMemo`` remembers per tool object and lets tools go."""

from __future__ import annotations

import gc

from good_agent import tool
from good_agent.adapters import ToolMemo


def make(name: str):  # type: ignore[no-untyped-def]
    @tool(name=name)
    def probe(x: int) -> int:
        """Probe."""
        return x

    return probe


def test_values_are_per_tool_object_and_go_with_the_tool() -> None:
    memo: ToolMemo[str] = ToolMemo()
    first, second = make("a"), make("a")  # equal names, different objects
    assert memo.get(first) is None
    assert memo.set(first, "one") == "one"
    assert memo.get(first) == "one" and memo.get(second) is None
    memo.set(second, "two")
    assert (memo.get(first), memo.get(second), len(memo)) == ("one", "two", 2)
    del first
    gc.collect()
    assert len(memo) == 1 and memo.get(second) == "two"


def test_a_new_tool_at_a_freed_address_is_not_mistaken_for_the_old_one() -> None:
    memo: ToolMemo[int] = ToolMemo()
    for index in range(50):  # addresses get reused; the weak reference tells them apart
        current = make(f"t{index}")
        assert memo.get(current) is None
        memo.set(current, index)
        del current
    gc.collect()
    assert len(memo) == 0


def test_a_collected_memo_does_not_break_the_tools_it_knew() -> None:
    memo: ToolMemo[int] = ToolMemo()
    kept = make("kept")
    memo.set(kept, 1)
    del memo
    gc.collect()
    del kept
    gc.collect()
