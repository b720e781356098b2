"""Closing a stream's parts, shielded from cancellation, only where it is needed.

A stream's generators and its upstream call are closed in a ``finally`` so that a
client leaving (a cancellation) still releases the upstream connection. A generator
that already ran to its end has nothing left to run: it is not closed again. And a
close is shielded only while the task is being cancelled (`shielded`): on a stream
that ended as it should, nothing is cancelling it, and a shielded cancel scope on
every finished stream would cost more than the close.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import anyio

_UNSHIELDED: AbstractContextManager[Any] = nullcontext()


def shielded() -> AbstractContextManager[Any]:
    """A shielded cancel scope while the current task is being cancelled (its
    cancellation requested and not yet withdrawn: a client gone, a deadline passed,
    an anyio scope cancelled), else nothing."""
    try:
        task = asyncio.current_task()
    except RuntimeError:  # no asyncio loop running (trio): always shield
        task = None
    if task is not None and not task.cancelling():
        return _UNSHIELDED
    return anyio.CancelScope(shield=True)


async def close_shielded(items: AsyncIterator[Any]) -> None:
    """``items.aclose()``, shielded while the task is being cancelled, unless ``items``
    has finished."""
    if getattr(items, "ag_frame", False) is None:  # an async generator run to its end
        return
    close = getattr(items, "aclose", None)
    if close is not None:
        with shielded():
            await close()
