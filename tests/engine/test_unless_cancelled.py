"""The cluster driver stops on Ctrl-C even when a library swallowed the cancellation (``unless_cancelled``)."""

from __future__ import annotations

import asyncio

import pytest

from answerlens.engine.cluster import unless_cancelled


async def swallowing(arrived: asyncio.Event) -> None:
    """A library call that loses a cancellation arriving as it completes (as 3.11's wait_for can)."""
    arrived.set()
    try:
        await asyncio.sleep(3600)
    except asyncio.CancelledError:
        pass  # returned as if completed: the request to stop is gone from the stack


async def driver(arrived: asyncio.Event, never: asyncio.Future[None], reached: list[str]) -> None:
    await swallowing(arrived)
    reached.append("went on")  # the lost cancellation: the driver goes on to wait for the next sample
    await unless_cancelled(never)


def test_a_cancellation_lost_inside_a_library_still_stops_the_wait() -> None:
    async def scenario() -> tuple[list[str], bool]:
        arrived, never, reached = asyncio.Event(), asyncio.get_running_loop().create_future(), []
        task = asyncio.create_task(driver(arrived, never, reached))
        await arrived.wait()
        task.cancel()  # Ctrl-C, as asyncio.run delivers it
        with pytest.raises(asyncio.CancelledError):
            await task
        return reached, never.cancelled()

    reached, abandoned = asyncio.run(scenario())
    assert reached == ["went on"] and abandoned  # it waited, saw the request, and dropped what it waited for


def test_a_result_comes_back_and_a_plain_cancellation_passes_through() -> None:
    async def scenario() -> None:
        ready = asyncio.get_running_loop().create_future()
        ready.set_result(7)
        assert await unless_cancelled(ready) == 7
        waiting = asyncio.get_running_loop().create_future()
        task = asyncio.create_task(unless_cancelled(waiting))
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert waiting.cancelled()

    asyncio.run(scenario())
