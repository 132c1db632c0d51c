"""Minimal evidence groups: which passages are combined when no single one decides, and which group decides."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Literal

from answerlens.claims.models import ClaimEvidence, EvidenceGroupScore, LocalizedEvidenceAssessment

DecidingScore = EvidenceGroupScore | LocalizedEvidenceAssessment


def group_candidates(
    evidence: Sequence[ClaimEvidence], single_scores: Sequence[EvidenceGroupScore], limit: int
) -> list[ClaimEvidence]:
    """The ``limit`` passages whose single scores lean furthest either way, kept in the caller's order.

    Strength is max(entailment, contradiction); ties go to the smaller memory id (as text).
    """
    ranked = sorted(
        zip(evidence, single_scores, strict=True),
        key=lambda pair: (-max(pair[1].entailment, pair[1].contradiction), str(pair[0].memory_id)),
    )[:limit]
    chosen = {item.memory_id for item, _ in ranked}
    return [item for item in evidence if item.memory_id in chosen]


def groups_of(candidates: Sequence[ClaimEvidence], size: int) -> Iterator[tuple[ClaimEvidence, ...]]:
    """Every combination of ``size`` candidates, in the caller's order."""
    return itertools.combinations(candidates, size)


def best_group(
    scores: Sequence[DecidingScore], probability: Literal["entailment", "contradiction"]
) -> DecidingScore | None:
    """The deciding group: the smallest, then the most probable, then the smallest ids; None when empty.

    Among equal keys the earliest wins, so direct scores precede localized rechecks.
    """
    if not scores:
        return None

    def key(score: DecidingScore) -> tuple[int, float, tuple[str, ...]]:
        value = getattr(score, probability)
        if value is None:
            raise ValueError("decision score probability is unavailable")
        return len(score.memory_ids), -value, tuple(str(memory_id) for memory_id in score.memory_ids)

    return min(scores, key=key)
