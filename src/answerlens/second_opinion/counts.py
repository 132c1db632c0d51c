"""Run-level second-opinion counts (pure): what the Trials page and the closing measurement report.

Computed from (assessment, second opinion, label) triples; a label is ``answerable``, ``unanswerable`` or None
(unlabelled). An *unsafe answer* is the action ``answer`` on an unanswerable question; the second opinion
*catches* it when some requirement is flagged or the verifier disagrees. A *false alarm* is the same on an
answerable question answered in full. No rate is reported for an empty denominator (None, never 0.0).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict, computed_field

from answerlens.assessment import AnswerabilityAssessment
from answerlens.second_opinion.badges import Badge, badge, verifier_agrees
from answerlens.second_opinion.models import RequirementOpinion, SecondOpinion
from answerlens.verdict import AnswerabilityAction

Label = Literal["answerable", "unanswerable"]
VERIFIER_DISAGREES = "verifier_disagrees"
"""The key that counts verifier disagreement beside the flag codes in the per-reason counts."""


class OpinionCounts(BaseModel):
    """Counts over one run's assessments that carry a second opinion."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    assessments: int = 0
    requirements_checked: int = 0
    """Supported or conflicting requirements (the ones a second opinion questions)."""
    requirements_flagged: int = 0
    flags: dict[str, int] = {}
    """Requirements raising each flag code."""
    verifier_checked: int = 0
    verifier_agreements: int = 0
    strict_changed: int = 0
    """Assessments whose strict verdict differs from the model-derived one."""
    unsafe_answers: int = 0
    unsafe_caught: int = 0
    caught_by: dict[str, int] = {}
    """Unsafe answers caught, per flag code (and ``verifier_disagrees``); one answer may count under several."""
    correct_answers: int = 0
    """The action ``answer`` on an answerable question."""
    false_alarms: int = 0
    false_alarms_by: dict[str, int] = {}

    @computed_field  # type: ignore[prop-decorator]
    @property
    def verifier_agreement_rate(self) -> float | None:
        return self.verifier_agreements / self.verifier_checked if self.verifier_checked else None


def questioned_by(opinion: SecondOpinion) -> frozenset[str]:
    """The flag codes raised on any requirement, plus ``verifier_disagrees`` when the verifier disagreed."""
    reasons = {flag.code.value for item in opinion.requirements for flag in item.flags}
    if any(badge(item) == Badge.VERIFIER_DISAGREES for item in opinion.requirements):
        reasons.add(VERIFIER_DISAGREES)
    return frozenset(reasons)


def count_opinions(
    runs: Iterable[tuple[AnswerabilityAssessment, SecondOpinion | None, Label | None]],
) -> OpinionCounts:
    """The run's counts; assessments without a second opinion are skipped."""
    totals: Counter[str] = Counter()
    flags: Counter[str] = Counter()
    caught: Counter[str] = Counter()
    alarms: Counter[str] = Counter()
    for assessment, opinion, label in runs:
        if opinion is None:
            continue
        totals["assessments"] += 1
        for item in opinion.requirements:
            _count_requirement(item, totals, flags)
        if opinion.strict is not None and opinion.strict.verdict != assessment.verdict:
            totals["strict_changed"] += 1
        if assessment.recommended_action != AnswerabilityAction.ANSWER or label is None:
            continue
        reasons = questioned_by(opinion)
        kind, by = ("unsafe", caught) if label == "unanswerable" else ("correct", alarms)
        totals[f"{kind}_answers"] += 1
        totals["unsafe_caught" if kind == "unsafe" else "false_alarms"] += bool(reasons)
        by.update(reasons)
    return OpinionCounts(**totals, flags=dict(sorted(flags.items())), caught_by=dict(sorted(caught.items())),
                         false_alarms_by=dict(sorted(alarms.items())))


def _count_requirement(item: RequirementOpinion, totals: Counter[str], flags: Counter[str]) -> None:
    if badge(item) == Badge.NOT_CHECKED:
        return
    totals["requirements_checked"] += 1
    totals["requirements_flagged"] += bool(item.flags)
    flags.update(dict.fromkeys((flag.code.value for flag in item.flags), 1))
    agrees = verifier_agrees(item)
    if agrees is not None:
        totals["verifier_checked"] += 1
        totals["verifier_agreements"] += agrees
