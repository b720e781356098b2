"""``is_awaitable`` answers as ``inspect.isawaitable`` does, for every kind of value."""

from __future__ import annotations

import inspect
import types
from collections.abc import Generator
from typing import Any

import pytest

from good_agent._util.awaitable import is_awaitable


class Awaits:
    def __await__(self) -> Generator[Any, None, int]:
        return iter([])  # type: ignore[return-value]


class Plain:
    pass


async def coroutine_function() -> int:
    return 1


def plain_generator() -> Generator[int, None, None]:
    yield 1


@types.coroutine
def old_style() -> Generator[None, None, int]:
    yield None
    return 1


@pytest.mark.parametrize(
    "make",
    [
        lambda: None,
        lambda: {"a": 1},
        lambda: Plain(),
        lambda: Awaits(),
        lambda: coroutine_function(),
        lambda: plain_generator(),
        lambda: old_style(),
    ],
    ids=["none", "dict", "plain", "awaitable", "coroutine", "generator", "types.coroutine"],
)
def test_it_agrees_with_inspect_also_on_a_second_value_of_the_type(make: Any) -> None:
    for _ in range(2):  # the second answer comes from the per-type memo
        value = make()
        assert is_awaitable(value) == inspect.isawaitable(value)
        if inspect.iscoroutine(value):
            value.close()


def test_a_plain_generator_after_an_old_style_coroutine_is_still_not_awaitable() -> None:
    assert is_awaitable(old_style()) is True
    assert is_awaitable(plain_generator()) is False
