"""What a saved sample must agree with before it is resumed, merged or verified: its case in the dataset (label,
draft label, question type, case hash), the run (dataset and configuration hashes), and its own assessment, which
must be of that case's question, draft and exact context under the run's configuration, and must verify.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from answerlens.audit import sha256_text
from answerlens.errors import DatasetError, TrialError
from answerlens.trials.dataset import Dataset, LoadedCase
from answerlens.trials.log import TrialSample
from answerlens.trials.result import TrialResult
from answerlens.verification import verify_assessment


def sample_label(sample: TrialSample) -> str:
    return f"{sample.case_id} repeat {sample.repeat}"


def sample_problems(sample: TrialSample, item: LoadedCase | None, *, dataset_sha256: str,
                    configuration_sha256: str | None, rederive: bool = True) -> list[str]:
    """Every way ``sample`` disagrees with its case ``item`` and the run; ``rederive`` also verifies its assessment
    against the case's bundle (every citation resolved in the exact context)."""
    if item is None:
        return [f"case_id: {sample.case_id!r} is not a case of this dataset"]
    case = item.case
    expected: tuple[tuple[str, Any, Any], ...] = (
        ("question_id", sample.question_id, case.id),
        ("label", sample.label, case.label),
        ("answer_label", sample.answer_label, case.answer_label),
        ("question_type", sample.question_type, case.question_type),
        ("case_sha256", sample.case_sha256, item.sha256),
        ("dataset_sha256", sample.dataset_sha256, dataset_sha256),
        ("configuration_sha256", sample.configuration_sha256, configuration_sha256),
    )
    problems = [f"{name}: {_plain(found)!r} in the sample, {_plain(wanted)!r} in the run"
                for name, found, wanted in expected if _plain(found) != _plain(wanted)]
    assessment = sample.assessment
    if assessment is None:
        return problems
    answer = case.answer.strip() if case.answer is not None else None
    inputs = (("query_sha256", assessment.query_sha256, sha256_text(case.question.strip()), "its case's question"),
              ("answer_sha256", assessment.answer_sha256, sha256_text(answer) if answer is not None else None,
               "its case's draft"),
              ("context_sha256", assessment.context_sha256, sha256_text(item.bundle.exact_context),
               "its case's exact context"),
              ("configuration_sha256", assessment.configuration_sha256, configuration_sha256,
               "the run's configuration"))
    problems += [f"assessment.{name}: not {what}" for name, found, wanted, what in inputs if found != wanted]
    if rederive and not any(problem.startswith("assessment.context_sha256") for problem in problems):
        problems += [f"assessment: {problem}"
                     for problem in verify_assessment(assessment, bundle=item.bundle).problems]
    return problems


def _plain(value: Any) -> Any:
    return value.value if isinstance(value, Enum) else value


def dataset_problems(result: TrialResult, dataset: Dataset, *, rederive: bool = True) -> list[str]:
    """A result (or run folder) checked against ``dataset``: the same file, each question record as the dataset
    writes it, and every sample against its case (``sample_problems``)."""
    recorded = result.dataset.sha256 if result.dataset is not None else None
    if recorded != dataset.sha256:
        return [f"dataset: {dataset.path} is not the run's dataset (sha256 {dataset.sha256[:12]}…, the run's "
                f"{(recorded or 'unrecorded')[:12]}…)"]
    cases = {item.case.id: item for item in dataset.cases}
    problems = []
    for record in result.questions:
        item = cases.get(record.question_id)
        if item is None:
            problems.append(f"questions: {record.question_id!r} is not a case of this dataset")
            continue
        for name in ("question", "label", "question_type", "answer_label"):
            if _plain(getattr(record, name)) != _plain(getattr(item.case, name)):
                problems.append(f"questions: {record.question_id}: {name} differs from the dataset's")
    for sample in result.samples:
        if isinstance(sample, TrialSample):
            problems += [f"samples: {sample_label(sample)}: {problem}" for problem in sample_problems(
                sample, cases.get(sample.case_id), dataset_sha256=dataset.sha256,
                configuration_sha256=result.configuration_sha256, rederive=rederive)]
    return problems


def load_run_dataset(result: TrialResult, given: Dataset | None) -> Dataset:
    """The dataset a run's samples are checked against: ``given``, else the file the run recorded, when it is
    still there with the same bytes; else a ``TrialError`` saying to pass it."""
    from answerlens.trials.dataset import load_dataset

    if given is not None:
        return given
    recorded = result.dataset
    if recorded is None:
        raise TrialError("the run records no dataset: pass --dataset FILE")
    try:
        dataset = load_dataset(recorded.path)
    except (DatasetError, OSError) as exc:
        raise TrialError(f"the run's dataset {recorded.path} cannot be read ({exc}): pass --dataset FILE so every "
                         "sample can be checked against it") from None
    if dataset.sha256 != recorded.sha256:
        raise TrialError(f"{recorded.path} has changed since the run (sha256 {dataset.sha256[:12]}…, the run's "
                         f"{recorded.sha256[:12]}…): pass the run's dataset with --dataset FILE")
    return dataset
