"""The event loop behind `Agent.run_sync` and `Agent.close_sync`.

One `SyncLoop` per agent: an event loop running in a thread of its own, on which
every synchronous call of that agent runs, so components and connections stay usable
between calls, and calls from several threads at once (a web framework's worker
threads) run side by side as tasks of that one loop, each with its own conversation.
A call runs in a copy of the calling thread's context (context variables such as
``override()`` and ``capture_run_messages()`` apply), and an interrupt of the waiting
thread (Ctrl-C) cancels its run. The loop is closed by ``close_sync()`` (or leaving
``with agent:``); an agent dropped without either has it closed by a finalizer, which
first closes the models the agent built from a name: their connections belong to
this loop, and left open they would fail later, from a garbage collector, on a loop
already closed.
"""

from __future__ import annotations

import logging
import sys
import threading
import weakref
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from good_agent.models.traits import close_model

if TYPE_CHECKING:
    import asyncio

T = TypeVar("T")

logger = logging.getLogger("good_agent.agent")

LOOP_THREAD = "good-agent-loop"
"""The name of the thread an agent's synchronous calls run in."""

CREATION_LOCK = threading.Lock()
"""Held while an agent makes its loop, so threads calling at once share one."""


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
        await close_model(model)


async def _close_then_stop(models: list[Any]) -> None:
    import asyncio

    try:
        await close_models(models)
    except Exception as error:
        logger.warning("closing a dropped agent's models failed: %r", error)
    finally:
        asyncio.get_running_loop().stop()


def _finalize(loop: asyncio.AbstractEventLoop, thread: threading.Thread, models: list[Any]) -> None:
    # The garbage collector calls this at any point of any code: inside another event
    # loop, inside this very loop's thread, or while holding a lock that closing
    # needs. So it only asks the loop to close the models and stop; the loop's
    # thread then closes the loop. It waits only at interpreter exit, where the
    # thread (a daemon) would otherwise be stopped half way.
    try:
        loop.call_soon_threadsafe(lambda: loop.create_task(_close_then_stop(models)))
    except RuntimeError:  # closed already
        return
    if not threading.main_thread().is_alive() and threading.current_thread() is not thread:
        thread.join()


def _serve(loop: asyncio.AbstractEventLoop) -> None:
    import asyncio

    asyncio.set_event_loop(loop)
    try:
        loop.run_forever()
    finally:
        try:
            tasks = asyncio.all_tasks(loop)
            for task in tasks:
                task.cancel()
            if tasks:
                loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            asyncio.set_event_loop(None)
            loop.close()


class SyncLoop:
    """An event loop in a thread of its own, owned by one agent, closed with it or
    when it goes.

    ``models`` is the agent's list of the models it built from a name (shared,
    not copied): they are closed on this loop before it closes.
    """

    def __init__(self, owner: object, models: list[Any]) -> None:
        import asyncio  # on the first sync call: `import good_agent` leaves it out

        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=_serve, args=(self.loop,), name=LOOP_THREAD, daemon=True
        )
        self._thread.start()
        self._finalizer = weakref.finalize(owner, _finalize, self.loop, self._thread, models)

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run ``coroutine`` to its end on this loop, in a copy of the calling thread's
        context; an interrupt while waiting (``KeyboardInterrupt``) cancels it."""
        import asyncio

        future = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        try:
            return future.result()
        except BaseException:
            future.cancel()  # no effect once it has ended
            raise

    def close(self, last: Coroutine[Any, Any, None] | None = None) -> None:
        """Run ``last`` (the agent's close), then stop and close the loop."""
        self._finalizer.detach()
        try:
            if last is not None:
                self.run(last)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join()
