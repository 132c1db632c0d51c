"""answerlens: decide, and show, whether retrieved evidence establishes what a question asks.

The public API mirrors PRME's answerability evaluator and adds loading, rendering, replay and verification.
"""

from answerlens.abstention import should_abstain
from answerlens.assessment import AnswerabilityAssessment, AnswerabilityRequirement, ProviderMetadata, derive_assessment
from answerlens.citations import CitationDecision, Decision, DiscardReason, Span
from answerlens.claims import ClaimEvidence, ClaimVerification, ClaimVerificationConfig, ClaimVerifier, bundle_evidence
from answerlens.config import AnswerabilityConfig, EvidencePolicy
from answerlens.errors import (
    AnswerabilityError,
    AnswerlensError,
    BundleError,
    ClaimVerificationError,
    DatasetError,
    TrialError,
)
from answerlens.evaluator import AnswerabilityEvaluator, assess_answerability
from answerlens.loading import load_bundle
from answerlens.prompts import PROMPT_SHA256, PROMPT_VERSION, SYSTEM_PROMPT
from answerlens.records import ContextFormat, MemoryBundle
from answerlens.render import render_bundle
from answerlens.second_opinion import (
    FLAG_RULES_VERSION,
    Flag,
    FlagCode,
    RequirementOpinion,
    SecondOpinion,
    TypedEvidence,
    second_opinion_for,
    verify_second_opinion,
)
from answerlens.trials.result import TrialResult
from answerlens.verdict import AnswerabilityAction, AnswerabilityStatus, AnswerabilityVerdict
from answerlens.verification import VerificationReport, verify_assessment

__version__ = "0.1.0"

__all__ = [
    "FLAG_RULES_VERSION",
    "PROMPT_SHA256",
    "PROMPT_VERSION",
    "SYSTEM_PROMPT",
    "AnswerabilityAction",
    "AnswerabilityAssessment",
    "AnswerabilityConfig",
    "AnswerabilityError",
    "AnswerabilityEvaluator",
    "AnswerabilityRequirement",
    "AnswerabilityStatus",
    "AnswerabilityVerdict",
    "AnswerlensError",
    "BundleError",
    "CitationDecision",
    "ClaimEvidence",
    "ClaimVerification",
    "ClaimVerificationConfig",
    "ClaimVerificationError",
    "ClaimVerifier",
    "ContextFormat",
    "DatasetError",
    "Decision",
    "DiscardReason",
    "EvidencePolicy",
    "Flag",
    "FlagCode",
    "MemoryBundle",
    "ProviderMetadata",
    "RequirementOpinion",
    "SecondOpinion",
    "Span",
    "TrialError",
    "TrialResult",
    "TypedEvidence",
    "VerificationReport",
    "assess_answerability",
    "bundle_evidence",
    "derive_assessment",
    "load_bundle",
    "render_bundle",
    "second_opinion_for",
    "should_abstain",
    "verify_assessment",
    "verify_second_opinion",
]
