"""Second opinion on every requirement (answerlens only): typed evidence, deterministic flags and the claim
verifier, stored beside the assessment with its own hashes, and the optional strict evidence policy."""

from answerlens.config import EvidencePolicy
from answerlens.second_opinion.badges import Badge, badge, flagged_refs, flags_by_ref, verifier_agrees
from answerlens.second_opinion.counts import OpinionCounts, count_opinions
from answerlens.second_opinion.document import output_document, split_document, verify_document
from answerlens.second_opinion.flags import FLAG_RULES_VERSION, flag_requirement
from answerlens.second_opinion.models import (
    Flag,
    FlagCode,
    RequirementOpinion,
    SecondOpinion,
    StrictChange,
    StrictOutcome,
    TypedEvidence,
    VerifierNote,
    VerifierState,
)
from answerlens.second_opinion.opinion import second_opinion_for
from answerlens.second_opinion.strict import strict_outcome, strict_statuses
from answerlens.second_opinion.verification import verify_second_opinion

__all__ = [
    "FLAG_RULES_VERSION",
    "Badge",
    "EvidencePolicy",
    "Flag",
    "FlagCode",
    "OpinionCounts",
    "RequirementOpinion",
    "SecondOpinion",
    "StrictChange",
    "StrictOutcome",
    "TypedEvidence",
    "VerifierNote",
    "VerifierState",
    "badge",
    "count_opinions",
    "flag_requirement",
    "flagged_refs",
    "flags_by_ref",
    "output_document",
    "second_opinion_for",
    "split_document",
    "strict_outcome",
    "strict_statuses",
    "verifier_agrees",
    "verify_document",
    "verify_second_opinion",
]
