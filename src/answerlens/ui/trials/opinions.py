"""The second opinion over a trial (pure): per run, requirements flagged, the verifier's agreement with the
model's statuses, and the unsafe answers it would have caught, from ``count_opinions``.

A sample's opinion is the one it carries (``stored_opinion``: once ``trial --second-opinion`` stores one per
sample), else the page may compute the deterministic flags from the run's own dataset (``compute_opinions``: the
claim verifier is not run). Everything takes (assessment, opinion, label) triples, as ``count_opinions`` does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pydantic import ValidationError

from answerlens.assessment import AnswerabilityAssessment
from answerlens.html.trial_rows import Stat, counted, rate
from answerlens.records import MemoryBundle
from answerlens.second_opinion.counts import Label, OpinionCounts, count_opinions
from answerlens.second_opinion.models import SecondOpinion
from answerlens.second_opinion.opinion import second_opinion_for
from answerlens.trials.dataset import Dataset
from answerlens.trials.log import AnswerLabel, AnySample, QuestionLabel, TrialSample
from answerlens.trials.result import TrialResult

OPINION_FIELD = "second_opinion"
"""Seam: where a sample will carry its opinion (a typed field of ``TrialSample`` once the engine adds it, or the
same key kept as an extra field of an upstream sample)."""
STORED = "stored with the samples"
COMPUTED = ("computed here from the run's dataset: the deterministic flags only (the claim verifier was not run; "
            "run answerlens trial --second-opinion to store it with each sample)")

Triple = tuple[AnswerabilityAssessment, SecondOpinion | None, Label | None]


def stored_opinion(sample: AnySample) -> SecondOpinion | None:
    """The opinion a sample carries, or None (every sample today; one that does not read counts as none)."""
    value = getattr(sample, OPINION_FIELD, None)
    extra = getattr(sample, "model_extra", None)
    if value is None and isinstance(extra, dict):
        value = extra.get(OPINION_FIELD)
    if value is None or isinstance(value, SecondOpinion):
        return value
    try:
        return SecondOpinion.model_validate(value)
    except ValidationError:
        return None


def label_of(sample: AnySample) -> Label:
    """``count_opinions``' label: the question's; for a draft, "must not answer" (unanswerable) when it is wrong."""
    if sample.answer_label is not None:
        return "answerable" if sample.answer_label == AnswerLabel.CORRECT else "unanswerable"
    return "answerable" if sample.label == QuestionLabel.ANSWERABLE else "unanswerable"


def triples(samples: Sequence[AnySample], opinions: Mapping[int, SecondOpinion] | None = None) -> list[Triple]:
    """(assessment, opinion, label) per assessed sample; ``opinions`` (by position in ``samples``) fill in where a
    sample carries none."""
    found: list[Triple] = []
    for position, sample in enumerate(samples):
        if sample.assessment is None:
            continue
        opinion = stored_opinion(sample) or (opinions or {}).get(position)
        found.append((sample.assessment, opinion, label_of(sample)))
    return found


def compute_opinions(result: TrialResult, dataset: Dataset) -> dict[int, SecondOpinion]:
    """The flags of every assessed sample of our own runs whose case is unchanged in ``dataset``, by position."""
    cases = {item.case.id: item for item in dataset.cases}
    todo = []
    for position, sample in enumerate(result.samples):
        item = cases.get(sample.question_id)
        if (sample.assessment is None or item is None or not isinstance(sample, TrialSample)
                or sample.case_sha256 != item.sha256):
            continue
        todo.append((position, sample.assessment, item))

    async def run() -> list[SecondOpinion | None]:
        return [await _flags(assessment, item.bundle, item.case.question) for _, assessment, item in todo]

    opinions = zip(todo, asyncio.run(run()), strict=True)
    return {position: opinion for (position, _, _), opinion in opinions if opinion is not None}


async def _flags(assessment: AnswerabilityAssessment, bundle: MemoryBundle, question: str) -> SecondOpinion | None:
    try:
        return await second_opinion_for(assessment, bundle, question)
    except ValueError:  # the bundle now renders another context than the one assessed: no opinion on it
        return None


@dataclass(frozen=True)
class OpinionSummary:
    counts: OpinionCounts
    source: str
    """``STORED`` or ``COMPUTED``."""
    assessed: int
    """Assessed samples in the run; ``counts.assessments`` of them carry an opinion."""


def summarize(trio: list[Triple], source: str) -> OpinionSummary | None:
    """The run's counts, or None when no sample has an opinion."""
    counts = count_opinions(trio)
    return OpinionSummary(counts, source, len(trio)) if counts.assessments else None


def stats(summary: OpinionSummary) -> list[Stat]:
    c = summary.counts
    if c.verifier_checked:
        agreement, note = rate(c.verifier_agreements, c.verifier_checked, "verified requirement")
    else:
        agreement, note = "not run", "no requirement was verified"
    return [
        Stat("Requirements flagged", f"{c.requirements_flagged} / {c.requirements_checked}",
             "supported or conflicting requirements with a flag, out of those the second opinion checks"),
        Stat("Verifier agreement", agreement,
             "the claim verifier's status agrees with the model's (supported ↔ supported; conflicting ↔ refuted "
             "or contested)", note),
        Stat("Unsafe answers caught", f"{c.unsafe_caught} / {c.unsafe_answers}",
             "full answers that must not be given (unanswerable question, or an incorrect draft) with a flag or "
             "a verifier disagreement", None if c.unsafe_answers else "no unsafe answer to catch"),
        Stat("Correct answers flagged", f"{c.false_alarms} / {c.correct_answers}",
             "false alarms: full answers that may be given, flagged all the same"),
    ]


def coverage(summary: OpinionSummary) -> str:
    """``64 of 64 assessed samples carry a second opinion, computed here …``."""
    return (f"{summary.counts.assessments} of {counted(summary.assessed, 'assessed sample')} have a second "
            f"opinion, {summary.source}")
