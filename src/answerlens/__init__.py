"""answerlens: decide, and show, whether retrieved evidence establishes what a question asks.

The public API mirrors PRME's answerability evaluator and adds loading, rendering, replay, verification, claim
verification, the second opinion and trial results. Names are imported when first used, so ``import answerlens``
(and the command line's start) costs nothing until a name is needed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from answerlens.lazy import lazy_exports

if TYPE_CHECKING:
    from answerlens.abstention import should_abstain
    from answerlens.assessment import (
        AnswerabilityAssessment,
        AnswerabilityRequirement,
        ProviderMetadata,
        derive_assessment,
    )
    from answerlens.citations import CitationDecision, Decision, DiscardReason, Span
    from answerlens.claims import (
        ClaimEvidence,
        ClaimVerification,
        ClaimVerificationConfig,
        ClaimVerifier,
        bundle_evidence,
    )
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
    from answerlens.sweeps import SweepResult, sweep
    from answerlens.trials.result import TrialResult
    from answerlens.verdict import AnswerabilityAction, AnswerabilityStatus, AnswerabilityVerdict
    from answerlens.verification import VerificationReport, verify_assessment

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "AnswerabilityAction": "answerlens.verdict",
    "AnswerabilityAssessment": "answerlens.assessment",
    "AnswerabilityConfig": "answerlens.config",
    "AnswerabilityError": "answerlens.errors",
    "AnswerabilityEvaluator": "answerlens.evaluator",
    "AnswerabilityRequirement": "answerlens.assessment",
    "AnswerabilityStatus": "answerlens.verdict",
    "AnswerabilityVerdict": "answerlens.verdict",
    "AnswerlensError": "answerlens.errors",
    "BundleError": "answerlens.errors",
    "CitationDecision": "answerlens.citations",
    "ClaimEvidence": "answerlens.claims",
    "ClaimVerification": "answerlens.claims",
    "ClaimVerificationConfig": "answerlens.claims",
    "ClaimVerificationError": "answerlens.errors",
    "ClaimVerifier": "answerlens.claims",
    "ContextFormat": "answerlens.records",
    "DatasetError": "answerlens.errors",
    "Decision": "answerlens.citations",
    "DiscardReason": "answerlens.citations",
    "EvidencePolicy": "answerlens.config",
    "FLAG_RULES_VERSION": "answerlens.second_opinion",
    "Flag": "answerlens.second_opinion",
    "FlagCode": "answerlens.second_opinion",
    "MemoryBundle": "answerlens.records",
    "PROMPT_SHA256": "answerlens.prompts",
    "PROMPT_VERSION": "answerlens.prompts",
    "ProviderMetadata": "answerlens.assessment",
    "RequirementOpinion": "answerlens.second_opinion",
    "SYSTEM_PROMPT": "answerlens.prompts",
    "SecondOpinion": "answerlens.second_opinion",
    "Span": "answerlens.citations",
    "SweepResult": "answerlens.sweeps",
    "TrialError": "answerlens.errors",
    "TrialResult": "answerlens.trials.result",
    "TypedEvidence": "answerlens.second_opinion",
    "VerificationReport": "answerlens.verification",
    "assess_answerability": "answerlens.evaluator",
    "bundle_evidence": "answerlens.claims",
    "derive_assessment": "answerlens.assessment",
    "load_bundle": "answerlens.loading",
    "render_bundle": "answerlens.render",
    "second_opinion_for": "answerlens.second_opinion",
    "should_abstain": "answerlens.abstention",
    "sweep": "answerlens.sweeps",
    "verify_assessment": "answerlens.verification",
    "verify_second_opinion": "answerlens.second_opinion",
}
"""Where each public name lives."""


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


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
    "SweepResult",
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
    "sweep",
    "verify_assessment",
    "verify_second_opinion",
]
