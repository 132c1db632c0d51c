"""Second opinion on every requirement (answerlens only): typed evidence, deterministic flags and the claim
verifier, stored beside the assessment with its own hashes, and the optional strict evidence policy.

Names are imported when first used (PEP 562): importing one submodule (the trial log imports the
models) does not import the whole package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from answerlens.lazy import lazy_exports

if TYPE_CHECKING:
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

_EXPORTS = {
    "Badge": "answerlens.second_opinion.badges",
    "EvidencePolicy": "answerlens.config",
    "FLAG_RULES_VERSION": "answerlens.second_opinion.flags",
    "Flag": "answerlens.second_opinion.models",
    "FlagCode": "answerlens.second_opinion.models",
    "OpinionCounts": "answerlens.second_opinion.counts",
    "RequirementOpinion": "answerlens.second_opinion.models",
    "SecondOpinion": "answerlens.second_opinion.models",
    "StrictChange": "answerlens.second_opinion.models",
    "StrictOutcome": "answerlens.second_opinion.models",
    "TypedEvidence": "answerlens.second_opinion.models",
    "VerifierNote": "answerlens.second_opinion.models",
    "VerifierState": "answerlens.second_opinion.models",
    "badge": "answerlens.second_opinion.badges",
    "count_opinions": "answerlens.second_opinion.counts",
    "flag_requirement": "answerlens.second_opinion.flags",
    "flagged_refs": "answerlens.second_opinion.badges",
    "flags_by_ref": "answerlens.second_opinion.badges",
    "output_document": "answerlens.second_opinion.document",
    "second_opinion_for": "answerlens.second_opinion.opinion",
    "split_document": "answerlens.second_opinion.document",
    "strict_outcome": "answerlens.second_opinion.strict",
    "strict_statuses": "answerlens.second_opinion.strict",
    "verifier_agrees": "answerlens.second_opinion.badges",
    "verify_document": "answerlens.second_opinion.document",
    "verify_second_opinion": "answerlens.second_opinion.verification",
}
"""Where each public name lives."""


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


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
