"""The closed vocabularies of a judgement, and the status → verdict/action table (pure)."""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum


class AnswerabilityStatus(str, Enum):
    """Support state for one independently answerable requirement."""

    SUPPORTED = "supported"
    UNSUPPORTED = "unsupported"
    CONFLICTING = "conflicting"


class AnswerabilityVerdict(str, Enum):
    """Set-level evidence verdict derived from requirement states."""

    ANSWERABLE = "answerable"
    PARTIAL = "partial"
    INSUFFICIENT = "insufficient"
    CONFLICTING = "conflicting"


class AnswerabilityAction(str, Enum):
    """Conservative application action for an answerability verdict."""

    ANSWER = "answer"
    ANSWER_PARTIALLY = "answer_partially"
    ABSTAIN = "abstain"
    SURFACE_CONFLICT = "surface_conflict"


ABSTAINING_ACTIONS = frozenset({AnswerabilityAction.ABSTAIN, AnswerabilityAction.SURFACE_CONFLICT})


def derive_verdict(
    statuses: Iterable[AnswerabilityStatus | str],
) -> tuple[AnswerabilityVerdict, AnswerabilityAction]:
    """Any conflicting → conflicting; all supported → answerable; some → partial; none → insufficient."""
    present = {AnswerabilityStatus(status) for status in statuses}
    if AnswerabilityStatus.CONFLICTING in present:
        return AnswerabilityVerdict.CONFLICTING, AnswerabilityAction.SURFACE_CONFLICT
    if present == {AnswerabilityStatus.SUPPORTED}:
        return AnswerabilityVerdict.ANSWERABLE, AnswerabilityAction.ANSWER
    if AnswerabilityStatus.SUPPORTED in present:
        return AnswerabilityVerdict.PARTIAL, AnswerabilityAction.ANSWER_PARTIALLY
    return AnswerabilityVerdict.INSUFFICIENT, AnswerabilityAction.ABSTAIN
