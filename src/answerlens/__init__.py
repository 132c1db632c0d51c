"""answerlens: decide, and show, whether retrieved evidence establishes what a question asks.

The public API mirrors PRME's answerability evaluator and adds loading, rendering, replay, verification, claim
verification, the second opinion and trial results. ``_EXPORTS`` is the one table of public names: ``__all__`` is
derived from it, and each name's module is imported when the name is first used (PEP 562), so ``import answerlens``
(and the command line's start) costs nothing until a name is needed. Sub-packages export nothing of their own: import
from the module that defines a name. The ``TYPE_CHECKING`` imports (``X as X``: exported) only tell type checkers
what each name is; a test keeps them equal to the table.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from answerlens.abstention import should_abstain as should_abstain
    from answerlens.assessment import AnswerabilityAssessment as AnswerabilityAssessment
    from answerlens.assessment import AnswerabilityRequirement as AnswerabilityRequirement
    from answerlens.assessment import ProviderMetadata as ProviderMetadata
    from answerlens.assessment import derive_assessment as derive_assessment
    from answerlens.citations import CitationDecision as CitationDecision
    from answerlens.citations import Decision as Decision
    from answerlens.citations import DiscardReason as DiscardReason
    from answerlens.citations import Span as Span
    from answerlens.claims.models import ClaimEvidence as ClaimEvidence
    from answerlens.claims.models import ClaimVerification as ClaimVerification
    from answerlens.claims.models import ClaimVerificationConfig as ClaimVerificationConfig
    from answerlens.claims.verifier import ClaimVerifier as ClaimVerifier
    from answerlens.claims.verifier import bundle_evidence as bundle_evidence
    from answerlens.config import AnswerabilityConfig as AnswerabilityConfig
    from answerlens.config import EvidencePolicy as EvidencePolicy
    from answerlens.engine.sweep import sweep as sweep
    from answerlens.errors import AnswerabilityError as AnswerabilityError
    from answerlens.errors import AnswerlensError as AnswerlensError
    from answerlens.errors import BundleError as BundleError
    from answerlens.errors import ClaimVerificationError as ClaimVerificationError
    from answerlens.errors import DatasetError as DatasetError
    from answerlens.errors import StorageError as StorageError
    from answerlens.errors import TrialError as TrialError
    from answerlens.errors import VerificationError as VerificationError
    from answerlens.evaluator import AnswerabilityEvaluator as AnswerabilityEvaluator
    from answerlens.evaluator import assess_answerability as assess_answerability
    from answerlens.loading import load_bundle as load_bundle
    from answerlens.prompts import PROMPT_SHA256 as PROMPT_SHA256
    from answerlens.prompts import PROMPT_VERSION as PROMPT_VERSION
    from answerlens.prompts import SYSTEM_PROMPT as SYSTEM_PROMPT
    from answerlens.records import ContextFormat as ContextFormat
    from answerlens.records import MemoryBundle as MemoryBundle
    from answerlens.render import render_bundle as render_bundle
    from answerlens.second_opinion.flags import FLAG_RULES_VERSION as FLAG_RULES_VERSION
    from answerlens.second_opinion.models import Flag as Flag
    from answerlens.second_opinion.models import FlagCode as FlagCode
    from answerlens.second_opinion.models import RequirementOpinion as RequirementOpinion
    from answerlens.second_opinion.models import SecondOpinion as SecondOpinion
    from answerlens.second_opinion.models import TypedEvidence as TypedEvidence
    from answerlens.second_opinion.opinion import second_opinion_for as second_opinion_for
    from answerlens.sweeps.result import SweepResult as SweepResult
    from answerlens.trials.result import TrialResult as TrialResult
    from answerlens.verdict import AnswerabilityAction as AnswerabilityAction
    from answerlens.verdict import AnswerabilityStatus as AnswerabilityStatus
    from answerlens.verdict import AnswerabilityVerdict as AnswerabilityVerdict
    from answerlens.verification.assessment import VerificationReport as VerificationReport
    from answerlens.verification.assessment import verify_assessment as verify_assessment
    from answerlens.verification.opinion import verify_second_opinion as verify_second_opinion
    from answerlens.verification.outcome import PathCheck as PathCheck
    from answerlens.verification.path import verify_path as verify_path

from answerlens.version import __version__ as __version__

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
    "ClaimEvidence": "answerlens.claims.models",
    "ClaimVerification": "answerlens.claims.models",
    "ClaimVerificationConfig": "answerlens.claims.models",
    "ClaimVerificationError": "answerlens.errors",
    "ClaimVerifier": "answerlens.claims.verifier",
    "ContextFormat": "answerlens.records",
    "DatasetError": "answerlens.errors",
    "Decision": "answerlens.citations",
    "DiscardReason": "answerlens.citations",
    "EvidencePolicy": "answerlens.config",
    "FLAG_RULES_VERSION": "answerlens.second_opinion.flags",
    "Flag": "answerlens.second_opinion.models",
    "FlagCode": "answerlens.second_opinion.models",
    "MemoryBundle": "answerlens.records",
    "PROMPT_SHA256": "answerlens.prompts",
    "PathCheck": "answerlens.verification.outcome",
    "PROMPT_VERSION": "answerlens.prompts",
    "ProviderMetadata": "answerlens.assessment",
    "RequirementOpinion": "answerlens.second_opinion.models",
    "SYSTEM_PROMPT": "answerlens.prompts",
    "SecondOpinion": "answerlens.second_opinion.models",
    "Span": "answerlens.citations",
    "StorageError": "answerlens.errors",
    "SweepResult": "answerlens.sweeps.result",
    "TrialError": "answerlens.errors",
    "TrialResult": "answerlens.trials.result",
    "TypedEvidence": "answerlens.second_opinion.models",
    "VerificationError": "answerlens.errors",
    "VerificationReport": "answerlens.verification.assessment",
    "assess_answerability": "answerlens.evaluator",
    "bundle_evidence": "answerlens.claims.verifier",
    "derive_assessment": "answerlens.assessment",
    "load_bundle": "answerlens.loading",
    "render_bundle": "answerlens.render",
    "second_opinion_for": "answerlens.second_opinion.opinion",
    "should_abstain": "answerlens.abstention",
    "sweep": "answerlens.engine.sweep",
    "verify_assessment": "answerlens.verification.assessment",
    "verify_path": "answerlens.verification.path",
    "verify_second_opinion": "answerlens.verification.opinion",
}
"""Every public name, and the module that defines it."""

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups find it without coming here
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
