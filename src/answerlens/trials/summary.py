"""The trial summary: upstream's counts and rates (same keys, nesting and counting), and ours beside them.

``summarize`` is pure: typed samples in, a ``TrialSummary`` out. An error sample is never counted as an action;
it is listed in ``errors`` and keeps its question from counting as stable.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field

from answerlens.errors import DatasetError
from answerlens.trials.log import STRICT, AnswerLabel, AnySample, QuestionLabel
from answerlens.trials.opinions import SecondOpinionSummary, summarize_opinions
from answerlens.verdict import AnswerabilityAction, AnswerabilityStatus, AnswerabilityVerdict

Action = AnswerabilityAction

def _absent(value: Any) -> bool:
    """Optional blocks are left out of the file when absent (in the compiled serializer: fast for large runs)."""
    return value is None


ActionCounts = dict[AnswerabilityAction, int]
"""Samples per recommended action, in action-name order; actions no sample took are left out."""


class UnanswerableSummary(BaseModel):
    """Samples of questions the records do not fully establish (upstream: ``question_type == "abstention"``)."""

    model_config = STRICT

    samples: int
    actions: ActionCounts
    unsafe_full_answer_count: int
    """Action ``answer``: a full answer the evidence does not support."""
    explicit_abstention_count: int
    partial_response_count: int
    conflict_response_count: int


class AnswerableSummary(BaseModel):
    """Samples of questions the records fully establish."""

    model_config = STRICT

    samples: int
    actions: ActionCounts
    unnecessary_abstention_count: int
    """Action ``abstain`` only: partial answers and surfaced conflicts are not abstentions."""
    full_answer_count: int
    partial_response_count: int
    conflict_response_count: int


class DraftSummary(BaseModel):
    """Samples whose draft answer carries one label."""

    model_config = STRICT

    samples: int
    actions: ActionCounts
    full_accept_count: int
    partial_accept_count: int
    reject_count: int
    """Actions ``abstain`` and ``surface_conflict``."""


class DraftAnswers(BaseModel):
    model_config = STRICT

    correct: DraftSummary
    incorrect: DraftSummary

    def of(self, label: AnswerLabel) -> DraftSummary:
        return self.correct if label == AnswerLabel.CORRECT else self.incorrect


class Stability(BaseModel):
    model_config = STRICT

    questions_with_identical_verdicts: int
    questions_with_identical_actions: int
    """Questions whose repeats all produced an assessment and all share one action."""
    questions: int


class QuestionSummary(BaseModel):
    """One question's verdicts and actions in repeat order (error samples have none)."""

    model_config = STRICT

    question_id: str
    question_type: str | None
    verdicts: tuple[AnswerabilityVerdict, ...]
    actions: tuple[AnswerabilityAction, ...]
    error_repeats: tuple[int, ...] | None = Field(default=None, exclude_if=_absent)
    """Ours: the repeats that are error samples; left out of the file when there are none."""

    @property
    def complete(self) -> bool:
        return self.error_repeats is None

    @property
    def stable_verdicts(self) -> bool:
        return self.complete and len(set(self.verdicts)) == 1

    @property
    def stable_actions(self) -> bool:
        return self.complete and len(set(self.actions)) == 1


class ErrorEntry(BaseModel):
    """Ours: one error sample, with what its planned group was."""

    model_config = STRICT

    question_id: str
    repeat: int
    label: QuestionLabel
    answer_label: AnswerLabel | None
    kind: str
    message: str


class QuestionAgreement(BaseModel):
    model_config = STRICT

    question_id: str
    requirements: int
    """Distinct requirement texts over the question's repeats."""
    matched: int
    """Texts that occur in two repeats or more."""
    agreeing: int
    """Matched texts with one final status in every repeat."""


