"""`DisconnectWatch.run`: a client gone, a time limit passed and the work's own
`TimeoutError` told apart; the client watched only once a run outlasts `WATCH_AFTER`;
the task's cancel count left as it was; `shielded` shields a close only while the task
is being cancelled."""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
import pytest

from good_agent.server.common.closing import shielded
from good_agent.server.common.disconnect import WATCH_AFTER, ClientGone, DisconnectWatch

pytestmark = pytest.mark.anyio


class Client:
    """An ASGI ``receive`` whose ``http.disconnect`` comes when `leave` is called."""

    def __init__(self) -> None:
        self.gone = asyncio.Event()

    async def receive(self) -> dict[str, Any]:
        await self.gone.wait()
        return {"type": "http.disconnect"}

    def leave(self) -> None:
        self.gone.set()


class Expired(Exception):
    pass


async def test_a_client_leaving_cancels_the_work_and_its_finally_runs() -> None:
    client = Client()
    watch = DisconnectWatch(client.receive)
    cleaned = []

    async def work() -> str:
        try:
            await asyncio.sleep(10)
        finally:
            cleaned.append(True)
        return "never"

    asyncio.get_running_loop().call_later(0.05, client.leave)
    with pytest.raises(ClientGone):
        await watch.run(work, within=5, expired=Expired)
    assert cleaned == [True]
    assert asyncio.current_task().cancelling() == 0  # type: ignore[union-attr]


async def test_work_after_the_client_left_is_cancelled_once_it_is_watched() -> None:
    client = Client()
    watch = DisconnectWatch(client.receive)
    client.leave()
    steps = []

    async def work() -> None:
        steps.append("started")
        await asyncio.sleep(10)
        steps.append("never")

    started = asyncio.get_running_loop().time()
    with pytest.raises(ClientGone):
        await watch.run(work)
    assert steps == ["started"]
    assert watch.gone and watch.watching
    assert asyncio.get_running_loop().time() - started < WATCH_AFTER + 1
    assert asyncio.current_task().cancelling() == 0  # type: ignore[union-attr]


async def test_a_client_known_gone_cancels_the_next_run_at_its_first_wait() -> None:
    client = Client()
    watch = DisconnectWatch(client.receive)
    watch.watch()
    client.leave()
    await asyncio.sleep(0.01)
    assert watch.gone
    steps = []

    async def work() -> None:
        steps.append("started")
        await asyncio.sleep(10)

    with pytest.raises(ClientGone):
        await watch.run(work)
    assert steps == ["started"]


async def test_a_run_that_ends_sooner_than_watch_after_starts_no_watcher() -> None:
    client = Client()
    watch = DisconnectWatch(client.receive)

    async def work() -> int:
        await asyncio.sleep(0)
        return 7

    assert await watch.run(work) == 7
    await asyncio.sleep(WATCH_AFTER * 2)  # its timer was cancelled with the run
    assert not watch.watching
    client.leave()
    await asyncio.sleep(0.01)
    assert not watch.gone  # nothing waits on receive: nothing to cancel either


async def test_a_longer_run_is_watched_and_cancelled_when_the_client_leaves() -> None:
    client = Client()
    watch = DisconnectWatch(client.receive)
    cleaned = []

    async def work() -> None:
        try:
            await asyncio.sleep(10)
        finally:
            cleaned.append(True)

    loop = asyncio.get_running_loop()
    loop.call_later(WATCH_AFTER * 3, client.leave)
    started = loop.time()
    with pytest.raises(ClientGone):
        await watch.run(work)
    assert cleaned == [True] and watch.watching
    assert WATCH_AFTER * 3 <= loop.time() - started < 5


async def test_left_from_inside_the_work_cancels_it_at_its_next_wait_only() -> None:
    watch = DisconnectWatch(Client().receive)
    steps = []

    async def write_fails_then_waits() -> None:
        watch.left()  # a write found the client gone (as EventStream reports it)
        steps.append("after left")
        await asyncio.sleep(10)
        steps.append("never")

    with pytest.raises(ClientGone):
        await watch.run(write_fails_then_waits)
    assert steps == ["after left"]

    # Left, then the work ends without waiting again: nothing is cancelled later.
    watch = DisconnectWatch(Client().receive)

    async def write_fails_then_ends() -> str:
        watch.left()
        return "done"

    assert await watch.run(write_fails_then_ends) == "done"
    await asyncio.sleep(0.01)  # a cancel landing here would raise CancelledError
    assert asyncio.current_task().cancelling() == 0  # type: ignore[union-attr]


async def test_a_cancel_the_work_swallows_is_counted_back() -> None:
    client = Client()
    watch = DisconnectWatch(client.receive)
    watch.watch()

    async def stubborn() -> str:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            return "kept going"
        return "never"

    asyncio.get_running_loop().call_later(0.02, client.leave)
    assert await watch.run(stubborn) == "kept going"
    assert asyncio.current_task().cancelling() == 0  # type: ignore[union-attr]
    await asyncio.sleep(0.01)


async def test_a_cancel_from_elsewhere_is_not_taken_for_the_client() -> None:
    client = Client()
    watch = DisconnectWatch(client.receive)
    watch.watch()

    async def request() -> None:
        await watch.run(lambda: asyncio.sleep(10))

    task = asyncio.get_running_loop().create_task(request())
    await asyncio.sleep(0.01)
    client.leave()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_the_time_limit_raises_expired() -> None:
    watch = DisconnectWatch(Client().receive)
    with pytest.raises(Expired):
        await watch.run(lambda: asyncio.sleep(10), within=0.05, expired=Expired)
    with pytest.raises(TimeoutError):
        await watch.run(lambda: asyncio.sleep(10), within=0.05)


async def test_the_works_own_timeout_error_is_not_taken_for_the_limit() -> None:
    watch = DisconnectWatch(Client().receive)

    async def work() -> None:
        async with asyncio.timeout(0.01):
            await asyncio.sleep(10)

    with pytest.raises(TimeoutError) as caught:
        await watch.run(work, within=5, expired=Expired)
    assert not isinstance(caught.value, Expired)


async def test_work_that_ends_in_time_returns_its_result() -> None:
    client = Client()
    watch = DisconnectWatch(client.receive)
    watch.watch()

    async def work() -> int:
        await asyncio.sleep(0)
        return 7

    assert await watch.run(work, within=5, expired=Expired) == 7
    client.leave()  # the reply sent: the watch ends by itself, nothing to cancel
    await asyncio.sleep(0.01)
    assert watch.gone


async def test_a_close_is_shielded_only_while_the_task_is_cancelled() -> None:
    assert not isinstance(shielded(), anyio.CancelScope)
    closed = []

    async def cut() -> None:
        try:
            await asyncio.sleep(10)
        finally:
            with shielded() as scope:
                assert isinstance(scope, anyio.CancelScope)
                await asyncio.sleep(0.01)  # a close that waits still runs to its end
                closed.append(True)

    task = asyncio.get_running_loop().create_task(cut())
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert closed == [True]
