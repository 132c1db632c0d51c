"""The trial runner: every (case, repeat) of a dataset assessed at a bounded concurrency, durable and resumable.

Each finished sample is saved at once (``trials.folder``); a failure is saved as an error sample, never as a
verdict. When every planned sample exists, the typed ``TrialResult`` is built from them and written.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from answerlens.assessment import AnswerabilityAssessment
from answerlens.config import AnswerabilityConfig
from answerlens.errors import AnswerabilityError, TrialError
from answerlens.evaluator import AnswerabilityEvaluator
from answerlens.trials import folder
from answerlens.trials.dataset import Dataset, LoadedCase
from answerlens.trials.gates import Gate, Threshold, default_gates, evaluate_gates
from answerlens.trials.log import ResultKind, SampleError, TrialSample
from answerlens.trials.result import DatasetRecord, QuestionRecord, RunIdentity, TrialResult
from answerlens.trials.summary import summarize

EvaluatorFactory = Callable[[AnswerabilityConfig], AnswerabilityEvaluator]


@dataclass(frozen=True)
class Progress:
    done: int
    total: int
    errors: int
    elapsed: float
    last: str = ""

    @property
    def rate(self) -> float:
        """Samples per second over this run's new work."""
        return self.done / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def eta(self) -> float | None:
        remaining = self.total - self.done
        return remaining / self.rate if self.rate > 0 else None


@dataclass(frozen=True)
class TrialOutcome:
    result: TrialResult | None
    """None when the run was cancelled or stopped at its first failure (no ``result.json`` then)."""
    result_path: Path | None
    new_samples: int
    reused_samples: int
    errors: int
    cancelled: bool


async def run_trial(
    dataset: Dataset,
    config: AnswerabilityConfig,
    *,
    repeats: int,
    out: Path,
    concurrency: int = 4,
    gates: Mapping[Gate, Threshold] | None = None,
    fail_fast: bool = False,
    progress: Callable[[Progress], None] | None = None,
    cancel: threading.Event | None = None,
    evaluator_factory: EvaluatorFactory = AnswerabilityEvaluator,
) -> TrialOutcome:
    """Assess every (case, repeat) not already saved, writing each sample as it finishes, then summarise.

    Saved error samples are retried. Cancelling (``cancel.set()``) keeps finished samples and writes no
    result; so does ``fail_fast`` after the first error. Rerunning the same call resumes.
    """
    _check_request(dataset, repeats, concurrency, gates)
    out = Path(out)
    identity = folder.run_identity(dataset, config)
    samples_dir = folder.prepare_output(out, dataset, identity, repeats)
    saved = folder.saved_samples(samples_dir, dataset, identity, repeats)
    done = {key: sample for key, sample in saved.items() if sample.error is None}  # error samples are retried
    reused = len(done)
    todo = [(item, repeat) for item, repeat in dataset.planned(repeats) if (item.case.id, repeat) not in done]
    run = _Run(identity, samples_dir, len(todo), concurrency, fail_fast, progress, cancel)
    if todo:
        async with evaluator_factory(config) as evaluator:
            await asyncio.gather(*(run.sample(evaluator, item, repeat) for item, repeat in todo))
    done.update(run.finished)
    cancelled = cancel is not None and cancel.is_set()
    if cancelled or (fail_fast and run.errors):
        return TrialOutcome(result=None, result_path=None, new_samples=len(run.finished), reused_samples=reused,
                            errors=run.errors, cancelled=cancelled)
    samples = [done[(item.case.id, repeat)] for item, repeat in dataset.planned(repeats)]
    result = build_result(dataset, samples, identity, repeats=repeats, concurrency=concurrency, gates=gates,
                          wall_seconds=time.monotonic() - run.started)
    return TrialOutcome(result=result, result_path=folder.write_result(out, result), new_samples=len(run.finished),
                        reused_samples=reused, errors=run.errors, cancelled=False)


def _check_request(dataset: Dataset, repeats: int, concurrency: int, gates: Mapping[Gate, Threshold] | None) -> None:
    if repeats < 1:
        raise TrialError("repeats must be at least 1")
    if concurrency < 1:
        raise TrialError("concurrency must be at least 1")
    draft_gates = sorted(name for name in gates or {} if Gate(name).needs_drafts)
    if draft_gates and not dataset.has_drafts:
        raise TrialError(f"gates {', '.join(draft_gates)} need draft answers, and this dataset has none")


