"""Report files, made and checked in one place: a report is its embedded data rendered (``report.document``) with
what verification finds in it; verifying one checks that data field by field, renders it again and compares the
file byte for byte, so an edit to the data or to the visible page is caught and located."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from answerlens.assessment import AnswerabilityAssessment
from answerlens.audit import sha256_text
from answerlens.errors import AnswerlensError, ReportError
from answerlens.records import ContextFormat, MemoryBundle
from answerlens.render import context_format_of
from answerlens.report.document import Findings, render_page
from answerlens.report.embedded import (
    CLOSE,
    FORMAT_VERSION,
    OPEN,
    REPORT_FORMAT,
    AssessmentData,
    Envelope,
    SweepData,
    TrialData,
    envelope_of,
    extract,
    generator,
)
from answerlens.second_opinion.document import output_document
from answerlens.second_opinion.models import SecondOpinion
from answerlens.trials.result import TrialResult
from answerlens.verification.inputs import assessment_problems, input_problems, report_notes
from answerlens.verification.outcome import shard_notes
from answerlens.verification.samples import SampleCount
from answerlens.verification.trial import gate_notes, trial_problems

EXCERPT = 40
"""Characters shown on each side of the first difference."""


@dataclass(frozen=True)
class ReportCheck:
    """What ``verify_report`` found: the report's kind and every problem (none: the report is intact)."""

    kind: str
    problems: tuple[str, ...]
    notes: tuple[str, ...] = ()
    """Replay marks (forced or unbound) of the assessments in it."""
    caveats: tuple[str, ...] = ()
    """What the checks could not cover: provenance no hash covers, references taken as recorded."""
    samples: SampleCount | None = None
    """A trial's or sweep's samples against its manifest (an unfinished run's report never verifies as complete)."""

    @property
    def ok(self) -> bool:
        return not self.problems


def verify_report(html: str, *, bundle: MemoryBundle | None = None) -> ReportCheck:
    """Check a report file's text. ``bundle`` (the one assessed) adds the checks ``verify --bundle`` makes.

    Raises ``ReportError`` when the text is not a report at all (no embedded data, or data that is not a report
    envelope); an envelope whose fields were edited out of shape is a problem, like any other edit.
    """
    raw = extract(html)
    try:
        envelope = envelope_of(raw)
    except ReportError as exc:
        if raw.get("format") != REPORT_FORMAT:
            raise
        # Recognisably a report whose data was edited out of shape: not verified, as any other edit is.
        report = raw.get("report")
        kind = report.get("kind") if isinstance(report, dict) else None
        return ReportCheck(kind if kind in ("assessment", "trial") else "unknown", (f"data: {exc}",))
    kind = envelope.report.kind
    if bundle is not None and kind != "assessment":
        raise ReportError(f"a bundle applies to an assessment's report, not to a {kind}'s")
    if envelope.format_version != FORMAT_VERSION or envelope.generator != generator():
        problems = [f"generator: made by {envelope.generator} (report format {envelope.format_version}); this is "
                    f"{generator()} (format {FORMAT_VERSION}), which cannot re-render that page to compare it: "
                    "verify it with the version that made it", *problems_of(raw)]
        return ReportCheck(kind, tuple(problems))
    checked, samples = _checked(raw)
    try:
        page = render_page(raw, checked)
    except ReportError as exc:
        return ReportCheck(kind, (*problems_of(raw), f"data: {exc}"))
    problems = list(checked.problems)
    if bundle is not None and isinstance(envelope.report, AssessmentData):
        problems += [problem for problem in assessment_problems(envelope.report, bundle=bundle)
                     if problem not in problems]
    if page != html:
        problems.append(page_difference(html, page))
    notes = report_notes(envelope.report, bundle=bundle)
    return ReportCheck(kind, tuple(problems), notes.marks, notes.caveats, samples)


