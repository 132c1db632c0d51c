"""Making a report: the embedded data from typed values (or a printed assessment), and the one rendering of
that data into the page. ``render`` is also what verification re-runs, so it depends on the data alone (no
clock, no environment)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePath
from typing import Any

from pydantic import ValidationError

from answerlens.assessment import AnswerabilityAssessment
from answerlens.audit import sha256_text
from answerlens.errors import AnswerlensError, ReportError, describe_validation
from answerlens.records import ContextFormat
from answerlens.render import context_format_of
from answerlens.report import assessment as assessment_page
from answerlens.report import trial as trial_page
from answerlens.report.checks import assessment_problems, input_problems, trial_problems
from answerlens.report.embedded import (
    AssessmentData,
    Envelope,
    SweepData,
    TrialData,
    data_block,
    envelope_of,
    generator,
)
from answerlens.report.page import document
from answerlens.second_opinion.document import output_document
from answerlens.second_opinion.models import SecondOpinion
from answerlens.trials.result import TrialResult


def assessment_report(
    assessment: AnswerabilityAssessment | Mapping[str, Any],
    *,
    question: str,
    context: str,
    answer: str | None = None,
    opinion: SecondOpinion | None = None,
    context_format: ContextFormat | None = None,
    source: str | None = None,
) -> str:
    """The report of one assessment (typed, or a printed document that may carry ``second_opinion``).

    ``question``, ``answer`` and ``context`` must be the ones assessed (their hashes are checked: a
    ``ReportError`` says which is not); ``context_format`` defaults to what the context's header says.
    """
    if isinstance(assessment, AnswerabilityAssessment):
        document_json = (output_document(assessment, opinion) if opinion is not None
                         else assessment.model_dump(mode="json"))
    elif opinion is not None:
        raise ReportError("pass the second opinion inside the printed document, or with a typed assessment")
    else:
        document_json = dict(assessment)
    data = AssessmentData(source=source, question=question.strip(),
                          answer=answer.strip() if answer is not None else None,
                          context_format=context_format or context_format_of(context), context=context,
                          document=document_json)
    mismatched = input_problems(data)
    if mismatched:
        raise ReportError("; ".join(mismatched))
    return render(Envelope(generator=generator(), report=data).model_dump(mode="json"))


def assessed_answer(assessment: AnswerabilityAssessment, text: str | None) -> str | None:
    """``text`` when it is the draft the assessment checked (by its hash), else None."""
    if text is None or assessment.answer_sha256 is None:
        return None
    return text.strip() if sha256_text(text.strip()) == assessment.answer_sha256 else None


def trial_report(result: TrialResult, *, source: str | None = None) -> str:
    """The report of a trial result (ours, an unfinished run folder's, or upstream's). A report is made to be
    sent: its dataset is named by its file name, never by the folders of the machine that ran it."""
    if result.dataset is not None:
        shared = result.dataset.model_copy(update={"path": PurePath(result.dataset.path).name})
        result = result.model_copy(update={"dataset": shared})
    data = TrialData(source=source, result=result.model_dump(mode="json"))
    return render(Envelope(generator=generator(), report=data).model_dump(mode="json"))


def sweep_report(recorded: Any, *, source: str | None = None) -> str:
    """The report of a packing sweep (``sweeps.reader.Recorded``: a folder as read, finished or not)."""
    data = SweepData(source=source, sweep=recorded.embedded())
    return render(Envelope(generator=generator(), report=data).model_dump(mode="json"))


def _sweep_page(raw: dict[str, Any], report: SweepData, generator_name: str) -> tuple[str, tuple[str, ...]]:
    from answerlens.report import sweep as sweep_page
    from answerlens.sweeps.reader import check, from_embedded

    try:
        recorded = from_embedded(report.sweep)
        result, problems = check(recorded)
    except (ValueError, AnswerlensError) as exc:
        raise ReportError(f"the embedded sweep cannot be shown: {exc}") from None
    page = document(title=sweep_page.title(result, report.source), kind="sweep",
                    sheets=sweep_page.sheets(recorded, result, report.source, problems, generator_name),
                    data=data_block(raw))
    return page, tuple(problems)


def render(raw: dict[str, Any]) -> str:
    """The page for embedded data (as JSON), with the data itself embedded; ``ReportError`` when the data
    cannot be shown at all."""
    return rendered(raw)[0]


def rendered(raw: dict[str, Any]) -> tuple[str, tuple[str, ...]]:
    """The page, and the problems its data was found to have (the page shows them too)."""
    envelope = envelope_of(raw)
    report = envelope.report
    if isinstance(report, SweepData):
        return _sweep_page(raw, report, envelope.generator)
    if isinstance(report, TrialData):
        checked = trial_problems(report)
        if checked.result is None:
            raise ReportError(f"the embedded trial result cannot be shown: {checked.problems[0]}")
        sheets = trial_page.sheets(checked.result, report.source, checked.problems, envelope.generator)
        page = document(title=trial_page.title(checked.result, report.source), kind="trial", sheets=sheets,
                        data=data_block(raw))
        return page, checked.problems
    problems = assessment_problems(report)
    try:
        shown = assessment_page.Shown.of(report)
    except ValidationError as exc:
        raise ReportError(f"the embedded assessment cannot be shown: {describe_validation(exc, 'document')}") \
            from None
    css = assessment_page.focus_css(len(shown.assessment.requirements))
    page = document(title=assessment_page.title(shown), kind="assessment",
                    sheets=assessment_page.sheets(shown, problems, envelope.generator), data=data_block(raw), css=css)
    return page, problems


def problems_of(raw: dict[str, Any]) -> tuple[str, ...]:
    """Every problem of the embedded data (``report.checks``), without rendering it."""
    report = envelope_of(raw).report
    if isinstance(report, AssessmentData):
        return assessment_problems(report)
    if isinstance(report, SweepData):
        from answerlens.sweeps.reader import check, from_embedded

        try:
            return tuple(check(from_embedded(report.sweep))[1])
        except (ValueError, AnswerlensError) as exc:
            return (f"data: {exc}",)
    return trial_problems(report).problems
