"""Running a sweep: every cell's context cut from the bundle, then every (cell, repeat) through the trial engine
(``answerlens.trials.runner``: lock, durable samples, resume, bounds, endpoints, early stop, cancel), the cells
standing in for a trial's cases; when every sample exists, ``result.json`` is built from them.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from answerlens.audit import canonical_json_ascii, sha256_text
from answerlens.config import AnswerabilityConfig, EvidencePolicy
from answerlens.errors import TrialError
from answerlens.evaluator import AnswerabilityEvaluator
from answerlens.loading import load_bundle
from answerlens.providers.request_size import Request
from answerlens.records import MemoryBundle
from answerlens.sweeps import folder
from answerlens.sweeps.cut import CellContext, contexts_of
from answerlens.sweeps.result import SweepManifest, SweepResult, SweepSetting
from answerlens.sweeps.settings import Setting, grid
from answerlens.sweeps.summary import build_cell, changes
from answerlens.trials import folder as trial_folder
from answerlens.trials import limits
from answerlens.trials.dataset import Dataset, LoadedCase, TrialCase
from answerlens.trials.endpoints import EvaluatorFactory, normalise_endpoints
from answerlens.trials.failures import EARLY_STOP
from answerlens.trials.fit import fit_or_default
from answerlens.trials.log import AnswerLabel, QuestionLabel, TrialSample
from answerlens.trials.runner import Progress, RunLayout, RunOutcome, SecondOpinionSetting, run_trial


@dataclass(frozen=True)
class SweepOutcome(RunOutcome[SweepResult]):
    """A sweep's outcome (``result``: its ``SweepResult``; None when cancelled or stopped early, and rerunning
    resumes)."""


def assemble(manifest: SweepManifest, contexts: Sequence[CellContext], samples: Sequence[TrialSample],
             wall_seconds: float | None) -> SweepResult:
    """The result of a sweep from its cells' contexts and its samples (any order)."""
    by_cell: dict[str, list[TrialSample]] = defaultdict(list)
    for sample in sorted(samples, key=lambda item: item.repeat):
        by_cell[sample.case_id].append(sample)
    cells = tuple(build_cell(context, by_cell.get(context.setting.key, ())) for context in contexts)
    ordered = tuple(sample for context in contexts for sample in by_cell.get(context.setting.key, ()))
    return SweepResult(question=manifest.question, answer=manifest.answer, bundle_sha256=manifest.bundle_sha256,
                       configuration_sha256=manifest.configuration_sha256, repeats=manifest.repeats, cells=cells,
                       changes=changes(cells, by_cell),
                       wall_seconds=round(wall_seconds, 3) if wall_seconds is not None else None, samples=ordered)


def cases_of(manifest: SweepManifest, contexts: Sequence[CellContext]) -> Dataset:
    """The assessable cells as the engine's cases. A sweep's question carries no label: the trial log's
    labels are fixed placeholders (``answerable``; ``correct`` with a draft) that no sweep summary reads."""
    cases = tuple(
        LoadedCase(case=TrialCase(id=context.setting.key, question=manifest.question, label=QuestionLabel.ANSWERABLE,
                                  bundle=context.setting.key, answer=manifest.answer,
                                  answer_label=AnswerLabel.CORRECT if manifest.answer is not None else None),
                   bundle=context.bundle,
                   sha256=sha256_text(canonical_json_ascii({"setting": context.setting.key,
                                                      "context_sha256": sha256_text(context.bundle.exact_context)})))
        for context in contexts if context.assessable)
    return Dataset(path=Path(manifest.bundle), sha256=manifest.sweep_sha256, cases=cases)


def largest_cell(question: str, answer: str | None, contexts: Sequence[CellContext]) -> Request | None:
    """The assessable cell with the longest context, as a request: what a timeout must cover."""
    largest = max((context for context in contexts if context.assessable), key=lambda item: item.tokens_used,
                  default=None)
    return Request(question, largest.bundle.exact_context, answer) if largest is not None else None


def manifest_for(question: str, answer: str | None, bundle: MemoryBundle, settings: Sequence[Setting],
                 config: AnswerabilityConfig, repeats: int, bundle_name: str, opinions: bool) -> SweepManifest:
    if not question.strip():
        raise ValueError("question must not be blank")
    if answer is not None and not answer.strip():
        raise ValueError("answer must not be blank when given")
    listed = [SweepSetting(format=item.format.value, budget=item.budget, top_k=item.top_k,
                           record_tokens=item.record_tokens) for item in settings]
    bundle_sha = folder.bundle_sha256(bundle)
    identity = trial_folder.run_identity(Dataset(Path(bundle_name), "", ()), config)
    return SweepManifest(question=question, answer=answer, bundle=bundle_name, bundle_sha256=bundle_sha,
                         settings=tuple(listed), repeats=repeats,
                         sweep_sha256=folder.sweep_sha256(question, answer, bundle_sha,
                                                          [item.identity() for item in listed]),
                         configuration=identity.configuration, configuration_sha256=identity.configuration_sha256,
                         prompt_version=identity.prompt_version, prompt_sha256=identity.prompt_sha256,
                         second_opinion=opinions)


