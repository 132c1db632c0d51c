"""What the Trials page shows, computed from a ``TrialResult`` (pure: no streamlit, no plotly).

Gates as rows, actions per label, the question × repeat grid, citation errors and requirement agreement per
question, and the list of samples. An error sample is always ``error``, never an action.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from answerlens.trials.gates import GateReport
from answerlens.trials.log import AnswerLabel, QuestionLabel, ResultKind, TrialSample
from answerlens.trials.result import TrialResult
from answerlens.verdict import AnswerabilityAction

ERROR = "error"
ACTIONS: tuple[str, ...] = (*(action.value for action in AnswerabilityAction), ERROR)
"""Every cell value of the grid, in legend order."""
KIND_LABELS = {ResultKind.RESULT: "answerlens trial result",
               ResultKind.RUN: "unfinished answerlens run (no result.json)",
               ResultKind.UPSTREAM: "upstream trial result (beam-answerability-execution)"}
GATES_SOURCE = {ResultKind.RESULT: "as recorded in result.json",
                ResultKind.RUN: "provisional: default gates over the samples saved so far (the run is unfinished)",
                ResultKind.UPSTREAM: "as published in the file"}
"""Where a result's gates come from, said under the gate table."""


@dataclass(frozen=True)
class GateRow:
    name: str
    observed: float
    required: float
    passed: bool

    @property
    def rule(self) -> str:
        """``≥ 86`` for a ``_min`` gate, ``≤ 0`` otherwise (the same rule ``evaluate_gates`` applies)."""
        return f"{'≥' if self.name.endswith('_min') else '≤'} {number(self.required)}"


@dataclass(frozen=True)
class SampleRef:
    """One (question, repeat) of a result, with what it came to: an action, or an error."""

    question_id: str
    repeat: int
    label: QuestionLabel
    outcome: str
    """The recommended action, or ``error``."""
    verdict: str | None
    error: str | None
    """The error kind of an error sample."""
    citation_errors: int
    position: int
    """Index in ``result.samples``."""
    answer_label: AnswerLabel | None = None
    latency_ms: float | None = None
    """Ours only; upstream samples do not record it."""

    @property
    def key(self) -> str:
        return f"{self.question_id}#{self.repeat}"

    @property
    def title(self) -> str:
        if self.error is not None:
            return f"{self.question_id} · repeat {self.repeat} · ERROR ({self.error})"
        return f"{self.question_id} · repeat {self.repeat} · {self.verdict} → {self.outcome}"


@dataclass(frozen=True)
class QuestionRow:
    question_id: str
    label: str
    question_type: str | None
    outcomes: tuple[str | None, ...]
    """Per repeat index: the action, ``error``, or None when that repeat has no sample."""
    citation_errors: int
    requirements: int
    matched: int
    agreeing: int


def gate_rows(gates: GateReport | None) -> list[GateRow]:
    if gates is None:
        return []
    return [GateRow(name, gate.observed, gate.required, gate.passed) for name, gate in gates.results.items()]


def samples(result: TrialResult) -> list[SampleRef]:
    """Every sample, ordered by question and repeat."""
    found = []
    for position, sample in enumerate(result.samples):
        latency = sample.latency_ms if isinstance(sample, TrialSample) else None
        if sample.assessment is not None:
            assessment = sample.assessment
            found.append(SampleRef(sample.question_id, sample.repeat, sample.label,
                                   assessment.recommended_action.value, assessment.verdict.value, None,
                                   len(assessment.citation_errors), position, sample.answer_label, latency))
        else:
            kind = sample.error.kind if sample.error is not None else "no assessment"
            found.append(SampleRef(sample.question_id, sample.repeat, sample.label, ERROR, None, kind, 0, position,
                                   sample.answer_label, latency))
    return sorted(found, key=lambda ref: (ref.question_id, ref.repeat))


def repeats(refs: Sequence[SampleRef]) -> int:
    return max((ref.repeat for ref in refs), default=-1) + 1


def questions(result: TrialResult, refs: Sequence[SampleRef]) -> list[QuestionRow]:
    """One row per question (in the summary's order) with its grid cells, citation errors and agreement."""
    by_question: dict[str, list[SampleRef]] = defaultdict(list)
    for ref in refs:
        by_question[ref.question_id].append(ref)
    width = repeats(refs)
    agreement = {entry.question_id: entry for entry in result.summary.requirement_agreement.per_question}
    rows = []
    for entry in result.summary.per_question:
        found = by_question.get(entry.question_id, [])
        cells: list[str | None] = [None] * width
        for ref in found:
            cells[ref.repeat] = ref.outcome
        agree = agreement.get(entry.question_id)
        rows.append(QuestionRow(entry.question_id, found[0].label.value if found else "?", entry.question_type,
                                tuple(cells), sum(ref.citation_errors for ref in found),
                                agree.requirements if agree else 0, agree.matched if agree else 0,
                                agree.agreeing if agree else 0))
    return rows


def outcome_groups(refs: Sequence[SampleRef]) -> dict[str, Counter[str]]:
    """Outcome counts (errors included) per question label; draft runs add the same samples per draft label."""
    groups: dict[str, Counter[str]] = {label.value: Counter()
                                       for label in (QuestionLabel.UNANSWERABLE, QuestionLabel.ANSWERABLE)}
    drafts: dict[str, Counter[str]] = {f"{label.value} draft": Counter() for label in AnswerLabel}
    for ref in refs:
        groups[ref.label.value][ref.outcome] += 1
        if ref.answer_label is not None:
            drafts[f"{ref.answer_label.value} draft"][ref.outcome] += 1
    return groups | {name: counts for name, counts in drafts.items() if counts}


def headline(result: TrialResult) -> list[tuple[str, str, str | None]]:
    """``(label, value, help)`` numbers for the top of the page."""
    s = result.summary
    stability, agreement = s.stability, s.requirement_agreement
    rate = agreement.agreement_rate
    return [
        ("Questions", str(s.questions), None),
        ("Samples assessed", str(s.samples), "samples with an assessment; error samples are counted apart"),
        ("Error samples", str(s.error_samples), "provider failures: recorded as errors, never as verdicts"),
        ("Unsafe full answers", str(s.unanswerable.unsafe_full_answer_count),
         "action answer on an unanswerable question"),
        ("Full answers (answerable)", f"{s.answerable.full_answer_count} / {s.answerable.samples}", None),
        ("Unnecessary abstentions", str(s.answerable.unnecessary_abstention_count),
         "action abstain on an answerable question (partial and conflict are not abstentions)"),
        ("Citation errors", str(s.citation_errors), "citation error strings over all samples"),
        ("Stable actions", f"{stability.questions_with_identical_actions} / {stability.questions}",
         "questions whose repeats all share one action"),
        ("Requirement agreement", "—" if rate is None else f"{rate:.0%}",
         f"{agreement.agreeing_requirements} of {agreement.matched_requirements} requirements matched "
         "across repeats by identical text keep one final status"),
    ]


def number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
