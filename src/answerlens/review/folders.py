"""A trial's or a sweep's samples as review items, each verified: the one place the review loop asks whether a
folder's samples verify (``check_folder``), through the trial and sweep readers and the per-assessment verifier.

Each sample is checked by ``answerlens.verification`` (its case and manifest, its assessment and second opinion
re-derived); a sweep's folder problems (its manifest, its result, its completeness) are reported beside them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from answerlens.review.shown import Item, Opened
from answerlens.verdict import AnswerabilityVerdict

if TYPE_CHECKING:
    from answerlens.records import MemoryBundle
    from answerlens.trials.log import TrialSample, UpstreamSample
    from answerlens.trials.result import TrialResult


@dataclass(frozen=True)
class FolderCheck:
    kind: str
    """``trial`` or ``sweep``."""
    samples: tuple[Opened, ...]
    """Every assessed sample, opened: its problems (empty when it verifies) and its context when found."""
    problems: tuple[str, ...] = ()
    """Problems of the folder as a whole, or why contexts cannot be shown (reported; they void no label)."""


def check_folder(path: Path, *, cwd: Path) -> FolderCheck:
    """A trial result (``result.json``, a run folder, an upstream file) or a sweep folder, every sample verified;
    a path that is neither is a ``DatasetError`` (from the trial reader)."""
    from answerlens.sweeps.found import is_sweep

    if is_sweep(path):
        return _sweep(path)
    from answerlens.trials.reader import read_trial

    return check_trial(read_trial(path), path, cwd=cwd)


def check_trial(result: TrialResult, path: Path, *, cwd: Path) -> FolderCheck:
    """A trial result already read (the Trials page's), every sample verified; ``path`` names it in links."""
    from answerlens.trials.dataset import run_dataset
    from answerlens.trials.log import TrialSample
    from answerlens.trials.reader import assessments_of
    from answerlens.verification.opinion import verify_document
    from answerlens.verification.trial import sample_problems

    documents = {found.position: found.data for found in assessments_of(result)}
    dataset = run_dataset(result, cwd, path)
    missing = dataset if isinstance(dataset, str) else None
    cases = {} if isinstance(dataset, str) else {item.case.id: item for item in dataset.cases}
    opened = []
    for position, sample in enumerate(result.samples):
        if sample.assessment is None:
            continue
        case = cases.get(sample.question_id)
        if case is not None and isinstance(sample, TrialSample):
            problems = sample_problems(sample, case, dataset_sha256=result.dataset.sha256 if result.dataset else "",
                                       configuration_sha256=result.configuration_sha256,
                                       manifest=result.manifest_sha256)
            problems += _opinion_problems(sample, case.bundle)
        else:
            problems = list(verify_document(documents[position]))
        context = case.bundle.exact_context if case is not None else None
        bundle_file = None
        if case is not None and isinstance(case.case.bundle, str) and not isinstance(dataset, str):
            bundle_file = (dataset.path.parent / case.case.bundle).resolve()
        opened.append(_opened(
            key=f"{sample.question_id} repeat {sample.repeat}", sample=sample, position=position, path=path,
            question=case.case.question if case is not None else _question_of(result, sample.question_id),
            answer=case.case.answer if case is not None else None, context=context, problems=problems,
            missing=missing if case is None else None, bundle=case.bundle if case is not None else None,
            bundle_file=bundle_file))
    return FolderCheck("trial", tuple(opened), (f"contexts: {missing}",) if missing else ())


def _sweep(path: Path) -> FolderCheck:
    from answerlens.sweeps.reader import read_recorded, recompute
    from answerlens.verification.assessment import verify_assessment
    from answerlens.verification.sweep import check

    recorded = read_recorded(path)
    result, contexts, _ = recompute(recorded)
    cells = {context.setting.key: context for context in contexts}
    opened = []
    for position, sample in enumerate(result.samples):
        if sample.assessment is None:
            continue
        cell = cells[sample.case_id]
        problems = list(verify_assessment(sample.assessment, bundle=cell.bundle).problems)
        problems += _opinion_problems(sample, cell.bundle)
        opened.append(_opened(
            key=f"{sample.case_id} repeat {sample.repeat}", sample=sample, position=position, path=path,
            question=recorded.manifest.question, answer=recorded.manifest.answer, context=cell.bundle.exact_context,
            problems=problems, missing=None, bundle=cell.bundle, bundle_file=None))
    checked = check(recorded)
    whole = [problem for problem in checked.problems if " repeat " not in problem.split(":", 1)[0]]
    unfinished = [] if checked.samples.complete else [checked.samples.text]
    return FolderCheck("sweep", tuple(opened), tuple(whole + unfinished))


def _opened(*, key: str, sample: TrialSample | UpstreamSample, position: int, path: Path, question: str,
            answer: str | None, context: str | None, problems: list[str], missing: str | None,
            bundle: MemoryBundle | None, bundle_file: Path | None) -> Opened:
    assessment = sample.assessment
    assert assessment is not None
    opinion = getattr(sample, "second_opinion", None)
    item = Item(key=key, title=f"{key} · {assessment.verdict.value} · {' '.join(question.split())}",
                question=question, answer=answer, evaluation_id=assessment.evaluation_id,
                judge=AnswerabilityVerdict(assessment.verdict), source=assessment.model, created=None,
                link=f"{path} samples[{position}] ({key})", assessment_sha256=assessment.assessment_sha256)
    return Opened(item, assessment, context, opinion, problems=tuple(problems), missing=missing,
                  bundle=bundle, bundle_file=bundle_file)


def _opinion_problems(sample: TrialSample | UpstreamSample, bundle: MemoryBundle) -> list[str]:
    opinion = getattr(sample, "second_opinion", None)
    if opinion is None or sample.assessment is None:
        return []
    from answerlens.verification.opinion import verify_second_opinion

    return list(verify_second_opinion(opinion, sample.assessment, bundle=bundle))


def _question_of(result: TrialResult, question_id: str) -> str:
    for record in result.questions:
        if record.question_id == question_id:
            return record.question
    return question_id