def page_difference(found: str, expected: str) -> str:
    """Where a file first differs from the page its data renders to: line, column, section, both texts."""
    index = _first_index(found, expected)
    line = found.count("\n", 0, index) + 1
    column = index - found.rfind("\n", 0, index)
    return (f"page: differs from what its embedded data renders to at line {line}, column {column} "
            f"({_place(found, expected, index)}): found {_excerpt(found, index)!r}, "
            f"expected {_excerpt(expected, index)!r}")


def _first_index(left: str, right: str) -> int:
    """The first index where two texts differ, by halving (fast on large reports)."""
    low, high = 0, min(len(left), len(right))
    while low < high:
        middle = (low + high + 1) // 2
        if left[low:middle] == right[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _place(found: str, page: str, index: int) -> str:
    end = page.rfind("</html>")
    if end >= 0 and index >= end + len("</html>"):
        return "after the document"
    if index <= found.lower().find("<!doctype"):
        return "before the document"
    data = page.find(OPEN)
    if 0 <= data <= index:
        end = page.find(CLOSE, data)
        return "in the embedded data block" if end < 0 or index < end + len(CLOSE) else \
            "after the embedded data block, at the end of the page"
    if index < page.find("<main"):
        return "in the page head"
    start = page.rfind('<section id="', 0, index)
    if start < 0:
        return "in the report header"
    anchor = page[start + len('<section id="') : page.find('"', start + len('<section id="'))]
    return f"in section '{anchor}'"


def _excerpt(text: str, index: int) -> str:
    return text[max(0, index - EXCERPT) : index + EXCERPT]


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


def findings(raw: dict[str, Any]) -> Findings:
    """Every problem of a report's embedded data, the recomputed result its page shows, and what the checks cannot
    prove for it."""
    return _checked(raw)[0]


def _checked(raw: dict[str, Any]) -> tuple[Findings, SampleCount | None]:
    """``findings``, and a trial's or sweep's samples against its manifest."""
    report = envelope_of(raw).report
    notes = report_notes(report, bundle=None)
    caveats = notes.marks + notes.caveats
    if isinstance(report, SweepData):
        from answerlens.sweeps.reader import from_embedded
        from answerlens.verification.sweep import check

        try:
            recorded = from_embedded(report.sweep)
            checked = check(recorded)
        except (ValueError, AnswerlensError) as exc:
            return Findings((str(exc),)), None
        unfinished = () if checked.samples.complete else (f"{checked.samples.text}: the sweep had not finished",)
        return Findings(checked.problems, sweep=(recorded, checked.result), caveats=unfinished + caveats), \
            checked.samples
    if isinstance(report, TrialData):
        trial = trial_problems(report.result)
        unfinished = (trial.samples.text + ": the run had not finished",) \
            if trial.samples is not None and not trial.samples.complete else ()
        shard = shard_notes(trial.samples.shard if trial.samples is not None else None).caveats
        gates = gate_notes(trial.result).caveats if trial.result is not None else ()
        return Findings(trial.problems, trial=trial.result, caveats=unfinished + shard + gates + caveats), \
            trial.samples
    return Findings(assessment_problems(report), caveats=caveats), None


def rendered(raw: dict[str, Any]) -> tuple[str, tuple[str, ...]]:
    """The page, and the problems its data was found to have (the page shows them too)."""
    found = findings(raw)
    return render_page(raw, found), found.problems


def render(raw: dict[str, Any]) -> str:
    """The page for embedded data (as JSON), with the data itself embedded; ``ReportError`` when the data
    cannot be shown at all."""
    return rendered(raw)[0]


def problems_of(raw: dict[str, Any]) -> tuple[str, ...]:
    """Every problem of the embedded data, without rendering it."""
    found = findings(raw)
    if found.trial is None and found.sweep is None and isinstance(envelope_of(raw).report, SweepData):
        return (f"data: {found.problems[0]}",)
    return found.problems
