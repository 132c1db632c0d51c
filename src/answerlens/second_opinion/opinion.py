"""``second_opinion_for``: typed evidence, deterministic flags and the claim verifier on every requirement of an
assessment, stored beside it with its own hashes.

How a strict result is represented: the assessment is never changed. It stays the audited, model-derived one
(``assessment_sha256``, ``evaluation_id`` and ``verify_assessment`` exactly as upstream's), and the strict verdict,
action and the list of changed requirements live in the opinion's ``strict`` block, covered by
``opinion_sha256``. ``second_opinion.document`` turns the pair into the printed view whose top-level ``verdict``
and ``recommended_action`` are the strict ones, and back again for verification.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from answerlens.assessment import AnswerabilityAssessment
from answerlens.audit import sha256_text
from answerlens.claims.audit import configuration_sha256 as verifier_configuration_sha256
from answerlens.claims.verifier import ClaimVerifier
from answerlens.config import EvidencePolicy
from answerlens.loading import load_bundle
from answerlens.records import MemoryBundle
from answerlens.second_opinion.audit import opinion_id, opinion_sha256
from answerlens.second_opinion.evidence import evidence_as_of, packed_records, typed_evidence
from answerlens.second_opinion.flags import CHECKED_STATUSES, FLAG_RULES_VERSION, flag_requirement, needs_complete_set
from answerlens.second_opinion.models import (
    SECOND_OPINION_SCHEMA_VERSION,
    RequirementOpinion,
    SecondOpinion,
    VerifierNote,
    VerifierState,
)
from answerlens.second_opinion.nli import VerifierTarget, verify_targets
from answerlens.second_opinion.scope import requirement_scope
from answerlens.second_opinion.strict import strict_outcome


async def second_opinion_for(
    assessment: AnswerabilityAssessment,
    bundle: Any,
    question: str,
    *,
    verifier: ClaimVerifier | None = None,
    policy: EvidencePolicy | str | None = None,
) -> SecondOpinion:
    """The second opinion on ``assessment`` of ``question`` over ``bundle`` (anything ``load_bundle`` reads).

    ``verifier`` (a ``ClaimVerifier``, e.g. with an injected scorer) is run on each supported or conflicting
    requirement; a missing model is noted, never raised. ``policy="strict"`` adds the strict outcome (pass
    ``config.evidence_policy``). A question or bundle other than the ones assessed is a ``ValueError``.
    """
    if not isinstance(bundle, MemoryBundle):
        bundle = load_bundle(bundle)
    check_inputs(assessment, bundle, question)
    requirements = flagged_requirements(assessment, bundle, question)
    note = VerifierNote(state=VerifierState.NOT_REQUESTED)
    if verifier is not None:
        targets = [
            VerifierTarget(index, item.requirement, tuple(evidence.memory_id for evidence in item.typed_evidence),
                           needs_complete_set(item.flags))
            for index, item in enumerate(requirements) if item.status in CHECKED_STATUSES
        ]
        verified = await verify_targets(verifier, bundle, targets)
        note = verified.note
        requirements = tuple(item.model_copy(update={"verifier": verified.results[index],
                                                     "verifier_unread": verified.unread.get(index, ())})
                             if index in verified.results else item for index, item in enumerate(requirements))
    return seal(
        question=question.strip(),
        assessment=assessment,
        requirements=requirements,
        verifier_note=note,
        verifier_configuration_sha256=None if verifier is None else verifier_configuration_sha256(verifier.config),
        policy=EvidencePolicy(policy) if policy is not None else EvidencePolicy.STANDARD,
        evidence_as_of=evidence_as_of(bundle),
    )


def check_inputs(assessment: AnswerabilityAssessment, bundle: MemoryBundle, question: str) -> None:
    """The question and the bundle must be the ones assessed (their hashes are in the assessment)."""
    if sha256_text(question.strip()) != assessment.query_sha256:
        raise ValueError("the question is not the one assessed (its sha256 differs from query_sha256)")
    if sha256_text(bundle.exact_context) != assessment.context_sha256:
        raise ValueError("the bundle is not the one assessed (its exact context differs from context_sha256)")


def flagged_requirements(assessment: AnswerabilityAssessment, bundle: MemoryBundle,
                         question: str) -> tuple[RequirementOpinion, ...]:
    """Typed evidence and flags for every requirement, in order (no verifier)."""
    records = packed_records(bundle)
    as_of = evidence_as_of(bundle)
    opinions = []
    for item in assessment.requirements:
        evidence = typed_evidence(item.evidence_refs, item.evidence_ids, records)
        scope = requirement_scope(item.requirement, question)
        opinions.append(RequirementOpinion(
            requirement=item.requirement, status=item.status, typed_evidence=evidence,
            flags=flag_requirement(item.requirement, item.status, evidence, scope, as_of),
        ))
    return tuple(opinions)


def seal(*, question: str, assessment: AnswerabilityAssessment, requirements: tuple[RequirementOpinion, ...],
         verifier_note: VerifierNote, verifier_configuration_sha256: str | None, policy: EvidencePolicy,
         evidence_as_of: datetime | None) -> SecondOpinion:
    """The stored opinion: strict outcome (strict policy only), ``opinion_id`` and ``opinion_sha256``."""
    fields: dict[str, Any] = {
        "schema_version": SECOND_OPINION_SCHEMA_VERSION,
        "question": question,
        "assessment_evaluation_id": assessment.evaluation_id,
        "assessment_sha256": assessment.assessment_sha256,
        "flag_rules_version": FLAG_RULES_VERSION,
        "verifier_configuration_sha256": verifier_configuration_sha256,
        "policy": policy,
        "evidence_as_of": evidence_as_of,
        "requirements": requirements,
        "verifier_note": verifier_note,
        "strict": strict_outcome(requirements) if policy == EvidencePolicy.STRICT else None,
    }
    unsealed = SecondOpinion(**fields, opinion_id="", opinion_sha256="")
    dump = unsealed.model_dump(mode="json")
    identity = opinion_id(dump)
    dump["opinion_id"] = identity
    return unsealed.model_copy(update={"opinion_id": identity, "opinion_sha256": opinion_sha256(dump)})
