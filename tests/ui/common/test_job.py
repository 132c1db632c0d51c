"""The one background-job scaffold: progress, result, error, cancel (at its own pace, or interrupting), and
``running`` meaning started and not ended, with the outcome set before it turns False. Waits are on events."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

import pytest

from answerlens.ui.common import job
from answerlens.ui.common.job import Job


def test_a_plain_function_reports_and_returns() -> None:
    go = threading.Event()

    def work(report: Callable[[int], None], cancel: threading.Event) -> str:
        report(1)
        go.wait(10)
        report(2)
        return "done"

    running = job.start(work, name="plain")
    assert running.wait_for(lambda current: current.progress == 1, 10)
    assert running.running and running.result is None
    go.set()
    assert running.wait(10) and not running.running
    assert (running.result, running.progress, running.error, running.interrupted) == ("done", 2, None, False)
    assert running.finished is not None and running.seconds == running.finished - running.started


def test_an_async_function_runs_in_the_job_s_own_loop() -> None:
    async def work(report: Callable[[str], None], cancel: threading.Event) -> int:
        await asyncio.sleep(0)
        report("halfway")
        return 42

    running: Job[str, int] = job.start(work, name="async")
    assert running.wait(10)
    assert (running.result, running.progress) == (42, "halfway")


def test_an_error_is_kept_not_raised() -> None:
    def work(report: Callable[[None], None], cancel: threading.Event) -> None:
        raise OSError("disk full")

    running = job.start(work, name="fails")
    assert running.wait(10) and not running.running
    assert isinstance(running.error, OSError) and str(running.error) == "disk full" and running.result is None


def test_cancel_without_interrupt_lets_the_work_finish_at_its_own_pace() -> None:
    def work(report: Callable[[int], None], cancel: threading.Event) -> int:
        steps = 0
        while not cancel.wait(0.01):  # polls, as a trial's runner does between samples
            steps += 1
            report(steps)
        return steps

    running = job.start(work, name="polite")
    assert running.wait_for(lambda current: current.progress is not None, 10)
    running.cancel()
    assert running.cancelling
    assert running.wait(10)
    assert running.result is not None and running.result >= 1 and not running.interrupted


def test_cancel_with_interrupt_stops_a_coroutine_mid_await() -> None:
    parked = threading.Event()

    async def work(report: Callable[[str], None], cancel: threading.Event) -> str:
        report("calling")
        parked.set()
        await asyncio.Event().wait()  # a model call that would never end
        return "never"

    running = job.start(work, name="model", interrupt=True)
    assert parked.wait(10)
    running.cancel()
    running.cancel()  # more than once is harmless
    assert running.wait(10)
    assert running.interrupted and running.result is None and running.error is None
    assert running.progress == "calling"


def test_a_job_cancelled_before_its_loop_exists_never_calls_its_work() -> None:
    called = []
    pending: Job[None, str] = Job(name="early", interrupt=True)
    pending.cancel()
    pending._run(lambda report, cancel: called.append(1) or "ran")
    assert pending.interrupted and called == [] and not pending.running


@pytest.mark.parametrize("interrupt", [False, True])
def test_running_turns_false_only_after_the_outcome_is_set(interrupt: bool) -> None:
    outcomes = []
    gate = threading.Event()

    def work(report: Callable[[None], None], cancel: threading.Event) -> str:
        gate.wait(10)
        return "x"

    running = job.start(work, name="order", interrupt=interrupt)

    def watch() -> None:
        while running.running:
            pass
        outcomes.append(running.result)

    watcher = threading.Thread(target=watch)
    watcher.start()
    gate.set()
    watcher.join(10)
    assert outcomes == ["x"]


def test_an_ended_job_never_blocks_a_waiter() -> None:
    running = job.start(lambda report, cancel: None, name="quick")
    assert running.wait(10)
    assert running.wait_for(lambda current: False, timeout=None) is False
