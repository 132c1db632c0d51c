"""The strict evidence policy (pure): support that a flag or the verifier contradicts is demoted, and the verdict
is re-derived with the one verdict function.

Only ``supported`` is ever demoted: to ``conflicting`` when the verifier finds the cited passages refute or
contest the requirement, else to ``unsupported`` when any flag is raised or the verifier does not confirm it
(``insufficient``, ``incomplete``). A conflicting or unsupported requirement is never changed, so the strict
action is never less cautious than the model-derived one.
"""

from __future__ import annotations

from collections.abc import Sequence

from answerlens.claims.models import ClaimVerificationStatus
from answerlens.second_opinion.models import RequirementOpinion, StrictChange, StrictOutcome
from answerlens.verdict import AnswerabilityStatus, derive_verdict

REFUTING = frozenset({ClaimVerificationStatus.REFUTED, ClaimVerificationStatus.CONTESTED})
NOT_CONFIRMING = frozenset({ClaimVerificationStatus.INSUFFICIENT, ClaimVerificationStatus.INCOMPLETE})


def strict_change(index: int, item: RequirementOpinion) -> StrictChange | None:
    """How the strict policy changes one requirement (None: it stands)."""
    if item.status != AnswerabilityStatus.SUPPORTED:
        return None
    verdict = item.verifier.status if item.verifier is not None else None
    codes = tuple(dict.fromkeys(flag.code for flag in item.flags))
    if verdict in REFUTING:
        target = AnswerabilityStatus.CONFLICTING
    elif codes or verdict in NOT_CONFIRMING:
        target = AnswerabilityStatus.UNSUPPORTED
    else:
        return None
    return StrictChange(
        index=index, requirement=item.requirement, from_status=item.status, to_status=target, flags=codes,
        verifier_status=verdict if verdict in REFUTING | NOT_CONFIRMING else None,
    )


def strict_statuses(requirements: Sequence[RequirementOpinion]) -> tuple[AnswerabilityStatus, ...]:
    """Every requirement's status under the strict policy, in order."""
    statuses = []
    for index, item in enumerate(requirements):
        change = strict_change(index, item)
        statuses.append(item.status if change is None else change.to_status)
    return tuple(statuses)


def strict_outcome(requirements: Sequence[RequirementOpinion]) -> StrictOutcome:
    """The strict verdict and action, and every requirement the policy changed with its reasons."""
    changes = tuple(change for index, item in enumerate(requirements)
                    if (change := strict_change(index, item)) is not None)
    verdict, action = derive_verdict(strict_statuses(requirements))
    return StrictOutcome(verdict=verdict, recommended_action=action, changes=changes)
