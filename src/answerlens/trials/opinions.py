"""The second opinion in trials: counted per run for the summary, and as rows the Trials page can chart.

Counting is ``answerlens.second_opinion.count_opinions`` over the assessed samples that carry one; an *unsafe
answer* is the action ``answer`` on an unanswerable question, *caught* when a requirement is flagged or the
verifier disagrees. Upstream's summary keys never change: these counts sit beside them, and only in runs made
with ``--second-opinion``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from pydantic import BaseModel

from answerlens.trials.log import STRICT, TrialSample

if TYPE_CHECKING:
    from answerlens.assessment import AnswerabilityAssessment
    from answerlens.second_opinion.counts import Label
    from answerlens.second_opinion.models import SecondOpinion


class SecondOpinionSummary(BaseModel):
    """Ours: the run's second-opinion counts (``summary.second_opinion``), from ``count_opinions``."""

    model_config = STRICT

    assessments: int
    """Assessed samples carrying a second opinion."""
    requirements_checked: int
    """Supported or conflicting requirements (the ones a second opinion questions)."""
    requirements_flagged: int
    flags: dict[str, int]
    """Requirements raising each flag code."""
    verifier_checked: int
    verifier_agreements: int
    verifier_agreement_rate: float | None
    """``verifier_agreements / verifier_checked`` rounded to 4 places; None when the verifier never ran."""
    strict_changed: int
    """Assessments whose strict verdict differs from the model-derived one (strict policy only)."""
    unsafe_answers: int
    """The action ``answer`` on an unanswerable question."""
    unsafe_caught: int
    """Unsafe answers with a flagged requirement or a verifier disagreement."""
    caught_by: dict[str, int]
    """Unsafe answers caught, per flag code and ``verifier_disagrees`` (one answer may count under several)."""
    correct_answers: int
    false_alarms: int
    """Full answers to answerable questions that the second opinion questioned."""
    false_alarms_by: dict[str, int]

    @property
    def unsafe_uncaught(self) -> int:
        return self.unsafe_answers - self.unsafe_caught


def summarize_opinions(samples: Iterable[object]) -> SecondOpinionSummary | None:
    """The counts over samples that carry a second opinion; None when none does (then the summary has none)."""
    triples: list[tuple[AnswerabilityAssessment, SecondOpinion | None, Label | None]] = [
        (sample.assessment, sample.second_opinion, sample.label.value) for sample in samples
               if isinstance(sample, TrialSample) and sample.second_opinion is not None
               and sample.assessment is not None]
    if not triples:
        return None
    from answerlens.second_opinion.counts import count_opinions  # flags and badges: only runs that have opinions

    counts = count_opinions(triples)
    data = counts.model_dump(exclude={"verifier_agreement_rate"})
    rate = counts.verifier_agreement_rate
    return SecondOpinionSummary(**data, verifier_agreement_rate=round(rate, 4) if rate is not None else None)


class CatchRow(BaseModel):
    """One reason a second opinion questioned a full answer: how many unsafe answers it caught, how many correct
    answers it flagged (false alarms). The Trials page charts these."""

    model_config = STRICT

    reason: str
    """A flag code, or ``verifier_disagrees``."""
    unsafe_caught: int
    false_alarms: int


def catch_rows(summary: SecondOpinionSummary | None) -> tuple[CatchRow, ...]:
    """Per reason, caught unsafe answers and false alarms, the most catching first (empty without an opinion)."""
    if summary is None:
        return ()
    from answerlens.second_opinion.counts import VERIFIER_DISAGREES

    reasons = sorted(set(summary.caught_by) | set(summary.false_alarms_by),
                     key=lambda reason: (-summary.caught_by.get(reason, 0), reason != VERIFIER_DISAGREES, reason))
    return tuple(CatchRow(reason=reason, unsafe_caught=summary.caught_by.get(reason, 0),
                          false_alarms=summary.false_alarms_by.get(reason, 0)) for reason in reasons)
