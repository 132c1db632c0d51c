"""Verifying a stored second opinion against its assessment: its hashes, its inputs, and everything that can be
re-derived without a model (typed evidence with the bundle; flags and the strict outcome from its own data and
the question; each verifier result's own hashes). Every problem names the field."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from answerlens.audit import sha256_text
from answerlens.claims.audit import recorded_hash_problems
from answerlens.errors import json_path
from answerlens.records import MemoryBundle
from answerlens.second_opinion.audit import opinion_id, opinion_sha256
from answerlens.second_opinion.document import KEY, split_document
from answerlens.second_opinion.evidence import evidence_as_of, packed_records, typed_evidence
from answerlens.second_opinion.flags import FLAG_RULES_VERSION, flag_requirement
from answerlens.second_opinion.models import RequirementOpinion, SecondOpinion
from answerlens.second_opinion.scope import requirement_scope
from answerlens.second_opinion.strict import strict_outcome
from answerlens.verification.assessment import verify_assessment

PREFIX = "second_opinion"


def verify_second_opinion(opinion: SecondOpinion | Mapping[str, Any], assessment: BaseModel | Mapping[str, Any], *,
                          bundle: MemoryBundle | None = None) -> tuple[str, ...]:
    """Every problem found (empty: the opinion is intact and belongs to this assessment)."""
    data = opinion.model_dump(mode="json") if isinstance(opinion, BaseModel) else opinion
    audited = assessment.model_dump(mode="json") if isinstance(assessment, BaseModel) else assessment
    if not isinstance(data, Mapping):
        return (f"{PREFIX}: not a second opinion (expected a JSON object)",)
    try:
        typed = SecondOpinion.model_validate(data)
    except ValidationError as exc:
        return tuple(f"{json_path(PREFIX, error['loc'])}: {error['msg']}"
                     for error in exc.errors(include_url=False, include_input=False))
    problems = [*_hash_problems(data), *_input_problems(typed, audited)]
    problems += _requirement_problems(typed, audited.get("requirements"))
    problems += _derived_problems(typed)
    if bundle is not None:
        problems += _bundle_problems(typed, audited, bundle)
    return tuple(problems)


def _hash_problems(data: Mapping[str, Any]) -> list[str]:
    problems = []
    expected_id = opinion_id(data)
    if data["opinion_id"] != expected_id:
        problems.append(f"{PREFIX}.opinion_id: {data['opinion_id']} does not match its inputs ({expected_id})")
    expected_sha = opinion_sha256(data)
    if data["opinion_sha256"] != expected_sha:
        problems.append(f"{PREFIX}.opinion_sha256: {data['opinion_sha256']} does not match the recorded opinion "
                        f"({expected_sha})")
    return problems


def _input_problems(opinion: SecondOpinion, audited: Mapping[str, Any]) -> list[str]:
    problems = []
    if opinion.assessment_evaluation_id != audited.get("evaluation_id"):
        problems.append(f"{PREFIX}.assessment_evaluation_id: not this assessment's evaluation_id")
    if opinion.assessment_sha256 != audited.get("assessment_sha256"):
        problems.append(f"{PREFIX}.assessment_sha256: not this assessment's assessment_sha256")
    if sha256_text(opinion.question) != audited.get("query_sha256"):
        problems.append(f"{PREFIX}.question: not the question assessed (its sha256 differs from query_sha256)")
    if (opinion.strict is not None) != (opinion.policy.value == "strict"):
        problems.append(f"{PREFIX}.strict: must be present exactly when the policy is strict")
    return problems


def _requirement_problems(opinion: SecondOpinion, requirements: Any) -> list[str]:
    if not isinstance(requirements, Sequence) or len(requirements) != len(opinion.requirements):
        return [f"{PREFIX}.requirements: not one per requirement of the assessment"]
    problems = []
    for index, (mine, theirs) in enumerate(zip(opinion.requirements, requirements, strict=True)):
        where = f"{PREFIX}.requirements[{index}]"
        if not isinstance(theirs, Mapping):
            problems.append(f"{where}: the assessment's requirement is malformed")
            continue
        if mine.requirement != theirs.get("requirement") or mine.status.value != theirs.get("status"):
            problems.append(f"{where}: requirement or status differs from the assessment's")
        refs = [item.ref for item in mine.typed_evidence]
        ids = [str(item.memory_id) for item in mine.typed_evidence]
        if refs != list(theirs.get("evidence_refs", [])) or ids != [str(i) for i in theirs.get("evidence_ids", [])]:
            problems.append(f"{where}.typed_evidence: not the requirement's accepted citations")
        if mine.verifier is not None:
            problems += [f"{where}.verifier: {problem}" for problem in recorded_hash_problems(mine.verifier)]
            if mine.verifier.claim != mine.requirement:
                problems.append(f"{where}.verifier.claim: not the requirement's text")
    return problems


def _derived_problems(opinion: SecondOpinion) -> list[str]:
    """Flags (when made by these rules) and the strict outcome, re-derived from the opinion's own data."""
    problems = []
    if opinion.flag_rules_version == FLAG_RULES_VERSION:
        for index, item in enumerate(opinion.requirements):
            if _flags(opinion, item) != item.flags:
                problems.append(f"{PREFIX}.requirements[{index}].flags: differ from the flags its typed evidence "
                                f"and the question give")
    if opinion.strict is not None and opinion.strict != strict_outcome(opinion.requirements):
        problems.append(f"{PREFIX}.strict: does not follow from the flags and verifier results")
    return problems


def _flags(opinion: SecondOpinion, item: RequirementOpinion) -> tuple[Any, ...]:
    scope = requirement_scope(item.requirement, opinion.question)
    return flag_requirement(item.requirement, item.status, item.typed_evidence, scope, opinion.evidence_as_of)


def _bundle_problems(opinion: SecondOpinion, audited: Mapping[str, Any], bundle: MemoryBundle) -> list[str]:
    if sha256_text(bundle.exact_context) != audited.get("context_sha256"):
        return []  # verify_assessment reports the wrong bundle once
    problems = []
    if opinion.evidence_as_of != evidence_as_of(bundle):
        problems.append(f"{PREFIX}.evidence_as_of: differs from the bundle's latest record time")
    records = packed_records(bundle)
    for index, item in enumerate(opinion.requirements):
        refs = [evidence.ref for evidence in item.typed_evidence]
        ids = [evidence.memory_id for evidence in item.typed_evidence]
        try:
            fresh = typed_evidence(refs, ids, records)
        except ValueError as exc:
            problems.append(f"{PREFIX}.requirements[{index}].typed_evidence: {exc}")
            continue
        for number, (kept, derived) in enumerate(zip(item.typed_evidence, fresh, strict=True)):
            if kept != derived:
                names = [name for name in type(kept).model_fields if getattr(kept, name) != getattr(derived, name)]
                problems.append(f"{PREFIX}.requirements[{index}].typed_evidence[{number}]: {', '.join(names)} "
                                "differ from the bundle's record")
    return problems


def verify_document(document: Mapping[str, Any], *, bundle: MemoryBundle | None = None) -> tuple[str, ...]:
    """Problems of the assessment (``verify_assessment``), of its second opinion, and of the strict view."""
    assessment, opinion, problems = split_document(document)
    problems += verify_assessment(assessment, bundle=bundle).problems
    if KEY in document:  # even a null one: a document that names a second opinion must carry a valid one
        problems += verify_second_opinion(opinion, assessment, bundle=bundle)
    return tuple(problems)
