"""`DisconnectWatch.run`: one `asyncio.Timeout` tells a client gone, a time limit passed
and the work's own `TimeoutError` apart; `shielded` shields a close only while the task
is being cancelled."""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
import pytest

from good_agent.server.common.closing import shielded
from good_agent.server.common.disconnect import ClientGone, DisconnectWatch

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


async def test_work_after_the_client_left_is_cancelled_at_its_first_wait() -> None:
    client = Client()
    watch = DisconnectWatch(client.receive)
    client.leave()
    await asyncio.sleep(0.01)
    assert watch.gone
    steps = []

    async def work() -> None:
        steps.append("started")
        await asyncio.sleep(10)
        steps.append("never")

    with pytest.raises(ClientGone):
        await watch.run(work)
    assert steps == ["started"]


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
