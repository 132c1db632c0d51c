"""The claim verifier's audit hashes (PRME 0.15.0's formulas) and the check of a recorded result.

Unlike the answerability hashes, these encode canonical JSON with non-ASCII characters kept
(``audit.canonical_json_utf8``), exactly as upstream does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from answerlens.audit import canonical_json_utf8, sha256_text
from answerlens.claims.models import (
    CLAIM_VERIFICATION_SCHEMA_VERSION,
    ClaimEvidence,
    ClaimVerification,
    ClaimVerificationConfig,
    ClaimVerificationDecisionBasis,
    ClaimVerificationLimitation,
    ClaimVerificationStatus,
    EvidenceGroupScore,
    LocalizedEvidenceAssessment,
)


def configuration_sha256(config: ClaimVerificationConfig) -> str:
    return sha256_text(canonical_json_utf8(config.model_dump(mode="json")))


def claim_sha256(claim: str) -> str:
    return sha256_text(claim)


def evidence_sha256(evidence: Sequence[ClaimEvidence]) -> str:
    return sha256_text(canonical_json_utf8([item.model_dump(mode="json") for item in evidence]))


def evaluation_id(*, claim_sha256: str, configuration_sha256: str, evidence_sha256: str) -> str:
    """Fixed-input identity of one verification, shared by repeats."""
    identity = {
        "claim_sha256": claim_sha256,
        "configuration_sha256": configuration_sha256,
        "evidence_sha256": evidence_sha256,
        "schema_version": CLAIM_VERIFICATION_SCHEMA_VERSION,
    }
    return sha256_text(canonical_json_utf8(identity))


def result_sha256(
    *,
    evaluation_id: str,
    status: ClaimVerificationStatus,
    supporting_group: Sequence[Any],
    refuting_group: Sequence[Any],
    supporting_basis: ClaimVerificationDecisionBasis | None,
    refuting_basis: ClaimVerificationDecisionBasis | None,
    group_scores: Sequence[EvidenceGroupScore],
    localized_assessments: Sequence[LocalizedEvidenceAssessment],
    limitations: Sequence[ClaimVerificationLimitation],
) -> str:
    """Identity of the decision: status, groups, bases, limitations and every score, under ``evaluation_id``."""
    public = {
        "evaluation_id": evaluation_id,
        "group_scores": [item.model_dump(mode="json") for item in group_scores],
        "localized_assessments": [item.model_dump(mode="json") for item in localized_assessments],
        "limitations": [ClaimVerificationLimitation(item).value for item in limitations],
        "refuting_basis": None if refuting_basis is None else ClaimVerificationDecisionBasis(refuting_basis).value,
        "refuting_group": [str(memory_id) for memory_id in refuting_group],
        "status": ClaimVerificationStatus(status).value,
        "supporting_basis": (
            None if supporting_basis is None else ClaimVerificationDecisionBasis(supporting_basis).value
        ),
        "supporting_group": [str(memory_id) for memory_id in supporting_group],
    }
    return sha256_text(canonical_json_utf8(public))


def recorded_hash_problems(result: ClaimVerification) -> list[str]:
    """Which of a recorded schema-3 result's hashes do not follow from its own fields (empty: consistent).

    The evidence and configuration hashes cannot be rechecked without the inputs; the claim hash,
    ``evaluation_id`` and ``result_sha256`` can. Older schema versions are not rechecked.
    """
    if result.schema_version != CLAIM_VERIFICATION_SCHEMA_VERSION:
        return []
    expected_id = evaluation_id(
        claim_sha256=result.claim_sha256,
        configuration_sha256=result.configuration_sha256,
        evidence_sha256=result.evidence_sha256,
    )
    expected_result = result_sha256(
        evaluation_id=result.evaluation_id,
        status=result.status,
        supporting_group=result.supporting_group,
        refuting_group=result.refuting_group,
        supporting_basis=result.supporting_basis,
        refuting_basis=result.refuting_basis,
        group_scores=result.group_scores,
        localized_assessments=result.localized_assessments,
        limitations=result.limitations,
    )
    problems = []
    if claim_sha256(result.claim) != result.claim_sha256:
        problems.append("claim_sha256 does not match the recorded claim")
    if expected_id != result.evaluation_id:
        problems.append(f"evaluation_id {result.evaluation_id} does not match the input hashes ({expected_id})")
    if expected_result != result.result_sha256:
        problems.append(
            f"result_sha256 {result.result_sha256} does not match the recorded decision ({expected_result})"
        )
    return problems
