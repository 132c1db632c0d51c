"""What a sweep runs and writes, as data: its manifest, every cell's context cut from the bundle, the cells as the
trial engine's cases, and ``result.json`` assembled from the samples (pure; ``answerlens.engine.sweep`` runs it).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from answerlens.audit import canonical_json_ascii, manifest_sha256, sha256_text
from answerlens.config import AnswerabilityConfig
from answerlens.providers.request_size import Request
from answerlens.records import MemoryBundle
from answerlens.sweeps import folder
from answerlens.sweeps.cut import CellContext, contexts_of
from answerlens.sweeps.result import SweepManifest, SweepResult, SweepSetting
from answerlens.sweeps.settings import Setting
from answerlens.sweeps.summary import build_cell, changes
from answerlens.trials import folder as trial_folder
from answerlens.trials.dataset import Dataset, LoadedCase, TrialCase
from answerlens.trials.log import AnswerLabel, QuestionLabel, TrialSample

__all__ = ["assemble", "cases_of", "contexts_of", "largest_cell", "manifest_for"]


def assemble(manifest: SweepManifest, contexts: Sequence[CellContext], samples: Sequence[TrialSample],
             wall_seconds: float | None) -> SweepResult:
    """The result of a sweep from its cells' contexts and its samples (any order)."""
    by_cell: dict[str, list[TrialSample]] = defaultdict(list)
    for sample in sorted(samples, key=lambda item: item.repeat):
        by_cell[sample.case_id].append(sample)
    cells = tuple(build_cell(context, by_cell.get(context.setting.key, ())) for context in contexts)
    ordered = tuple(sample for context in contexts for sample in by_cell.get(context.setting.key, ()))
    return SweepResult(question=manifest.question, answer=manifest.answer, bundle_sha256=manifest.bundle_sha256,
                       configuration_sha256=manifest.configuration_sha256,
                       manifest_sha256=manifest.manifest_sha256, repeats=manifest.repeats, cells=cells,
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
    manifest = SweepManifest(question=question, answer=answer, bundle=bundle_name, bundle_sha256=bundle_sha,
                             settings=tuple(listed), repeats=repeats,
                             sweep_sha256=folder.sweep_sha256(question, answer, bundle_sha,
                                                              [item.identity() for item in listed]),
                             configuration=identity.configuration, configuration_sha256=identity.configuration_sha256,
                             prompt_version=identity.prompt_version, prompt_sha256=identity.prompt_sha256,
                             second_opinion=opinions)
    return manifest.model_copy(update={"manifest_sha256": manifest_sha256(manifest.manifest())})
