"""One thing to review as listed (``Item``) and as opened and verified (``Opened``): what the review sources give
and what a label is matched against."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from answerlens.assessment import AnswerabilityAssessment
from answerlens.records import MemoryBundle
from answerlens.second_opinion.models import SecondOpinion
from answerlens.verdict import AnswerabilityVerdict


@dataclass(frozen=True)
class Item:
    """One thing to review, as listed (cheap: nothing verified yet)."""

    key: str
    """Unique in its source: ``run 12``, ``a1 repeat 0``, ``reader_cited·packed repeat 1``."""
    title: str
    question: str
    answer: str | None
    evaluation_id: str
    judge: AnswerabilityVerdict
    """The verdict as listed (the judge's: the assessment's own once opened)."""
    source: str
    """Where its reply came from (``live model: …``, ``recorded response``), for the filters."""
    created: float | None
    link: str
    """Where to see it: ``?run=<evaluation_id>`` for a stored run, the folder and sample otherwise."""
    assessment_sha256: str | None = None
    """Known before opening for a trial's or sweep's samples; a stored run's is read when it is opened."""
    number: int | None = None
    """A stored run's number."""
    bundle: str = ""
    """The bundle's title (a sample's title, a file name), when it has one."""


@dataclass(frozen=True)
class Opened:
    """An item read whole and verified; ``problems`` non-empty means it does not verify (its labels are void)."""

    item: Item
    assessment: AnswerabilityAssessment | None
    context: str | None
    """The exact context shown; None when it cannot be found (an upstream trial, a dataset that moved)."""
    opinion: SecondOpinion | None = None
    problems: tuple[str, ...] = ()
    unchecked: tuple[str, ...] = ()
    missing: str | None = None
    """Why the context cannot be shown, when it cannot."""
    bundle: MemoryBundle | None = None
    """The bundle assessed, when known (a trial case's, a sweep cell's): what a dataset export writes."""
    bundle_file: Path | None = None
    """That bundle's file, when it has one."""

    @property
    def verified(self) -> bool:
        return self.assessment is not None and not self.problems

    @property
    def reviewable(self) -> bool:
        """Whether a person can label it: it verifies, and its context can be shown."""
        return self.verified and self.context is not None
