"""Claim verification: one declarative claim against exact passages with a pinned NLI model, fail-closed, audited.

Names are imported when first used (PEP 562): importing one submodule (the trial log imports the
models) does not import the whole package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from answerlens.lazy import lazy_exports

if TYPE_CHECKING:
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

_EXPORTS = {
    "CLAIM_VERIFICATION_SCHEMA_VERSION": "answerlens.claims.models",
    "ClaimEvidence": "answerlens.claims.models",
    "ClaimVerification": "answerlens.claims.models",
    "ClaimVerificationConfig": "answerlens.claims.models",
    "ClaimVerificationDecisionBasis": "answerlens.claims.models",
    "ClaimVerificationError": "answerlens.errors",
    "ClaimVerificationLimitation": "answerlens.claims.models",
    "ClaimVerificationStatus": "answerlens.claims.models",
    "ClaimVerifier": "answerlens.claims.verifier",
    "DEFAULT_NLI_MODEL": "answerlens.claims.models",
    "DEFAULT_NLI_REVISION": "answerlens.claims.models",
    "EntailmentPolicy": "answerlens.claims.models",
    "EvidenceGroupScore": "answerlens.claims.models",
    "LocalizedEvidenceAssessment": "answerlens.claims.models",
    "NliScorer": "answerlens.claims.scoring",
    "Probabilities": "answerlens.claims.scoring",
    "RefutationPolicy": "answerlens.claims.models",
    "bundle_evidence": "answerlens.claims.verifier",
}
"""Where each public name lives."""


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


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
