"""A claim verification as readable lines: status, the deciding groups with their passages, basis, hashes."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from answerlens.claims.models import ClaimEvidence, ClaimVerification, ClaimVerificationDecisionBasis
from answerlens.render import quote

HASH_FIELDS = ("configuration_sha256", "claim_sha256", "evidence_sha256", "evaluation_id", "result_sha256")


def report_lines(result: ClaimVerification, evidence: Sequence[ClaimEvidence]) -> list[str]:
    """One line per fact; texts are quoted as the reader format quotes them, so no record can break a line."""
    by_id = {item.memory_id: item for item in evidence}
    lines = [f"claim: {quote(result.claim)}", f"status: {result.status.value}"]
    lines += _group_lines("supporting", result.supporting_group, result.supporting_basis, by_id)
    lines += _group_lines("refuting", result.refuting_group, result.refuting_basis, by_id)
    limitations = ", ".join(item.value for item in result.limitations) or "none"
    lines.append(f"limitations: {limitations}")
    if result.model_called:
        lines.append(f"scored: {len(result.group_scores)} group(s), {len(result.localized_assessments)} "
                     "localized recheck(s)")
    else:
        lines.append("scored: nothing (no model call)")
    resolved = result.resolved_revision or "unknown"
    lines.append(f"model: {result.model} @ {result.requested_revision} (ran: {resolved})")
    lines += [f"{name}: {getattr(result, name)}" for name in HASH_FIELDS]
    return lines


def _group_lines(
    side: str, group: Sequence[UUID], basis: ClaimVerificationDecisionBasis | None, by_id: dict[UUID, ClaimEvidence]
) -> list[str]:
    if not group:
        return [f"{side} group: none"]
    lines = [f"{side} group ({basis.value if basis else 'no basis'}):"]
    for memory_id in group:
        item = by_id.get(memory_id)
        lines.append(f"  [{item.reference}] {quote(item.text)}" if item else f"  {memory_id}")
    return lines
