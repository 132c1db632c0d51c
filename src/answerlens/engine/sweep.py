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
from answerlens.engine.runner import Progress, RunLayout, RunOutcome, SecondOpinionSetting, run_trial
from answerlens.errors import TrialError
from answerlens.evaluator import AnswerabilityEvaluator
from answerlens.loading import load_bundle
from answerlens.sweeps import folder
from answerlens.sweeps.result import SweepResult
from answerlens.sweeps.run import assemble, cases_of, contexts_of, manifest_for
from answerlens.sweeps.settings import grid
from answerlens.trials.endpoints import EvaluatorFactory
from answerlens.trials.failures import EARLY_STOP
from answerlens.trials.log import TrialSample


@dataclass(frozen=True)
class SweepOutcome(RunOutcome[SweepResult]):
    """A sweep's outcome (``result``: its ``SweepResult``; None when cancelled or stopped early, and rerunning
    resumes)."""


async def run_sweep(question: str, bundle: Any, config: AnswerabilityConfig, *, out: Path | str,
                    formats: Sequence[str] = (), budgets: Sequence[str] = (), answer: str | None = None,
                    repeats: int = 3, concurrency: int = 4, progress: Callable[[Progress], None] | None = None,
                    cancel: threading.Event | None = None, evaluator_factory: EvaluatorFactory = AnswerabilityEvaluator,
                    endpoints: Sequence[str] = (), preflight: bool = True, early_stop: int = EARLY_STOP,
                    second_opinion: SecondOpinionSetting | None = None, bundle_name: str = "bundle") -> SweepOutcome:
    """Assess ``question`` (and ``answer``) over ``bundle`` at every format × budget, ``repeats`` times each, into
    the folder ``out`` (rerun the same call to resume). Bad settings are a ``ValueError``; the engine's refusals
    (``TrialError``, preflight ``AnswerabilityError``) are as ``run_trial``'s."""
    loaded = load_bundle(bundle, name=bundle_name)
    settings = grid(formats, budgets)
    opinions = second_opinion is not None or config.evidence_policy == EvidencePolicy.STRICT
    manifest = manifest_for(question, answer, loaded, settings, config, repeats, bundle_name, opinions)
    contexts = contexts_of(loaded, settings)
    out = Path(out)
    built: list[SweepResult] = []

    def finish(samples: Sequence[TrialSample], wall: float) -> Path:
        built.append(assemble(manifest, contexts, samples, wall))
        return folder.write_result(out, built[0])

    layout = RunLayout(prepare=lambda path: folder.prepare(path, manifest, loaded), finish=finish,
                       manifest_sha256=manifest.manifest_sha256 or "")
    outcome = await run_trial(cases_of(manifest, contexts), config, repeats=repeats, out=out,
                              concurrency=concurrency, progress=progress, cancel=cancel,
                              evaluator_factory=evaluator_factory, endpoints=endpoints, preflight=preflight,
                              early_stop=early_stop, second_opinion=second_opinion, layout=layout)
    return SweepOutcome(**{**vars(outcome), "result": built[0] if built else None})


async def sweep(question: str, bundle: Any, config: AnswerabilityConfig | None = None, *, out: Path | str,
                formats: Sequence[str] = (), budgets: Sequence[str] = (), answer: str | None = None,
                repeats: int = 3, concurrency: int = 4, **options: Any) -> SweepResult:
    """The packing sweep as a library call: ``result = await answerlens.sweep(question, bundle, config,
    out="runs/sweep", formats=["reader_cited", "compact"], budgets=["packed", "50%"])``. Raises ``TrialError``
    when it stopped before every sample existed (its samples are kept: call again to resume)."""
    outcome = await run_sweep(question, bundle, config or AnswerabilityConfig(), out=out, formats=formats,
                              budgets=budgets, answer=answer, repeats=repeats, concurrency=concurrency, **options)
    if outcome.result is None:
        why = outcome.stopped.text if outcome.stopped is not None else "cancelled"
        raise TrialError(f"the sweep stopped before it finished ({why}); {outcome.new_samples} sample(s) are saved "
                         f"in {out}: call again to resume")
    return outcome.result
