"""Rates over a trial summary, each with its numerator and denominator, and never a rate over fewer than a
stated minimum of samples without saying so (``enough`` is False and ``text`` says "too few samples").

Pure: a ``TrialSummary`` in, ``Rate`` values out, for ``trial-report`` and the Trials page alike.
"""

from __future__ import annotations

from pydantic import BaseModel

from answerlens.trials.log import STRICT, AnswerLabel
from answerlens.trials.summary import TrialSummary

MIN_SAMPLES = 10
"""Below this many samples (or questions, or matched requirements) a rate is shown as too few to mean much: 2
answers out of 2 is not a 100% rate. Ten is where one sample moves a rate by ten points at most. The CLI's report
and the Trials page both use this one number (``trial-report --min-samples`` sets another for one report)."""


class Rate(BaseModel):
    """``count / total``; ``value`` is None when ``total`` is 0 (no rate, never 0.0)."""

    model_config = STRICT

    name: str
    """A stable key: ``unsafe_answer_rate`` …"""
    label: str
    count: int
    total: int
    min_samples: int

    @property
    def value(self) -> float | None:
        return self.count / self.total if self.total else None

    @property
    def enough(self) -> bool:
        """Whether ``total`` reaches ``min_samples``."""
        return self.total >= self.min_samples

    @property
    def text(self) -> str:
        fraction = f"{self.count}/{self.total}"
        if self.value is None:
            return f"no samples ({fraction})"
        if not self.enough:
            return f"too few samples ({fraction}; fewer than {self.min_samples})"
        return f"{self.value:.1%} ({fraction})"


def summary_rates(summary: TrialSummary, min_samples: int = MIN_SAMPLES) -> tuple[Rate, ...]:
    """The run's rates, in the order a report lists them (draft and second-opinion rates only when they apply)."""
    s = summary
    rows = [
        ("unsafe_answer_rate", "full answers to unanswerable questions", s.unanswerable.unsafe_full_answer_count,
         s.unanswerable.samples),
        ("full_answer_rate", "full answers to answerable questions", s.answerable.full_answer_count,
         s.answerable.samples),
        ("unnecessary_abstention_rate", "abstentions on answerable questions",
         s.answerable.unnecessary_abstention_count, s.answerable.samples),
        ("stable_action_rate", "questions with one action in every repeat",
         s.stability.questions_with_identical_actions, s.stability.questions),
        ("requirement_agreement_rate", "matched requirements keeping one status",
         s.requirement_agreement.agreeing_requirements, s.requirement_agreement.matched_requirements),
        ("error_rate", "calls that ended in an error sample", s.error_samples, s.planned_samples),
    ]
    if s.draft_answers is not None:
        for label in AnswerLabel:
            draft = s.draft_answers.of(label)
            rows.append((f"{label.value}_draft_full_accept_rate", f"{label.value} drafts accepted in full",
                         draft.full_accept_count, draft.samples))
    if s.second_opinion is not None:
        opinion = s.second_opinion
        rows += [("verifier_agreement_rate", "verifier agreeing with the model's status",
                  opinion.verifier_agreements, opinion.verifier_checked),
                 ("unsafe_caught_rate", "unsafe answers the second opinion would have caught",
                  opinion.unsafe_caught, opinion.unsafe_answers)]
    return tuple(Rate(name=name, label=label, count=count, total=total, min_samples=min_samples)
                 for name, label, count, total in rows)