class _Run:
    """The new samples of one invocation: bounded concurrency, each saved as it finishes, progress, stopping."""

    def __init__(self, identity: RunIdentity, samples_dir: Path, total: int, concurrency: int, fail_fast: bool,
                 progress: Callable[[Progress], None] | None, cancel: threading.Event | None) -> None:
        self.identity = identity
        self.samples_dir = samples_dir
        self.total = total
        self.fail_fast = fail_fast
        self.progress = progress
        self.cancel = cancel
        self.finished: dict[tuple[str, int], TrialSample] = {}
        self.errors = 0
        self.started = time.monotonic()
        self._stop = asyncio.Event()
        self._slots = asyncio.Semaphore(concurrency)

    def stopping(self) -> bool:
        return self._stop.is_set() or (self.cancel is not None and self.cancel.is_set())

    async def sample(self, evaluator: AnswerabilityEvaluator, item: LoadedCase, repeat: int) -> None:
        async with self._slots:
            if self.stopping():
                return
            sample = await self._assess(evaluator, item, repeat)
        # The slot is free again: the next request goes out while this sample is made durable (two fsyncs).
        await asyncio.to_thread(folder.write_sample, self.samples_dir, sample)
        self.finished[(item.case.id, repeat)] = sample
        if self.progress is not None:
            status = (f"error ({sample.error.kind})" if sample.error is not None
                      else sample.assessment.recommended_action.value if sample.assessment is not None else "")
            self.progress(Progress(len(self.finished), self.total, self.errors, time.monotonic() - self.started,
                                   f"{item.case.id} repeat {repeat}: {status}"))

    async def _assess(self, evaluator: AnswerabilityEvaluator, item: LoadedCase, repeat: int) -> TrialSample:
        began = time.monotonic()
        assessment: AnswerabilityAssessment | None = None
        error: SampleError | None = None
        try:
            assessment = await evaluator.assess(item.case.question, item.bundle, answer=item.case.answer)
        except (AnswerabilityError, ValueError) as exc:
            # A failure is recorded as an error sample, never as a verdict.
            error = SampleError(kind=getattr(exc, "kind", type(exc).__name__), message=str(exc))
            self.errors += 1
            if self.fail_fast:
                self._stop.set()
        case = item.case
        return TrialSample(case_id=case.id, question_id=case.id, question_type=case.question_type, label=case.label,
                           answer_label=case.answer_label, repeat=repeat,
                           dataset_sha256=self.identity.dataset_sha256, case_sha256=item.sha256,
                           configuration_sha256=self.identity.configuration_sha256,
                           latency_ms=round((time.monotonic() - began) * 1000, 3), assessment=assessment, error=error)


def build_result(dataset: Dataset, samples: Sequence[TrialSample], identity: RunIdentity, *, repeats: int,
                 concurrency: int, gates: Mapping[Gate, Threshold] | None, wall_seconds: float) -> TrialResult:
    """The result of a run whose planned samples all exist, in the dataset's order."""
    summary = summarize(samples, drafts=dataset.has_drafts)
    cases = {item.case.id: item.case for item in dataset.cases}
    questions = []
    for entry in summary.per_question:
        case = cases[entry.question_id]
        questions.append(QuestionRecord(
            question_id=case.id, question=case.question, label=case.label, question_type=case.question_type,
            answer_label=case.answer_label,
            sample_files=tuple(folder.sample_filename(case.id, repeat) for repeat in range(repeats))))
    return TrialResult(
        kind=ResultKind.RESULT, schema_version=1,
        dataset=DatasetRecord(path=str(dataset.path), sha256=dataset.sha256, cases=len(dataset.cases)),
        **dict(identity), repeats=repeats, concurrency=concurrency,
        finished_at=datetime.now(timezone.utc).replace(microsecond=0), wall_seconds=round(wall_seconds, 3),
        summary=summary, quality_gates=evaluate_gates(summary, gates if gates is not None else default_gates(summary)),
        questions=tuple(questions), samples=tuple(samples),
    )
