"""Claim verification: one declarative claim against exact passages with a pinned NLI model, fail-closed, audited."""

from answerlens.claims.models import (
    CLAIM_VERIFICATION_SCHEMA_VERSION,
    DEFAULT_NLI_MODEL,
    DEFAULT_NLI_REVISION,
    ClaimEvidence,
    ClaimVerification,
    ClaimVerificationConfig,
    ClaimVerificationDecisionBasis,
    ClaimVerificationLimitation,
    ClaimVerificationStatus,
    EntailmentPolicy,
    EvidenceGroupScore,
    LocalizedEvidenceAssessment,
    RefutationPolicy,
)
from answerlens.claims.scoring import NliScorer, Probabilities
from answerlens.claims.verifier import ClaimVerifier, bundle_evidence
from answerlens.errors import ClaimVerificationError

__all__ = [
    "CLAIM_VERIFICATION_SCHEMA_VERSION",
    "DEFAULT_NLI_MODEL",
    "DEFAULT_NLI_REVISION",
    "ClaimEvidence",
    "ClaimVerification",
    "ClaimVerificationConfig",
    "ClaimVerificationDecisionBasis",
    "ClaimVerificationError",
    "ClaimVerificationLimitation",
    "ClaimVerificationStatus",
    "ClaimVerifier",
    "EntailmentPolicy",
    "EvidenceGroupScore",
    "LocalizedEvidenceAssessment",
    "NliScorer",
    "Probabilities",
    "RefutationPolicy",
    "bundle_evidence",
]
