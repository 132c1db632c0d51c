"""Running a sweep: every cell's context cut from the bundle, then every (cell, repeat) through the trial engine
(``answerlens.engine.runner``: lock, durable samples, resume, bounds, endpoints, early stop, cancel), the cells
standing in for a trial's cases; when every sample exists, ``result.json`` is built from them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from answerlens.config import AnswerabilityConfig, EvidencePolicy
from answerlens.engine.runner import Cluster, Progress, RunLayout, RunOutcome, SecondOpinionSetting, run_trial
from answerlens.errors import TrialError
from answerlens.evaluator import AnswerabilityEvaluator
from answerlens.loading import load_bundle
from answerlens.sweeps import folder
from answerlens.sweeps.result import SweepResult
from answerlens.sweeps.run import assemble, cases_of, contexts_of, largest_cell, manifest_for
from answerlens.sweeps.settings import grid
from answerlens.trials import limits
from answerlens.trials.endpoints import EvaluatorFactory, normalise_endpoints
from answerlens.trials.failures import EARLY_STOP
from answerlens.trials.fit import fit_or_default
from answerlens.trials.log import TrialSample


@dataclass(frozen=True)
class SweepOutcome(RunOutcome[SweepResult]):
    """A sweep's outcome (``result``: its ``SweepResult``; None when cancelled or stopped early, and rerunning
    resumes)."""


async def run_sweep(question: str, bundle: Any, config: AnswerabilityConfig, *, out: Path | str,
                    formats: Sequence[str] = (), budgets: Sequence[str] = (), top_k: Sequence[int | str] = (),
                    record_tokens: Sequence[int | str] = (), answer: str | None = None,
                    repeats: int = 3, concurrency: int | None = None,
                    progress: Callable[[Progress], None] | None = None,
                    cancel: threading.Event | None = None, evaluator_factory: EvaluatorFactory = AnswerabilityEvaluator,
                    endpoints: Sequence[str] = (), preflight: bool = True, early_stop: int = EARLY_STOP,
                    second_opinion: SecondOpinionSetting | None = None, bundle_name: str = "bundle",
                    announce: Callable[[str], None] | None = None, cluster: Cluster | None = None) -> SweepOutcome:
    """Assess ``question`` (and ``answer``) over ``bundle`` at every format × budget × depth (``top_k``) × chunk
    size (``record_tokens``), ``repeats`` times each, into the folder ``out`` (rerun the same call to resume).
    Bad settings are a ``ValueError``; the engine's refusals
    (``TrialError``, preflight ``AnswerabilityError``) are as ``run_trial``'s. ``concurrency`` and the timeout, left
    unset, fit the endpoint (``trials.fit``: the server's slots; a timeout that covers the largest cell at the
    speed it showed), and ``announce`` hears how, before the first call. ``cluster``: as ``run_trial``'s."""
    loaded = load_bundle(bundle, name=bundle_name)
    settings = grid(formats, budgets, top_k, record_tokens)
    opinions = second_opinion is not None or config.evidence_policy == EvidencePolicy.STRICT
    contexts = contexts_of(loaded, settings)
    out = Path(out)
    limits.check_counts(repeats=repeats, concurrency=concurrency, endpoints=max(len(endpoints), 1),
                        early_stop=early_stop, max_reply_bytes=config.max_reply_bytes)
    fitted = await fit_or_default(config, normalise_endpoints(config, endpoints), concurrency=concurrency,
                                  largest=largest_cell(question, answer, contexts), out=out,
                                  asked=preflight and cluster is None, announce=announce)  # a node's server: not ours
    config = fitted.config
    manifest = manifest_for(question, answer, loaded, settings, config, repeats, bundle_name, opinions)
    built: list[SweepResult] = []

    def finish(samples: Sequence[TrialSample], wall: float) -> Path:
        built.append(assemble(manifest, contexts, samples, wall))
        return folder.write_result(out, built[0])

    layout = RunLayout(prepare=lambda path: folder.prepare(path, manifest, loaded), finish=finish,
                       manifest_sha256=manifest.manifest_sha256 or "", refuse_foreign=folder.refuse_foreign)
    outcome = await run_trial(cases_of(manifest, contexts), config, repeats=repeats, out=out,
                              concurrency=fitted.concurrency, fitted=fitted, progress=progress, cancel=cancel,
                              evaluator_factory=evaluator_factory, endpoints=endpoints, preflight=preflight,
                              early_stop=early_stop, second_opinion=second_opinion, layout=layout, cluster=cluster)
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