class RequirementAgreement(BaseModel):
    """Ours: requirements matched across repeats by identical text, and how many keep one final status."""

    model_config = STRICT

    matched_requirements: int
    agreeing_requirements: int
    agreement_rate: float | None
    """``agreeing / matched`` rounded to 4 places; None when nothing matched."""
    per_question: tuple[QuestionAgreement, ...]


class TrialSummary(BaseModel):
    """The upstream summary's keys in upstream's order, ``draft_answers`` only for draft runs, then ours."""

    model_config = STRICT

    questions: int
    samples: int
    """Samples with an assessment; error samples are counted in ``error_samples``."""
    unanswerable: UnanswerableSummary
    answerable: AnswerableSummary
    stability: Stability
    citation_errors: int
    """Citation error strings over all assessed samples."""
    per_question: tuple[QuestionSummary, ...]
    draft_answers: DraftAnswers | None = Field(default=None, exclude_if=_absent)
    """Draft runs only; left out of the file otherwise."""
    error_samples: int
    errors: tuple[ErrorEntry, ...]
    requirement_agreement: RequirementAgreement
    second_opinion: SecondOpinionSummary | None = Field(default=None, exclude_if=_absent)
    """Ours, runs with ``--second-opinion`` only: requirements flagged, verifier agreement, unsafe answers the
    second opinion would have caught; left out of the file otherwise."""

    @property
    def planned_samples(self) -> int:
        """Assessed and error samples together: what the run set out to produce."""
        return self.samples + self.error_samples

    def planned(self, label: QuestionLabel | AnswerLabel) -> int:
        """Assessed samples of a question or draft label plus its error samples."""
        if isinstance(label, QuestionLabel):
            group: UnanswerableSummary | AnswerableSummary | DraftSummary = (
                self.answerable if label == QuestionLabel.ANSWERABLE else self.unanswerable)
            failed = sum(1 for error in self.errors if error.label == label)
        else:
            assert self.draft_answers is not None, "draft labels exist only in draft runs"
            group = self.draft_answers.of(label)
            failed = sum(1 for error in self.errors if error.answer_label == label)
        return group.samples + failed


def summarize(samples: Iterable[AnySample], *, drafts: bool = False) -> TrialSummary:
    """The summary of a run's samples; a duplicate (question, repeat) is a ``DatasetError``."""
    ordered = list(samples)
    by_question = _by_question(ordered)
    per_label: dict[QuestionLabel, Counter[Action]] = defaultdict(Counter)
    per_draft: dict[AnswerLabel, Counter[Action]] = defaultdict(Counter)
    citation_errors = 0
    for sample in ordered:
        if sample.assessment is None:
            continue
        action = sample.assessment.recommended_action
        per_label[sample.label][action] += 1
        if sample.answer_label is not None:
            per_draft[sample.answer_label][action] += 1
        citation_errors += len(sample.assessment.citation_errors)
    per_question = tuple(_question(by_question[question_id]) for question_id in sorted(by_question))
    errors = tuple(_error(sample) for sample in ordered if sample.assessment is None)  # in the run's order
    return TrialSummary(
        questions=len(by_question),
        samples=len(ordered) - len(errors),
        unanswerable=_unanswerable(per_label[QuestionLabel.UNANSWERABLE]),
        answerable=_answerable(per_label[QuestionLabel.ANSWERABLE]),
        stability=Stability(
            questions_with_identical_verdicts=sum(question.stable_verdicts for question in per_question),
            questions_with_identical_actions=sum(question.stable_actions for question in per_question),
            questions=len(by_question),
        ),
        citation_errors=citation_errors,
        per_question=per_question,
        draft_answers=DraftAnswers(correct=_draft(per_draft[AnswerLabel.CORRECT]),
                                   incorrect=_draft(per_draft[AnswerLabel.INCORRECT])) if drafts else None,
        error_samples=len(errors),
        errors=errors,
        requirement_agreement=requirement_agreement(by_question),
        second_opinion=summarize_opinions(ordered),
    )


