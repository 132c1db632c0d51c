"""The trial runner: every (case, repeat) of a dataset — or of one shard of it — assessed at a bounded
concurrency per endpoint, each sample made durable as it finishes, resumable, one runner per folder.

Up front: the bounds (``limits``), the folder's lock (``lock``), the folder's identity (``folder``), a preflight of
the endpoints (``preflight``). During: a pool of workers, one per request in flight, over the endpoints
(``endpoints``); a writer thread for the samples (``writer``); an early stop when the first calls all fail alike
(``failures``). A failure is saved as an error sample, never as a verdict; when every planned sample exists, the
typed ``TrialResult`` is built (``assemble``) and written.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from answerlens import tracing
from answerlens.assessment import AnswerabilityAssessment
from answerlens.config import AnswerabilityConfig, EvidencePolicy
from answerlens.engine.interface import (
    Cluster,
    Progress,
    RunLayout,
    RunOutcome,
    SampleSink,
    SecondOpinionSetting,
    TrialOutcome,
)
from answerlens.errors import AnswerabilityError, TrialError
from answerlens.evaluator import Answer, AnswerabilityEvaluator
from answerlens.providers.engine import ProgressCallback
from answerlens.providers.request_size import Request
from answerlens.trials import folder, limits
from answerlens.trials.dataset import Dataset, LoadedCase
from answerlens.trials.endpoints import EndpointPool, EvaluatorFactory, normalise_endpoints
from answerlens.trials.failures import EARLY_STOP, EarlyStop, EarlyStopWatch
from answerlens.trials.fit import Fit, fit_or_default
from answerlens.trials.gates import Gate, Threshold
from answerlens.trials.lock import RunLock
from answerlens.trials.log import SampleError, TrialSample
from answerlens.trials.preflight import check_endpoints
from answerlens.trials.result import RunIdentity
from answerlens.trials.shard import Shard
from answerlens.trials.writer import SampleWriter
from answerlens.verification.folder import saved_samples

if TYPE_CHECKING:
    from answerlens.second_opinion.models import SecondOpinion

__all__ = ["Cluster", "Progress", "RunLayout", "RunOutcome", "SampleSink", "SecondOpinionSetting", "TrialOutcome",
           "assess_samples", "largest_request", "run_trial"]


async def run_trial(
    dataset: Dataset,
    config: AnswerabilityConfig,
    *,
    repeats: int,
    out: Path,
    concurrency: int | None = None,
    gates: Mapping[Gate, Threshold] | None = None,
    fail_fast: bool = False,
    progress: Callable[[Progress], None] | None = None,
    cancel: threading.Event | None = None,
    evaluator_factory: EvaluatorFactory = AnswerabilityEvaluator,
    shard: Shard | None = None,
    endpoints: Sequence[str] = (),
    preflight: bool = True,
    early_stop: int = EARLY_STOP,
    second_opinion: SecondOpinionSetting | None = None,
    layout: RunLayout | None = None,
    call_progress: ProgressCallback | None = None,
    fitted: Fit | None = None,
    announce: Callable[[str], None] | None = None,
    cluster: Cluster | None = None,
) -> TrialOutcome:
    """Assess every (case, repeat) not already saved — only shard ``shard`` of them when given — over
    ``endpoints`` (default: the configuration's server) with ``concurrency`` requests in flight on each; write each
    sample as it finishes, then summarise.

    Refused up front (``TrialError``): out-of-bounds counts, a folder another runner holds, a folder of another
    run; (``AnswerabilityError``, kind ``preflight``) endpoints that cannot serve the model. Saved error samples
    are retried. Cancelling (``cancel.set()``), ``fail_fast`` after an error, and ``early_stop`` (the first that
    many calls all fail with one kind of error; 0 never) keep finished samples and write no result; rerunning
    the same call resumes. With ``layout``, the folder and result are the layout's (the outcome's ``result`` is
    then None). ``call_progress`` hears each call's stages. ``concurrency`` and the timeout, left unset, fit the
    endpoint (``trials.fit``; ``fitted``: a fit made already, ``announce`` hears its notes). ``cluster``: on its nodes.
    """
    limits.check_counts(repeats=repeats, concurrency=concurrency, endpoints=max(len(endpoints), 1),
                        early_stop=early_stop, max_reply_bytes=config.max_reply_bytes)
    limits.check_samples(len(dataset.cases), repeats)
    urls, out = normalise_endpoints(config, endpoints), Path(out)
    # A fresh run is checked before its folder exists (a refusal leaves nothing); a resumed one when work is left.
    fresh = _fresh(out, dataset, layout)
    fitted = fitted or await _fit(config, urls, concurrency, dataset, out, preflight and cluster is None, announce)
    config, concurrency = fitted.config, fitted.concurrency
    second_opinion = _opinions(dataset, config, gates, second_opinion)
    check = cluster.check if cluster is not None else check_endpoints
    early = await check(config, urls) if preflight and fresh else None
    with folder.refusals_kept(out), RunLock(out):
        plan = _Plan.prepare(dataset, config, repeats, out, shard, second_opinion is not None, layout)
        warnings = early if early is not None else (
            await check(config, urls) if preflight and plan.todo else ())
        run = _Run(plan.todo, plan.identity, _Policy(fail_fast, early_stop, progress, cancel, call_progress),
                   second_opinion, concurrency)
        with tracing.run("answerlens.trial", dataset_sha256=plan.identity.dataset_sha256, repeats=repeats,
                         configuration_sha256=plan.identity.configuration_sha256, samples=len(plan.todo)) as span:
            if plan.todo:
                await _assess(run, plan.samples_dir, config, urls, evaluator_factory, cluster)
            outcome = _finish(plan, run, gates=gates, fitted=fitted, warnings=warnings, layout=layout)
            span.finished(outcome.result.quality_gates if outcome.result else None, errors=outcome.errors,
                          cancelled=outcome.cancelled)
        return outcome


async def assess_samples(todo: Sequence[tuple[LoadedCase, int]], identity: RunIdentity, config: AnswerabilityConfig,
                         *, urls: Sequence[str], concurrency: int, sink: SampleSink, cancel: threading.Event,
                         second_opinion: SecondOpinionSetting | None = None) -> None:
    """Assess ``todo`` as ``run_trial`` does, each finished sample to ``sink`` (a cluster node's share of a run)."""
    run = _Run(tuple(todo), identity, _Policy(False, 0, None, cancel), second_opinion, concurrency)
    async with EndpointPool(config, normalise_endpoints(config, urls), concurrency) as pool:
        await run.all(pool, sink)


async def _assess(run: _Run, samples_dir: Path, config: AnswerabilityConfig, urls: Sequence[str],
                  factory: EvaluatorFactory, cluster: Cluster | None) -> None:
    """The samples to do, assessed here (or on ``cluster``'s nodes) and written to ``samples_dir`` as they finish."""
    async with SampleWriter() as writer:
        async def save(sample: TrialSample) -> None:
            await writer.save(samples_dir / folder.sample_filename(sample.case_id, sample.repeat), sample)

        if cluster is not None:
            await cluster.run(run, save, config, urls)
            return
        async with EndpointPool(config, urls, run.concurrency, factory) as pool:
            await run.all(pool, save)


async def _fit(config: AnswerabilityConfig, urls: Sequence[str], concurrency: int | None, dataset: Dataset,
               out: Path, asked: bool, announce: Callable[[str], None] | None) -> Fit:
    """The run fitted to its endpoint (``trials.fit``), unless it may not be ``asked`` (no preflight, or a cluster:
    the nodes' servers are theirs to see, not the driver's): then the defaults."""
    return await fit_or_default(config, urls, concurrency=concurrency, largest=largest_request(dataset), out=out,
                                asked=asked, announce=announce)


def _fresh(out: Path, dataset: Dataset, layout: RunLayout | None) -> bool:
    """Whether the run starts afresh in ``out``; a fresh run's folder holding files it did not write is refused
    here, before the lock is made in it (and again under the lock, as the folder is prepared)."""
    if (out / folder.MANIFEST).exists():
        return False
    if layout is not None and layout.refuse_foreign is not None:
        layout.refuse_foreign(out)
    elif layout is None:
        folder.refuse_foreign_to_trial(out, dataset)
    return True


def largest_request(dataset: Dataset) -> Request | None:
    """The request with the longest context: what a timeout must cover."""
    case = max(dataset.cases, key=lambda item: len(item.bundle.exact_context), default=None)
    return Request(case.case.question, case.bundle.exact_context, case.case.answer) if case is not None else None


def _opinions(dataset: Dataset, config: AnswerabilityConfig, gates: Mapping[Gate, Threshold] | None,
              second_opinion: SecondOpinionSetting | None) -> SecondOpinionSetting | None:
    """The run's second opinion (the strict evidence policy implies one), its gates checked against it."""
    if second_opinion is None and config.evidence_policy == EvidencePolicy.STRICT:
        second_opinion = SecondOpinionSetting()
    _check_gates(dataset, gates, second_opinion is not None)
    return second_opinion


def _check_gates(dataset: Dataset, gates: Mapping[Gate, Threshold] | None, opinions: bool) -> None:
    named = [Gate(name) for name in gates or {}]
    draft_gates = sorted(gate.value for gate in named if gate.needs_drafts)
    if draft_gates and not dataset.has_drafts:
        raise TrialError(f"gates {', '.join(draft_gates)} need draft answers, and this dataset has none")
    opinion_gates = sorted(gate.value for gate in named if gate.needs_second_opinion)
    if opinion_gates and not opinions:
        raise TrialError(f"gates {', '.join(opinion_gates)} need --second-opinion")


@dataclass(frozen=True)
class _Plan:
    """What this invocation runs: the planned samples, the ones already saved, the ones to do."""

    dataset: Dataset
    identity: RunIdentity
    repeats: int
    out: Path
    samples_dir: Path
    shard: Shard | None
    planned: tuple[tuple[LoadedCase, int], ...]
    done: dict[tuple[str, int], TrialSample]
    todo: tuple[tuple[LoadedCase, int], ...]

    @classmethod
    def prepare(cls, dataset: Dataset, config: AnswerabilityConfig, repeats: int, out: Path, shard: Shard | None,
                opinions: bool, layout: RunLayout | None = None) -> _Plan:
        identity = folder.run_identity(dataset, config, repeats=repeats, second_opinion=opinions,
                                       manifest=layout.manifest_sha256 if layout is not None else None)
        samples_dir = layout.prepare(out) if layout is not None else \
            folder.prepare_output(out, dataset, identity, repeats, shard=shard, second_opinion=opinions)
        saved = saved_samples(samples_dir, dataset, identity, repeats)
        planned = tuple((item, repeat) for item, repeat in dataset.planned(repeats)
                        if shard is None or shard.holds(item.case.id, repeat))
        done = {key: sample for key, sample in saved.items() if sample.error is None}  # error samples are retried
        todo = tuple((item, repeat) for item, repeat in planned if (item.case.id, repeat) not in done)
        return cls(dataset, identity, repeats, out, samples_dir, shard, planned, done, todo)


@dataclass(frozen=True)
class _Policy:
    fail_fast: bool
    early_stop: int
    progress: Callable[[Progress], None] | None
    cancel: threading.Event | None
    calls: ProgressCallback | None = None


class _Run:
    """The new samples of one invocation: one worker per request in flight, each sample saved as it finishes."""

    def __init__(self, todo: tuple[tuple[LoadedCase, int], ...], identity: RunIdentity, policy: _Policy,
                 second_opinion: SecondOpinionSetting | None, concurrency: int) -> None:
        self.todo = todo
        self.identity = identity
        self.policy = policy
        self.second_opinion = second_opinion
        self.concurrency = concurrency
        self.finished: dict[tuple[str, int], TrialSample] = {}
        self.nodes: Counter[str] = Counter()
        self.errors = 0
        self.stopped: EarlyStop | None = None
        self.started = time.monotonic()
        self._watch = EarlyStopWatch(policy.early_stop)
        self._halt = False
        self._pending: set[asyncio.Task[None]] = set()
        """Samples being derived and saved."""
        self._failures: list[BaseException] = []
        """Why samples could not be derived or saved (a full disk …), in the order they failed."""

    @property
    def cancelled(self) -> bool:
        return self.policy.cancel is not None and self.policy.cancel.is_set()

    def stopping(self) -> bool:
        return self._halt or self.cancelled

    async def all(self, pool: EndpointPool, sink: SampleSink) -> None:
        queue = iter(self.todo)  # shared: each (case, repeat) is taken by exactly one worker

        async def worker() -> None:
            for item, repeat in queue:
                if self.stopping():
                    return
                began = time.monotonic()
                span = tracing.sample(item.case.id, repeat)
                with span.current():
                    answer, error = await self._ask(pool, item)
                latency = round((time.monotonic() - began) * 1000, 3)
                self._note(error)
                # Derived, given its second opinion and made durable in the background: this worker's next
                # request is on the wire before any of that CPU work runs.
                task = asyncio.create_task(self._complete(sink, item, repeat, answer, error, latency, span))
                self._pending.add(task)
                task.add_done_callback(self._settled)

        workers = [asyncio.create_task(worker()) for _ in range(min(pool.capacity, len(self.todo)))]
        try:
            await asyncio.gather(*workers)
        except BaseException:
            for task in workers:  # an unexpected failure stops every worker, not just the one that met it
                task.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            raise
        finally:
            await asyncio.gather(*list(self._pending), return_exceptions=True)
            if self._failures:  # a failed write (disk full …), raised once: the others failed alike
                raise self._failures[0]

    def _settled(self, task: asyncio.Task[None]) -> None:
        """A sample derived and saved, or failed: its failure is kept (retrieved, so asyncio never prints it with
        its traceback as the process ends) and raised by ``all``."""
        self._pending.discard(task)
        failure = None if task.cancelled() else task.exception()
        if failure is not None:
            self._failures.append(failure)

    async def _ask(self, pool: EndpointPool, item: LoadedCase) -> tuple[Answer | None, SampleError | None]:
        try:
            return await pool.ask(item.case.question, item.bundle, item.case.answer, self.policy.calls), None
        except (AnswerabilityError, ValueError) as exc:
            # A failure is recorded as an error sample, never as a verdict.
            return None, SampleError(kind=getattr(exc, "kind", type(exc).__name__), message=str(exc))

    async def deliver(self, sink: SampleSink, sample: TrialSample) -> None:
        """A sample assessed elsewhere (a cluster's node): counted for the early stop and saved as if made here."""
        self._note(sample.error)
        await self._save(sink, sample)

    async def _complete(self, sink: SampleSink, item: LoadedCase, repeat: int, answer: Answer | None,
                        error: SampleError | None, latency: float, span: tracing.AssessmentSpan) -> None:
        assessment = answer.derive() if answer is not None else None
        opinion = await self._opinion(assessment, item) if assessment is not None else None
        case = item.case
        sample = TrialSample(case_id=case.id, question_id=case.id, question_type=case.question_type,
                             label=case.label, answer_label=case.answer_label, repeat=repeat,
                             dataset_sha256=self.identity.dataset_sha256, case_sha256=item.sha256,
                             configuration_sha256=self.identity.configuration_sha256,
                             manifest_sha256=self.identity.manifest_sha256, latency_ms=latency,
                             assessment=assessment, error=error, second_opinion=opinion)
        span.sampled(sample)
        await self._save(sink, sample)

    def _note(self, error: SampleError | None) -> None:
        if error is not None:
            self.errors += 1
            if self.policy.fail_fast:
                self._halt = True
        stop = self._watch.record(error)
        if stop is not None:
            self.stopped, self._halt = stop, True

    async def _opinion(self, assessment: AnswerabilityAssessment, item: LoadedCase) -> SecondOpinion | None:
        if self.second_opinion is None:
            return None
        from answerlens.second_opinion.opinion import second_opinion_for

        return await second_opinion_for(assessment, item.bundle, item.case.question,
                                        verifier=self.second_opinion.verifier,
                                        policy=self.identity.configuration.evidence_policy)

    async def _save(self, sink: SampleSink, sample: TrialSample) -> None:
        try:
            await sink(sample)
        except OSError:
            self._halt = True  # no new requests once samples can no longer be kept
            raise
        self.finished[(sample.case_id, sample.repeat)] = sample
        if sample.node is not None:
            self.nodes[sample.node.name] += 1
        if self.policy.progress is not None:
            status = (f"error ({sample.error.kind})" if sample.error is not None
                      else sample.assessment.recommended_action.value if sample.assessment is not None else "")
            self.policy.progress(Progress(len(self.finished), len(self.todo), self.errors,
                                          time.monotonic() - self.started,
                                          f"{sample.case_id} repeat {sample.repeat}: {status}",
                                          tuple(self.nodes.items())))


def _finish(plan: _Plan, run: _Run, *, gates: Mapping[Gate, Threshold] | None, fitted: Fit,
            warnings: tuple[str, ...], layout: RunLayout | None = None) -> TrialOutcome:
    done = {**plan.done, **run.finished}
    new, reused = len(run.finished), len(plan.done)
    if run.cancelled or run.stopped is not None or (run.policy.fail_fast and run.errors):
        return TrialOutcome(None, None, new, reused, run.errors, run.cancelled, stopped=run.stopped,
                            warnings=warnings, fit=fitted)
    samples = [done[(item.case.id, repeat)] for item, repeat in plan.planned]
    if layout is not None:
        path = layout.finish(samples, time.monotonic() - run.started)
        return TrialOutcome(None, path, new, reused, run.errors, False, warnings=warnings, fit=fitted)
    shard = plan.shard.model_copy(update={"cases": tuple(item.case.id for item in plan.dataset.cases)}) \
        if plan.shard is not None else None
    result = folder.assemble(folder.dataset_record(plan.dataset), folder.question_records(plan.dataset), samples,
                             plan.identity, repeats=plan.repeats, concurrency=fitted.concurrency, gates=gates,
                             wall_seconds=time.monotonic() - run.started, drafts=plan.dataset.has_drafts, shard=shard,
                             case_hashes=folder.case_hashes(plan.dataset),
                             second_opinion=run.second_opinion is not None)
    return TrialOutcome(result, folder.write_result(plan.out, result), new, reused, run.errors, False,
                        warnings=warnings, fit=fitted)
