"""One background job for a page (no streamlit here): ``start(work)`` runs ``work`` in a daemon thread with its
own event loop and returns at once; the page reads ``progress``, ``running`` and the outcome, and calls ``cancel()``.

``work(report, cancel)`` is a function (plain or ``async``) that calls ``report(progress)`` whenever it has news and
may watch ``cancel`` (a ``threading.Event``) to stop at its own pace: a trial lets the samples in flight finish.
Started with ``interrupt=True``, ``cancel()`` also cancels the running coroutine at once: a model call's connection
closes, and a llama.cpp server stops generating.

``running`` has one meaning: started and not ended. The outcome (``result``, ``error`` or ``interrupted``) is set
before ``running`` turns False, so a page that sees a job not running can read how it ended.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

P = TypeVar("P")
R = TypeVar("R")

Report = Callable[[P], None]
Work = Callable[[Callable[[P], None], threading.Event], Awaitable[R] | R]


@dataclass(eq=False)
class Job(Generic[P, R]):
    """A piece of work in a background thread; ``start`` makes one."""

    name: str
    interrupt: bool = False
    """``cancel()`` also cancels the running coroutine (else it only sets ``cancelling`` for the work to see)."""
    progress: P | None = None
    """The last progress the work reported (None: nothing yet)."""
    result: R | None = None
    """What the work returned (set once it has)."""
    error: Exception | None = None
    """What the work raised instead of returning."""
    interrupted: bool = False
    """It ended because ``cancel()`` interrupted it (``interrupt=True`` only)."""
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    _cancel: threading.Event = field(default_factory=threading.Event, repr=False)
    _changed: threading.Condition = field(default_factory=threading.Condition, repr=False)
    _task: tuple[asyncio.AbstractEventLoop, asyncio.Task[R]] | None = field(default=None, repr=False)
    _thread: threading.Thread | None = field(default=None, repr=False)

    @property
    def running(self) -> bool:
        """Started and not ended; the outcome is set before this turns False."""
        return self.finished is None

    @property
    def cancelling(self) -> bool:
        """``cancel()`` was called (the job may still be running, finishing what is in flight)."""
        return self._cancel.is_set()

    @property
    def seconds(self) -> float:
        return (self.finished or time.monotonic()) - self.started

    def cancel(self) -> None:
        """Ask the work to stop: safe from any thread, at any moment (before its loop exists too), more than once."""
        with self._changed:
            self._cancel.set()
            task = self._task if self.interrupt else None
        if task is not None:
            task[0].call_soon_threadsafe(task[1].cancel)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job ends (tests and shutdown); True when it has."""
        return self.wait_for(lambda job: False, timeout) or not self.running

    def wait_for(self, predicate: Callable[[Job[P, R]], bool], timeout: float | None = None) -> bool:
        """Block until ``predicate(self)`` holds or the job ends, whichever is first (checked at each report and at
        the end); True when the predicate holds."""
        with self._changed:
            self._changed.wait_for(lambda: predicate(self) or not self.running, timeout)
            return predicate(self)

    def _run(self, work: Work[P, R]) -> None:
        try:
            self.result = asyncio.run(self._main(work))
        except asyncio.CancelledError:
            self.interrupted = True
        except Exception as exc:  # noqa: BLE001 - kept for the page to word; a thread has no one else to tell
            self.error = exc
        finally:
            with self._changed:
                self.finished = time.monotonic()
                self._changed.notify_all()

    async def _main(self, work: Work[P, R]) -> R:
        task = asyncio.current_task()
        assert task is not None
        with self._changed:
            if self.interrupt and self._cancel.is_set():
                raise asyncio.CancelledError
            self._task = (asyncio.get_running_loop(), task)
        value = work(self._report, self._cancel)
        return await value if inspect.isawaitable(value) else value

    def _report(self, progress: P) -> None:
        with self._changed:
            self.progress = progress
            self._changed.notify_all()


def start(work: Work[P, R], *, name: str, interrupt: bool = False) -> Job[P, R]:
    """Run ``work`` in a daemon thread and return its job at once."""
    job: Job[P, R] = Job(name=name, interrupt=interrupt)
    job._thread = threading.Thread(target=job._run, args=(work,), name=f"answerlens-{name}", daemon=True)
    job._thread.start()
    return job
