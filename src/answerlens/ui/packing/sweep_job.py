"""A packing sweep running as a background job (``ui.common.job``, as the Trials page's run), so the page can poll
its progress and cancel it (no streamlit here). Cancelling lets the calls in flight finish and keeps every saved
sample; the run goes through the trial engine's lock. Whatever the run raises is worded here as a ``Failure``."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from answerlens.config import AnswerabilityConfig
from answerlens.engine.runner import Progress, SecondOpinionSetting
from answerlens.engine.sweep import SweepOutcome, run_sweep
from answerlens.records import MemoryBundle
from answerlens.ui.common import job as background
from answerlens.ui.common.job import Job
from answerlens.ui.common.runner import Failure
from answerlens.ui.trials.job import failure_for


@dataclass(frozen=True)
class SweepSettings:
    """What the page asks for: one question (and draft) over one bundle at formats × budgets × depths × chunk
    sizes."""

    question: str
    answer: str | None
    bundle: MemoryBundle
    bundle_name: str
    config: AnswerabilityConfig
    formats: tuple[str, ...]
    budgets: tuple[str, ...]
    repeats: int
    concurrency: int | None
    """Requests in flight; None: as many as the server serves at once."""
    second_opinion: bool = False
    """Each assessed sample gets its second opinion (the flags, and the claim verifier when it is installed)."""
    top_k: tuple[str, ...] = ()
    """Retrieval depths (none: every record)."""
    record_tokens: tuple[str, ...] = ()
    """Chunk sizes (none: whole records)."""


@dataclass(frozen=True)
class SweepJob:
    """What was started, and the job running it; the job's result is the outcome or the failure to show."""

    out: Path
    cells: int
    """Assessable cells: ``cells × repeats`` calls in all."""
    repeats: int
    job: Job[Progress, SweepOutcome | Failure]

    @property
    def total(self) -> int:
        """Calls in the whole sweep (saved samples from an earlier run of it included)."""
        return self.cells * self.repeats

    @property
    def outcome(self) -> SweepOutcome | None:
        return self.job.result if isinstance(self.job.result, SweepOutcome) else None

    @property
    def failure(self) -> Failure | None:
        return self.job.result if isinstance(self.job.result, Failure) else None


def start(settings: SweepSettings, *, out: Path, cells: int) -> SweepJob:
    """Start the sweep in the background and return at once."""

    async def work(report: background.Report[Progress], cancel: threading.Event) -> SweepOutcome | Failure:
        opinion = None
        if settings.second_opinion:
            from answerlens.claims.verifier import ClaimVerifier

            opinion = SecondOpinionSetting(verifier=ClaimVerifier())
        try:
            return await run_sweep(
                settings.question, settings.bundle, settings.config, out=out, formats=settings.formats,
                budgets=settings.budgets, top_k=settings.top_k, record_tokens=settings.record_tokens,
                answer=settings.answer, repeats=settings.repeats,
                concurrency=settings.concurrency, progress=report, cancel=cancel, bundle_name=settings.bundle_name,
                second_opinion=opinion)
        except Exception as exc:  # noqa: BLE001 - the page must show a message, never a traceback
            return failure_for(exc, "sweep")

    return SweepJob(out, cells, settings.repeats, background.start(work, name=f"sweep-{out.name}"))
