"""What the Trials page and the trial report show, computed from a ``TrialResult`` (pure: no streamlit, no plotly).

Gates as rows, actions per label, the question × repeat grid, citation errors and requirement agreement per
question, and the list of samples. An error sample is always ``error``, never an action.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from answerlens.trials.gates import GateReport
from answerlens.trials.log import AnswerLabel, QuestionLabel, ResultKind, TrialSample
from answerlens.trials.rates import MIN_SAMPLES
from answerlens.trials.result import TrialResult
from answerlens.verdict import AnswerabilityAction

ERROR = "error"
ACTIONS: tuple[str, ...] = (*(action.value for action in AnswerabilityAction), ERROR)
"""Every cell value of the grid, in legend order."""
OUTCOME_NAMES = {"answer": "answer", "answer_partially": "answer partially", "abstain": "abstain",
                 "surface_conflict": "surface conflict", ERROR: "error (no verdict)"}
"""How each outcome is named in legends and tooltips (its colour is ``palette.OUTCOMES[outcome]``)."""
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


MIN_SAMPLES_FOR_RATE = MIN_SAMPLES
"""Below this many samples (questions, matched requirements) a rate, or a count out of them, says "too few to rate"
beside it (the engine's one definition, ``answerlens.trials.rates.MIN_SAMPLES``)."""


@dataclass(frozen=True)
class Stat:
    """One number at the top of the page: a short label that fits a narrow column, the value, and the details."""

    label: str
    value: str
    help: str | None = None
    note: str | None = None
    """Shown under the value: why the number is not a rate yet (``n=2: too few samples to rate``)."""


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``1 sample``, ``2 samples``, ``0 samples``."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def too_few(count: int, noun: str = "sample", plural: str | None = None) -> str | None:
    """``n=2: too few samples to rate`` below ``MIN_SAMPLES_FOR_RATE``; None from there on."""
    if count >= MIN_SAMPLES_FOR_RATE:
        return None
    return f"n={count}: too few {plural or noun + 's'} to rate"


def rate(part: int, whole: int, noun: str = "sample", plural: str | None = None) -> tuple[str, str | None]:
    """A percentage with enough data; else the bare fraction, said to be too few (``—`` when there is none)."""
    if whole == 0:
        return "—", f"no {plural or noun + 's'} to rate"
    note = too_few(whole, noun, plural)
    return (f"{part} / {whole}", note) if note else (f"{part / whole:.0%}", None)


def stats(result: TrialResult) -> list[Stat]:
    """The headline numbers; every count out of a group says when the group is too small to rate."""
    s = result.summary
    unanswerable, answerable = s.unanswerable.samples, s.answerable.samples
    stable = s.stability
    agreement = s.requirement_agreement
    agreed, agreed_note = rate(agreement.agreeing_requirements, agreement.matched_requirements,
                               "matched requirement")
    one_repeat = repeats(samples(result)) < 2
    return [
        Stat("Questions", str(s.questions)),
        Stat("Samples assessed", f"{s.samples} / {s.planned_samples}",
             "samples with an assessment, out of every sample the run saved (error samples included)",
             too_few(s.samples)),
        Stat("Error samples", str(s.error_samples), "provider failures: recorded as errors, never as verdicts"),
        Stat("Unsafe answers", f"{s.unanswerable.unsafe_full_answer_count} / {unanswerable}",
             "action answer on an unanswerable question, out of the unanswerable questions' assessed samples",
             too_few(unanswerable)),
        Stat("Full answers", f"{s.answerable.full_answer_count} / {answerable}",
             "action answer on an answerable question, out of the answerable questions' assessed samples",
             too_few(answerable)),
        Stat("Unnecessary abstentions", f"{s.answerable.unnecessary_abstention_count} / {answerable}",
             "action abstain on an answerable question (partial answers and conflicts are not abstentions)",
             too_few(answerable)),
        Stat("Citation errors", str(s.citation_errors),
             f"citation error strings over {counted(s.samples, 'assessed sample')}"),
        Stat("Stable questions", f"{stable.questions_with_identical_actions} / {stable.questions}",
             "questions whose repeats all produced an assessment with one action",
             "one repeat: nothing to compare" if one_repeat else too_few(stable.questions, "question")),
        Stat("Requirement agreement", agreed,
             f"{agreement.agreeing_requirements} of {counted(agreement.matched_requirements, 'requirement')} matched "
             "across repeats by identical text keep one final status", agreed_note),
    ]


def number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
