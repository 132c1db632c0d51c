"""A trial running in a background thread, so the page can poll its progress and cancel it (no streamlit).

The thread owns its own event loop (``asyncio.run``); the page only reads ``progress`` and ``outcome``, and sets
``cancel``. Cancelling lets in-flight samples finish and keeps every saved sample; rerunning resumes. The run
goes through ``run_trial``, so through the run folder's lock: a folder the CLI (or another tab) is writing to is
refused with the holder's pid and start time.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from answerlens.config import AnswerabilityConfig
from answerlens.errors import AnswerabilityError, AnswerlensError, DatasetError, TrialError, TrialLockError
from answerlens.providers.engine import CallProgress
from answerlens.trials import limits
from answerlens.trials.dataset import Dataset
from answerlens.trials.runner import Progress, TrialOutcome, run_trial
from answerlens.ui.common.runner import Failure
from answerlens.ui.trials.errors import trial_message, trial_remedy

log = logging.getLogger(__name__)


@dataclass
class TrialJob:
    dataset: Dataset
    config: AnswerabilityConfig
    out: Path
    repeats: int
    concurrency: int
    cancel: threading.Event = field(default_factory=threading.Event)
    progress: Progress | None = None
    call: CallProgress | None = None
    """The last stage a model call reported (the sample in flight), as Inspect shows it."""
    outcome: TrialOutcome | None = None
    failure: Failure | None = None
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    _thread: threading.Thread | None = field(default=None, repr=False)
    _changed: threading.Condition = field(default_factory=threading.Condition, repr=False)
    """Notified at every saved sample and when the run ends."""

    @property
    def total(self) -> int:
        """Samples in the whole run (saved ones from an earlier run included)."""
        return len(self.dataset.cases) * self.repeats

    @property
    def running(self) -> bool:
        """Started and not ended; ``outcome`` or ``failure`` is set before this turns False."""
        return self._thread is not None and self.finished is None

    @property
    def seconds(self) -> float:
        return (self.finished or time.monotonic()) - self.started

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the run ends (tests and shutdown); True when it has."""
        if self._thread is not None:
            self._thread.join(timeout)
        return self._thread is None or not self._thread.is_alive()

    def wait_for_samples(self, count: int, timeout: float | None = None) -> bool:
        """Block until ``count`` new samples are saved or the run ends, whichever is first; True when one has."""
        with self._changed:
            return self._changed.wait_for(
                lambda: self.finished is not None or (self.progress is not None and self.progress.done >= count),
                timeout)

    def _run(self) -> None:
        try:
            limits.check_counts(repeats=self.repeats, concurrency=self.concurrency)
            limits.check_samples(len(self.dataset.cases), self.repeats)
        except TrialError as exc:
            self._fail(Failure("The trial settings are out of bounds", str(exc), "lower the repeats or the "
                               "concurrency", "settings"))
            return
        try:
            self.outcome = asyncio.run(run_trial(
                self.dataset, self.config, repeats=self.repeats, out=self.out, concurrency=self.concurrency,
                progress=self._record, cancel=self.cancel, call_progress=self._record_call))
        except Exception as exc:  # noqa: BLE001 - the page must show a message, never a traceback
            self.failure = failure_for(exc)
        finally:
            with self._changed:
                self.finished = time.monotonic()
                self._changed.notify_all()

    def _fail(self, failure: Failure) -> None:
        with self._changed:
            self.failure = failure
            self.finished = time.monotonic()
            self._changed.notify_all()

    def _record_call(self, call: CallProgress) -> None:
        self.call = call  # read by the page's poll; one reference swap, no wait to wake

    def _record(self, progress: Progress) -> None:
        with self._changed:
            self.progress = progress
            self._changed.notify_all()


NOT_STARTED = "The trial did not start"


def failure_for(exc: Exception) -> Failure:
    """What the page says about a run that raised instead of finishing (its error samples are data, not this).

    A ``TrialError`` is a refusal before any sample (a folder of another run, a bound, and the engine's
    preflight or lock once it has them); its ``remedy`` attribute, when the engine sets one, is shown as is.
    """
    remedy = getattr(exc, "remedy", None)
    if isinstance(exc, TrialLockError):  # another run (the CLI, or another browser tab) holds the folder
        return Failure("Another run is writing to this output directory", str(exc),
                       "wait for it to finish, or choose another output directory", "trial")
    if isinstance(exc, AnswerabilityError) and exc.kind == "preflight":  # refused before any sample
        return Failure("The endpoint cannot serve this trial", trial_message(str(exc)),
                       trial_remedy(exc.kind) if exc.remedy is None else exc.remedy, "endpoint")
    if isinstance(exc, TrialError):
        return Failure(NOT_STARTED, str(exc), remedy or "fix what the message names; for a folder that holds "
                       "another run, choose a fresh output directory or open it under “Open a result”", "trial")
    if isinstance(exc, DatasetError):
        return Failure("The dataset cannot be used", str(exc), remedy or "fix the case named above", "dataset")
    if isinstance(exc, AnswerabilityError):
        return Failure("The trial stopped: the endpoint failed", trial_message(str(exc)), trial_remedy(exc.kind),
                       exc.kind)
    if isinstance(exc, (AnswerlensError, OSError)):
        return Failure("The trial stopped", f"{type(exc).__name__}: {exc}",
                       "check the output directory is writable and the endpoint is reachable; rerun to resume "
                       "(saved samples are kept)", "trial")
    log.error("unexpected failure in a trial run", exc_info=exc)
    return Failure("Unexpected error (a bug in answerlens)", f"{type(exc).__name__}: {exc}",
                   "the full traceback is in the server log; saved samples are kept", "bug")


def start(dataset: Dataset, config: AnswerabilityConfig, *, out: Path, repeats: int, concurrency: int) -> TrialJob:
    """Start the run in a daemon thread and return at once."""
    job = TrialJob(dataset=dataset, config=config, out=out, repeats=repeats, concurrency=concurrency)
    job._thread = threading.Thread(target=job._run, name=f"answerlens-trial-{out.name}", daemon=True)
    job._thread.start()
    return job
