"""The premise text the NLI model reads for a group of passages, whole or localized to guard-compatible segments."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from answerlens.claims.guards import TypedPassage, guard_segments, has_negated_clause, preserves_modality
from answerlens.records import EpistemicType, LifecycleState


def group_premise(texts: Sequence[str]) -> str:
    """One passage as it is; several as ``[E1] first`` / ``[E2] second`` lines."""
    if len(texts) == 1:
        return texts[0]
    return "\n".join(f"[E{number}] {text}" for number, text in enumerate(texts, start=1))


@dataclass(frozen=True)
class _Segment:
    text: str
    epistemic_type: EpistemicType | None
    lifecycle_state: LifecycleState | None


def localized_premise(claim: str, group: Sequence[TypedPassage]) -> tuple[str | None, tuple[tuple[int, ...], ...]]:
    """Keep only the segments that could establish the claim's modality; None when nothing is left.

    Returns the premise and, per passage, the 1-based numbers of the segments kept. Passages left with no
    segment drop out of the premise entirely, so the ``[E<n>]`` labels count only the passages kept.
    """
    claim_is_negated = has_negated_clause(claim)
    kept_texts: list[str] = []
    included: list[tuple[int, ...]] = []
    for passage in group:
        kept: list[str] = []
        numbers: list[int] = []
        for number, segment in enumerate(guard_segments(passage.text), start=1):
            scoped = _Segment(segment, passage.epistemic_type, passage.lifecycle_state)
            if not preserves_modality(claim, (scoped,)):
                continue
            if not claim_is_negated and has_negated_clause(segment):
                continue
            kept.append(segment)
            numbers.append(number)
        included.append(tuple(numbers))
        if kept:
            kept_texts.append("\n".join(kept))
    if not kept_texts:
        return None, tuple(included)
    return group_premise(kept_texts), tuple(included)
