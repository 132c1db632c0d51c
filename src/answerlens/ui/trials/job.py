"""A trial running as a background job (``ui.common.job``), so the page can poll its progress and cancel it (no
streamlit here).

Cancelling lets in-flight samples finish and keeps every saved sample; rerunning resumes. The run goes through
``run_trial``, so through the run folder's lock: a folder the CLI (or another tab) is writing to is refused with
the holder's pid and start time. Whatever the run raises is worded here, in the job, as a ``Failure``.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path

from answerlens.config import AnswerabilityConfig
from answerlens.engine.runner import Progress, TrialOutcome, run_trial
from answerlens.errors import (
    AnswerabilityError,
    AnswerlensError,
    DatasetError,
    StorageError,
    TrialError,
    TrialLockError,
)
from answerlens.providers.engine import CallProgress
from answerlens.trials import limits
from answerlens.trials.dataset import Dataset
from answerlens.ui.common import job as background
from answerlens.ui.common.job import Job
from answerlens.ui.common.runner import Failure
from answerlens.ui.trials.errors import trial_message, trial_remedy

log = logging.getLogger(__name__)


@dataclass
class LastCall:
    """The last stage a model call reported (the sample in flight), as Inspect shows it: one reference, swapped
    by the run's thread and read by the page's poll."""

    progress: CallProgress | None = None


@dataclass(frozen=True)
class TrialJob:
    """What was started, and the job running it; the job's result is the outcome or the failure to show."""

    dataset: Dataset
    out: Path
    repeats: int
    job: Job[Progress, TrialOutcome | Failure]
    last_call: LastCall

    @property
    def total(self) -> int:
        """Samples in the whole run (saved ones from an earlier run included)."""
        return len(self.dataset.cases) * self.repeats

    @property
    def call(self) -> CallProgress | None:
        return self.last_call.progress

    @property
    def outcome(self) -> TrialOutcome | None:
        return self.job.result if isinstance(self.job.result, TrialOutcome) else None

    @property
    def failure(self) -> Failure | None:
        return self.job.result if isinstance(self.job.result, Failure) else None

    def wait_for_samples(self, count: int, timeout: float | None = None) -> bool:
        """Block until ``count`` new samples are saved or the run ends, whichever is first; True when one has."""
        return self.job.wait_for(lambda job: job.progress is not None and job.progress.done >= count,
                                 timeout) or not self.job.running


def failure_for(exc: Exception, run: str = "trial") -> Failure:
    """What the page says about a run (``run``: a trial, or a sweep on the same engine) that raised instead of
    finishing (its error samples are data, not this).

    A ``TrialError`` is a refusal before any sample (a folder of another run, a bound, and the engine's
    preflight or lock once it has them); its ``remedy`` attribute, when the engine sets one, is shown as is.
    """
    remedy = getattr(exc, "remedy", None)
    if isinstance(exc, TrialLockError):  # another run (the CLI, or another browser tab) holds the folder
        return Failure("Another run is writing to this output directory", str(exc),
                       "wait for it to finish, or choose another output directory", "trial")
    if isinstance(exc, AnswerabilityError) and exc.kind == "preflight":  # refused before any sample
        return Failure(f"The endpoint cannot serve this {run}", trial_message(exc.detail), trial_remedy(exc.kind),
                       "endpoint")
    if isinstance(exc, TrialError):
        where = ("; for a folder that holds another run, choose a fresh output directory or open it under “Open a "
                 "result”") if run == "trial" else ""
        return Failure(f"The {run} did not start", str(exc), remedy or f"fix what the message names{where}", "trial")
    if isinstance(exc, DatasetError):
        return Failure("The dataset cannot be used", str(exc), remedy or "fix the case named above", "dataset")
    if isinstance(exc, AnswerabilityError):
        return Failure(f"The {run} stopped: the endpoint failed", trial_message(str(exc)), trial_remedy(exc.kind),
                       exc.kind)
    if isinstance(exc, StorageError):  # the machine refused a write: the file, what is kept, how to resume
        return Failure(f"The {run} stopped: the disk refused a write", f"cannot write {exc.path}: {exc.reason}; "
                       f"{exc.kept}", exc.resume, "storage")
    if isinstance(exc, (AnswerlensError, OSError)):
        return Failure(f"The {run} stopped", f"{type(exc).__name__}: {exc}",
                       "check the output directory is writable and the endpoint is reachable; rerun to resume "
                       "(saved samples are kept)", "trial")
    log.error("unexpected failure in a %s run", run, exc_info=exc)
    return Failure("Unexpected error (a bug in answerlens)", f"{type(exc).__name__}: {exc}",
                   "the full traceback is in the server log; saved samples are kept", "bug")


def start(dataset: Dataset, config: AnswerabilityConfig, *, out: Path, repeats: int,
          concurrency: int | None = None) -> TrialJob:
    """Start the run in the background and return at once; ``concurrency`` None: as many requests in flight as the
    server serves (``trials.fit``)."""

    last = LastCall()

    async def work(report: background.Report[Progress], cancel: threading.Event) -> TrialOutcome | Failure:
        try:
            limits.check_counts(repeats=repeats, concurrency=concurrency)
            limits.check_samples(len(dataset.cases), repeats)
        except TrialError as exc:
            return Failure("The trial settings are out of bounds", str(exc), "lower the repeats or the concurrency",
                           "settings")
        try:
            return await run_trial(dataset, config, repeats=repeats, out=out, concurrency=concurrency,
                                   progress=report, cancel=cancel,
                                   call_progress=lambda call: setattr(last, "progress", call))
        except Exception as exc:  # noqa: BLE001 - the page must show a message, never a traceback
            return failure_for(exc)

    return TrialJob(dataset, out, repeats, background.start(work, name=f"trial-{out.name}"), last)
