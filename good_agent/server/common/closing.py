"""Closing a stream's async generator, shielded from cancellation, only if needed.

A stream's generators are closed in a ``finally`` so that a client leaving (a
cancellation) still releases the upstream connection. A generator that already ran
to its end has nothing left to run: it is not closed again, which spares a shielded
cancel scope per generator on every finished stream.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anyio


async def close_shielded(items: AsyncIterator[Any]) -> None:
    """``items.aclose()`` in a shielded cancel scope, unless ``items`` has finished."""
    if getattr(items, "ag_frame", False) is None:  # an async generator run to its end
        return
    close = getattr(items, "aclose", None)
    if close is not None:
        with anyio.CancelScope(shield=True):
            await close()