async def run_sweep(question: str, bundle: Any, config: AnswerabilityConfig, *, out: Path | str,
                    formats: Sequence[str] = (), budgets: Sequence[str] = (), top_k: Sequence[int | str] = (),
                    record_tokens: Sequence[int | str] = (), answer: str | None = None,
                    repeats: int = 3, concurrency: int | None = None,
                    progress: Callable[[Progress], None] | None = None,
                    cancel: threading.Event | None = None, evaluator_factory: EvaluatorFactory = AnswerabilityEvaluator,
                    endpoints: Sequence[str] = (), preflight: bool = True, early_stop: int = EARLY_STOP,
                    second_opinion: SecondOpinionSetting | None = None, bundle_name: str = "bundle",
                    announce: Callable[[str], None] | None = None) -> SweepOutcome:
    """Assess ``question`` (and ``answer``) over ``bundle`` at every format × budget × depth (``top_k``) × chunk
    size (``record_tokens``), ``repeats`` times each, into the folder ``out`` (rerun the same call to resume).
    Bad settings are a ``ValueError``; the engine's refusals
    (``TrialError``, preflight ``AnswerabilityError``) are as ``run_trial``'s. ``concurrency`` and the timeout, left
    unset, fit the endpoint (``trials.fit``: the server's slots; a timeout that covers the largest cell at the
    speed it showed), and ``announce`` hears how, before the first call."""
    loaded = load_bundle(bundle, name=bundle_name)
    settings = grid(formats, budgets, top_k, record_tokens)
    opinions = second_opinion is not None or config.evidence_policy == EvidencePolicy.STRICT
    contexts = contexts_of(loaded, settings)
    out = Path(out)
    limits.check_counts(repeats=repeats, concurrency=concurrency, endpoints=max(len(endpoints), 1),
                        early_stop=early_stop)
    fitted = await fit_or_default(config, normalise_endpoints(config, endpoints), concurrency=concurrency,
                                  largest=largest_cell(question, answer, contexts), out=out, asked=preflight,
                                  announce=announce)
    config = fitted.config
    manifest = manifest_for(question, answer, loaded, settings, config, repeats, bundle_name, opinions)
    built: list[SweepResult] = []

    def finish(samples: Sequence[TrialSample], wall: float) -> Path:
        built.append(assemble(manifest, contexts, samples, wall))
        return folder.write_result(out, built[0])

    layout = RunLayout(prepare=lambda path: folder.prepare(path, manifest, loaded), finish=finish)
    outcome = await run_trial(cases_of(manifest, contexts), config, repeats=repeats, out=out,
                              concurrency=fitted.concurrency, fitted=fitted, progress=progress, cancel=cancel,
                              evaluator_factory=evaluator_factory, endpoints=endpoints, preflight=preflight,
                              early_stop=early_stop, second_opinion=second_opinion, layout=layout)
    return SweepOutcome(**{**vars(outcome), "result": built[0] if built else None})


async def sweep(question: str, bundle: Any, config: AnswerabilityConfig | None = None, *, out: Path | str,
                formats: Sequence[str] = (), budgets: Sequence[str] = (), top_k: Sequence[int | str] = (),
                record_tokens: Sequence[int | str] = (), answer: str | None = None,
                repeats: int = 3, concurrency: int | None = None, **options: Any) -> SweepResult:
    """The packing sweep as a library call: ``result = await answerlens.sweep(question, bundle, config,
    out="runs/sweep", formats=["reader_cited", "compact"], budgets=["packed", "50%"], top_k=[3],
    record_tokens=[40])``. Raises ``TrialError`` when it stopped before every sample existed (its samples are
    kept: call again to resume)."""
    outcome = await run_sweep(question, bundle, config or AnswerabilityConfig(), out=out, formats=formats,
                              budgets=budgets, top_k=top_k, record_tokens=record_tokens, answer=answer,
                              repeats=repeats, concurrency=concurrency, **options)
    if outcome.result is None:
        why = outcome.stopped.text if outcome.stopped is not None else "cancelled"
        raise TrialError(f"the sweep stopped before it finished ({why}); {outcome.new_samples} sample(s) are saved "
                         f"in {out}: call again to resume")
    return outcome.result
