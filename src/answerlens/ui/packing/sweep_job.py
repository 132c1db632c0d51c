"""A packing sweep running in a background thread, so the page can poll its progress and cancel it (no
streamlit). The same approach as the Trials page's job (``ui.trials.job``): the thread owns its event loop, the
page reads ``progress`` and ``outcome`` and sets ``cancel``; the run goes through the trial engine's lock."""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from answerlens.config import AnswerabilityConfig
from answerlens.records import MemoryBundle
from answerlens.sweeps.run import SweepOutcome, run_sweep
from answerlens.trials.runner import Progress
from answerlens.ui.common.runner import Failure
from answerlens.ui.trials.job import failure_for


@dataclass
class SweepJob:
    question: str
    answer: str | None
    bundle: MemoryBundle
    bundle_name: str
    config: AnswerabilityConfig
    formats: tuple[str, ...]
    budgets: tuple[str, ...]
    out: Path
    repeats: int
    concurrency: int
    cells: int
    """Assessable cells: ``cells × repeats`` calls in all."""
    cancel: threading.Event = field(default_factory=threading.Event)
    progress: Progress | None = None
    outcome: SweepOutcome | None = None
    failure: Failure | None = None
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    _thread: threading.Thread | None = field(default=None, repr=False)
    _changed: threading.Condition = field(default_factory=threading.Condition, repr=False)

    @property
    def total(self) -> int:
        """Calls in the whole sweep (saved samples from an earlier run of it included)."""
        return self.cells * self.repeats

    @property
    def running(self) -> bool:
        return self._thread is not None and self.finished is None

    @property
    def seconds(self) -> float:
        return (self.finished or time.monotonic()) - self.started

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the sweep ends (tests); True when it has."""
        with self._changed:
            return self._changed.wait_for(lambda: self.finished is not None, timeout)

    def _run(self) -> None:
        try:
            self.outcome = asyncio.run(run_sweep(
                self.question, self.bundle, self.config, out=self.out, formats=self.formats, budgets=self.budgets,
                answer=self.answer, repeats=self.repeats, concurrency=self.concurrency, progress=self._record,
                cancel=self.cancel, bundle_name=self.bundle_name))
        except Exception as exc:  # noqa: BLE001 - the page must show a message, never a traceback
            self.failure = failure_for(exc)
        finally:
            with self._changed:
                self.finished = time.monotonic()
                self._changed.notify_all()

    def _record(self, progress: Progress) -> None:
        with self._changed:
            self.progress = progress
            self._changed.notify_all()


def start(job: SweepJob) -> SweepJob:
    """Run ``job`` in a daemon thread and return it at once."""
    job._thread = threading.Thread(target=job._run, name=f"answerlens-sweep-{job.out.name}", daemon=True)
    job._thread.start()
    return job
