"""The event loop behind `Agent.run_sync` and `Agent.close_sync`.

One `SyncLoop` per agent runs every synchronous call on the same event
loop, so components and connections stay usable between calls. It is closed by
``close_sync()`` (or leaving ``with agent:``); an agent dropped without either
has it closed by a finalizer (in a thread of its own), which first closes the
models the agent built from a name: their connections belong to this loop, and
left open they would fail later, from a garbage collector, on a loop already
closed.
"""

from __future__ import annotations

import logging
import sys
import threading
import weakref
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import asyncio

T = TypeVar("T")

logger = logging.getLogger("good_agent.agent")

CLOSER_THREAD = "good-agent-close"
"""The name of the thread that closes a dropped agent's loop."""


def refuse_inside_a_loop(method: str) -> None:
    """Raise ``RuntimeError`` when an event loop runs in this thread."""
    # asyncio is imported when a sync method first needs a loop; until then no asyncio
    # loop can be running.
    asyncio = sys.modules.get("asyncio")
    if asyncio is None:
        return
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise RuntimeError(
        f"Agent.{method}() cannot run inside a running event loop: use the async "
        "form there ('await agent.run(...)', 'await agent.close()', 'async with agent')"
    )


async def close_models(models: list[Any]) -> None:
    """Close each model's connections (those with an ``aclose``; they reconnect if used
    again)."""
    for model in models:
        close = getattr(model, "aclose", None)
        if close is not None:
            await close()


def _close(runner: asyncio.Runner, models: list[Any]) -> None:
    try:
        runner.run(close_models(models))
    except Exception as error:
        logger.warning("closing a dropped agent's models failed: %r", error)
    finally:
        runner.close()


def _finalize(runner: asyncio.Runner, models: list[Any]) -> None:
    if not threading.main_thread().is_alive():
        # interpreter exit (the finalizers of live agents run after the main thread ended)
        _close(runner, models)
        return
    # The garbage collector calls this at any point of any code: inside another
    # event loop, or while holding a lock that closing needs. So the loop closes in
    # a thread of its own, never awaited here (a non-daemon thread: exit waits for it).
    closer = threading.Thread(target=_close, args=(runner, models), name=CLOSER_THREAD)
    closer.start()


class SyncLoop:
    """An `asyncio.Runner` owned by one agent, closed with it or when it goes.

    ``models`` is the agent's list of the models it built from a name (shared,
    not copied): they are closed on this loop before it closes.
    """

    def __init__(self, owner: object, models: list[Any]) -> None:
        import asyncio  # on the first sync call: `import good_agent` leaves it out

        self.runner = asyncio.Runner()
        self._finalizer = weakref.finalize(owner, _finalize, self.runner, models)

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run ``coroutine`` to its end on this loop."""
        return self.runner.run(coroutine)

    def close(self, last: Coroutine[Any, Any, None] | None = None) -> None:
        """Run ``last`` (the agent's close), then close the loop."""
        self._finalizer.detach()
        try:
            if last is not None:
                self.runner.run(last)
        finally:
            self.runner.close()