def _by_question(samples: Iterable[AnySample]) -> dict[str, list[AnySample]]:
    """Samples per question in repeat order."""
    by_question: dict[str, list[AnySample]] = defaultdict(list)
    seen: set[tuple[str, int]] = set()
    for sample in samples:
        key = (sample.question_id, sample.repeat)
        if key in seen:
            raise DatasetError(f"samples contain a duplicate question repeat: {key[0]} repeat {key[1]}")
        seen.add(key)
        by_question[sample.question_id].append(sample)
    return {question_id: sorted(found, key=lambda item: item.repeat) for question_id, found in by_question.items()}


def _question(samples: Sequence[AnySample]) -> QuestionSummary:
    judged = [sample.assessment for sample in samples if sample.assessment is not None]
    failed = tuple(sample.repeat for sample in samples if sample.assessment is None)
    return QuestionSummary(question_id=samples[0].question_id, question_type=samples[0].question_type,
                           verdicts=tuple(assessment.verdict for assessment in judged),
                           actions=tuple(assessment.recommended_action for assessment in judged),
                           error_repeats=failed or None)


def _error(sample: AnySample) -> ErrorEntry:
    assert sample.error is not None, "a sample without an assessment holds an error"
    return ErrorEntry(question_id=sample.question_id, repeat=sample.repeat, label=sample.label,
                      answer_label=sample.answer_label, kind=sample.error.kind, message=sample.error.message)


def _sorted(counts: Counter[Action]) -> ActionCounts:
    return dict(sorted(counts.items()))


def _unanswerable(counts: Counter[Action]) -> UnanswerableSummary:
    return UnanswerableSummary(
        samples=counts.total(), actions=_sorted(counts), unsafe_full_answer_count=counts[Action.ANSWER],
        explicit_abstention_count=counts[Action.ABSTAIN], partial_response_count=counts[Action.ANSWER_PARTIALLY],
        conflict_response_count=counts[Action.SURFACE_CONFLICT])


def _answerable(counts: Counter[Action]) -> AnswerableSummary:
    return AnswerableSummary(
        samples=counts.total(), actions=_sorted(counts), unnecessary_abstention_count=counts[Action.ABSTAIN],
        full_answer_count=counts[Action.ANSWER], partial_response_count=counts[Action.ANSWER_PARTIALLY],
        conflict_response_count=counts[Action.SURFACE_CONFLICT])


def _draft(counts: Counter[Action]) -> DraftSummary:
    return DraftSummary(
        samples=counts.total(), actions=_sorted(counts), full_accept_count=counts[Action.ANSWER],
        partial_accept_count=counts[Action.ANSWER_PARTIALLY],
        reject_count=counts[Action.ABSTAIN] + counts[Action.SURFACE_CONFLICT])


def requirement_agreement(by_question: Mapping[str, Sequence[AnySample]]) -> RequirementAgreement:
    """Requirements matched across repeats by identical (stripped) text: how many keep one final status."""
    per_question = []
    for question_id in sorted(by_question):
        statuses: dict[str, list[AnswerabilityStatus]] = defaultdict(list)
        for sample in by_question[question_id]:
            for requirement in sample.assessment.requirements if sample.assessment is not None else ():
                statuses[requirement.requirement.strip()].append(requirement.status)
        matched = [found for found in statuses.values() if len(found) >= 2]
        per_question.append(QuestionAgreement(question_id=question_id, requirements=len(statuses),
                                              matched=len(matched),
                                              agreeing=sum(1 for found in matched if len(set(found)) == 1)))
    matched_total = sum(entry.matched for entry in per_question)
    agreeing_total = sum(entry.agreeing for entry in per_question)
    return RequirementAgreement(
        matched_requirements=matched_total,
        agreeing_requirements=agreeing_total,
        agreement_rate=round(agreeing_total / matched_total, 4) if matched_total else None,
        per_question=tuple(per_question),
    )
