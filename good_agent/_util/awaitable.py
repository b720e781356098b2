"""A faster ``inspect.isawaitable`` for hook results that are usually plain values."""

from __future__ import annotations

import inspect
from types import CoroutineType, GeneratorType
from typing import Any

_BY_TYPE: dict[type, bool] = {}
"""Whether values of a type are awaitable (decided once per type)."""


def is_awaitable(value: Any) -> bool:
    """``inspect.isawaitable(value)``, decided once per type.

    A coroutine is awaitable; a generator only when it was made a coroutine
    (``types.coroutine``), which is asked of each; any other value is awaitable
    when its type has ``__await__``, which is asked once per type.
    """
    kind = type(value)
    if kind is CoroutineType:
        return True
    if kind is GeneratorType:
        return inspect.isawaitable(value)
    known = _BY_TYPE.get(kind)
    if known is None:
        known = _BY_TYPE[kind] = inspect.isawaitable(value)
    return known
