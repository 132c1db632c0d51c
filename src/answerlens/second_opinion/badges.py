"""Per-requirement views for the pages (pure): the badge, agreement with the verifier, and flagged refs for
inline marks. Nothing here draws or escapes; the UI escapes every text it shows."""

from __future__ import annotations

from enum import Enum

from answerlens.claims.models import ClaimVerificationStatus
from answerlens.second_opinion.flags import CHECKED_STATUSES
from answerlens.second_opinion.models import Flag, RequirementOpinion
from answerlens.verdict import AnswerabilityStatus

AGREEING = {
    AnswerabilityStatus.SUPPORTED: frozenset({ClaimVerificationStatus.SUPPORTED}),
    AnswerabilityStatus.CONFLICTING: frozenset({ClaimVerificationStatus.CONTESTED, ClaimVerificationStatus.REFUTED}),
}
"""The verifier statuses that agree with the model's status."""


class Badge(str, Enum):
    """The compact second-opinion badge beside a requirement."""

    AGREES = "agrees"
    """Supported or conflicting, nothing flagged, and the verifier (when it ran) agrees."""
    FLAGS = "flags"
    VERIFIER_DISAGREES = "verifier_disagrees"
    NOT_CHECKED = "not_checked"
    """Unsupported: the model claims no support, so there is nothing to question."""


def verifier_agrees(item: RequirementOpinion) -> bool | None:
    """Whether the verifier's status agrees with the model's (None when it did not run on this requirement)."""
    if item.verifier is None or item.status not in AGREEING:
        return None
    return item.verifier.status in AGREEING[item.status]


def badge(item: RequirementOpinion) -> Badge:
    """Verifier disagreement first (an independent model), then flags, else agreement."""
    if item.status not in CHECKED_STATUSES:
        return Badge.NOT_CHECKED
    if verifier_agrees(item) is False:
        return Badge.VERIFIER_DISAGREES
    return Badge.FLAGS if item.flags else Badge.AGREES


def flags_by_ref(item: RequirementOpinion) -> dict[str, tuple[Flag, ...]]:
    """For inline marks: each flagged citation ref with its flags, in citation order."""
    order = [evidence.ref for evidence in item.typed_evidence]
    found: dict[str, list[Flag]] = {}
    for flag in item.flags:
        for ref in flag.refs:
            found.setdefault(ref, []).append(flag)
    ranked = sorted(found, key=lambda ref: order.index(ref) if ref in order else len(order))
    return {ref: tuple(found[ref]) for ref in ranked}


def flagged_refs(item: RequirementOpinion) -> tuple[str, ...]:
    """The citation refs that some flag concerns, in citation order."""
    return tuple(flags_by_ref(item))
