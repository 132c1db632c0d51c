"""Verifying a stored assessment: its hashes, the verdict its statuses imply, and everything its raw reply
determines (claimed statuses, cited tokens, decisions, downgrades, citation errors), optionally against the
exact context of the bundle it was assessed over. Works on answerlens' assessments and on PRME's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from uuid import UUID

from pydantic import BaseModel, ConfigDict, ValidationError

from answerlens.assessment import AnswerabilityAssessment
from answerlens.audit import (
    IDENTITY_FIELDS,
    PROVENANCE_FIELDS,
    assessment_sha256,
    evaluation_id,
    provenance,
    provenance_sha256,
    sha256_text,
)
from answerlens.citations import check_reply, valid_references
from answerlens.errors import json_path
from answerlens.prompts import RawAssessment, ReplyError, parse_reply
from answerlens.recording import RecordingBinding, ReplyOrigin
from answerlens.records import ContextFormat, MemoryBundle
from answerlens.verdict import AnswerabilityStatus, derive_verdict


class VerificationReport(BaseModel):
    """What ``verify_assessment`` found; ``ok`` when ``problems`` is empty."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    ok: bool
    problems: tuple[str, ...] = ()
    evaluation_id: str | None = None
    """Recomputed from the recorded input hashes."""
    assessment_sha256: str | None = None
    """Recomputed from the recorded output."""
    context_checked: bool = False
    """Whether every cited reference was resolved in an exact context (a bundle was given); without one, only the
    assessment's own consistency is checked, and which memory a reference names is taken as recorded."""


_REQUIRED = (
    *IDENTITY_FIELDS,
    "verdict",
    "recommended_action",
    "requirements",
    "citation_errors",
    "reasoning",
    "evaluation_id",
    "assessment_sha256",
)


def verify_assessment(assessment: BaseModel | Mapping[str, Any], *,
                      bundle: MemoryBundle | None = None) -> VerificationReport:
    """Recompute ``evaluation_id``, ``assessment_sha256``, verdict, action, missing and conflicts; check every
    field answerlens adds against the raw reply; with ``bundle``, re-derive every decision and span from its
    exact context. Each problem names the field."""
    data: Mapping[str, Any] = (
        assessment.model_dump(mode="json") if isinstance(assessment, BaseModel) else assessment
    )
    if not isinstance(data, Mapping):
        return VerificationReport(ok=False, problems=("not an assessment: expected a JSON object",))
    missing = [field for field in _REQUIRED if field not in data]
    if missing:
        return VerificationReport(ok=False, problems=(f"not an assessment: missing {', '.join(missing)}",))
    requirements = data["requirements"]
    try:
        statuses = [AnswerabilityStatus(item["status"]) for item in requirements]
        recomputed_id = evaluation_id(data)
        recomputed_sha = assessment_sha256(
            evaluation_id=data["evaluation_id"],
            verdict=data["verdict"],
            recommended_action=data["recommended_action"],
            requirements=requirements,
            citation_errors=data["citation_errors"],
            reasoning=data["reasoning"],
        )
    except (KeyError, TypeError, ValueError) as exc:
        return VerificationReport(ok=False, problems=(f"malformed requirements: {exc!r}",))
    problems = [
        *_hash_problems(data, recomputed_id, recomputed_sha),
        *_verdict_problems(data, statuses),
        *_requirement_problems(requirements),
        *_provenance_problems(data),
    ]
    typed, shape = _typed(data)
    problems += shape
    if bundle is not None:
        mismatch = _bundle_problems(data, bundle)
        problems += mismatch or reference_problems(requirements, valid_references(bundle, bundle.exact_context))
    if typed is not None and not any(problem.startswith("context_sha256") for problem in problems):
        problems += _reply_problems(typed, bundle)
    if typed is not None:
        problems += _origin_problems(typed) + _recording_problems(typed)
    return VerificationReport(ok=not problems, problems=tuple(problems), evaluation_id=recomputed_id,
                              assessment_sha256=recomputed_sha, context_checked=bundle is not None)


def _hash_problems(data: Mapping[str, Any], recomputed_id: str, recomputed_sha: str) -> list[str]:
    problems = []
    if recomputed_id != data["evaluation_id"]:
        problems.append(f"evaluation_id {data['evaluation_id']} does not match the input hashes ({recomputed_id})")
    if recomputed_sha != data["assessment_sha256"]:
        problems.append(
            f"assessment_sha256 {data['assessment_sha256']} does not match the recorded output ({recomputed_sha})"
        )
    raw_text, raw_sha = data.get("raw_output_text"), data.get("raw_output_sha256")
    if isinstance(raw_text, str) and raw_sha is not None and sha256_text(raw_text) != raw_sha:
        problems.append("raw_output_sha256 does not match the recorded raw_output_text")
    return problems


def _provenance_problems(data: Mapping[str, Any]) -> list[str]:
    recorded = data.get("provenance_sha256")
    if recorded is None:
        return []
    fresh = provenance_sha256(provenance(data))
    if fresh == recorded:
        return []
    return [f"provenance_sha256 {recorded} does not match where the reply is recorded to come from "
            f"({', '.join(PROVENANCE_FIELDS)}: {fresh})"]


def provenance_note(assessment: BaseModel | Mapping[str, Any]) -> str | None:
    """What verify says of an assessment of ours whose provenance no hash covers (made before
    ``provenance_sha256``, or with it removed); None when it is covered, or the assessment is PRME's own."""
    data = assessment.model_dump(mode="json") if isinstance(assessment, BaseModel) else assessment
    if not isinstance(data, Mapping) or data.get("provenance_sha256") is not None:
        return None
    ours = any(data.get(name) is not None for name in ("provider_metadata", "raw_output_text", "raw_output"))
    if not ours:
        return None
    return ("provenance_sha256 absent: provider, model, origin and recording are covered by no hash "
            "(made before answerlens recorded it, or removed)")


def _verdict_problems(data: Mapping[str, Any], statuses: list[AnswerabilityStatus]) -> list[str]:
    problems = []
    if not statuses:
        problems.append("an assessment needs at least one requirement")
    else:
        verdict, action = derive_verdict(statuses)
        if data["verdict"] != verdict.value:
            problems.append(f"verdict {data['verdict']!r} does not follow from the statuses ({verdict.value!r})")
        if data["recommended_action"] != action.value:
            problems.append(
                f"recommended_action {data['recommended_action']!r} does not follow from the statuses "
                f"({action.value!r})"
            )
    for name, status in (("missing_information", "unsupported"), ("conflicts", "conflicting")):
        expected = [item["requirement"] for item in data["requirements"] if item["status"] == status]
        recorded = data.get(name, [])
        if not isinstance(recorded, (list, tuple)):
            problems.append(f"{name} is not a list")
        elif list(recorded) != expected:
            problems.append(f"{name} does not list exactly the {status} requirements")
    return problems


def _requirement_problems(requirements: Sequence[Mapping[str, Any]]) -> list[str]:
    problems = []
    for index, item in enumerate(requirements):
        refs, ids = list(item["evidence_refs"]), list(item["evidence_ids"])
        if len(refs) != len(ids):
            problems.append(f"requirement[{index}] has {len(refs)} evidence_refs but {len(ids)} evidence_ids")
        needed = {"supported": 1, "conflicting": 2}.get(item["status"], 0)
        if len(set(map(str, ids))) < needed:
            problems.append(f"requirement[{index}] is {item['status']} with fewer than {needed} distinct memories")
    return problems


def reference_problems(requirements: Sequence[Mapping[str, Any]], references: Mapping[str, UUID]) -> list[str]:
    """Every kept reference must resolve, in the exact context, to the memory recorded beside it, and no
    requirement may hold a memory twice: so a requirement's status is re-derived from the context even when the
    assessment carries no raw reply and no decisions (PRME's shape)."""
    problems = []
    for index, item in enumerate(requirements):
        seen: set[UUID] = set()
        for number, (ref, recorded) in enumerate(zip(item["evidence_refs"], item["evidence_ids"], strict=False)):
            resolved = references.get(ref) if isinstance(ref, str) else None
            if resolved is None:
                problems.append(f"requirements[{index}].evidence_refs[{number}]: {ref!r} does not resolve in the "
                                "exact context, so it supports nothing")
                continue
            if _uuid(recorded) != resolved:
                problems.append(f"requirements[{index}].evidence_ids[{number}]: {ref!r} names memory {resolved} in "
                                f"the exact context, not the recorded {recorded}")
            if resolved in seen:
                problems.append(f"requirements[{index}].evidence_refs[{number}]: cites memory {resolved} more "
                                "than once")
            seen.add(resolved)
    return problems


def _uuid(value: Any) -> UUID | None:
    try:
        return value if isinstance(value, UUID) else UUID(str(value))
    except ValueError:
        return None


def _typed(data: Mapping[str, Any]) -> tuple[AnswerabilityAssessment | None, list[str]]:
    """The assessment as our model; every unknown or ill-typed field is a problem named by its path."""
    try:
        return AnswerabilityAssessment.model_validate(data), []
    except ValidationError as exc:
        problems = []
        for error in exc.errors(include_url=False, include_input=False):
            where = json_path("$", error["loc"])
            if error["type"] == "extra_forbidden":
                problems.append(f"{where}: unknown field (not part of an assessment)")
            else:
                problems.append(f"{where}: {error['msg']}")
        return None, problems


def _reply_problems(assessment: AnswerabilityAssessment, bundle: MemoryBundle | None) -> list[str]:
    """What the raw reply determines, re-derived and compared field by field."""
    if not assessment.model_called and not assessment.hand_written:
        extra = [name for name in ("raw_output", "raw_output_text", "raw_output_sha256")
                 if getattr(assessment, name) is not None]
        extra += ["requirements[].citations"] * any(item.citations for item in assessment.requirements)
        return [f"{name}: present although no model was called" for name in extra]
    raw, problems = _raw_reply(assessment)
    if raw is None:
        return problems
    if len(raw.requirements) != len(assessment.requirements):
        return [*problems, f"requirements: {len(assessment.requirements)} recorded but the raw reply has "
                f"{len(raw.requirements)}"]
    if assessment.reasoning != raw.reasoning.strip():
        problems.append("reasoning: differs from the raw reply's")
    problems += _text_problems(assessment, raw)
    if bundle is not None:
        context = bundle.exact_context
        references = valid_references(bundle, context)
    else:
        context, references = "", _cited_references(assessment)
    return problems + _decision_problems(assessment, raw, bundle, context, references)


def _recording_problems(assessment: AnswerabilityAssessment) -> list[str]:
    """A replayed recording's binding must agree with the inputs assessed, or the result must say it was forced."""
    meta = assessment.provider_metadata
    recording = meta.recording if meta is not None else None
    if recording is None:
        return []
    if recording.binding is None:
        return [f"provider_metadata.recording.forced: says forced over {[f.value for f in recording.forced]} but "
                "the recording has no binding to differ from"] if recording.forced else []
    actual = RecordingBinding(query_sha256=assessment.query_sha256, answer_sha256=assessment.answer_sha256,
                              context_sha256=assessment.context_sha256, prompt_version=assessment.prompt_version,
                              prompt_sha256=assessment.prompt_sha256)
    differing = recording.binding.differences(actual)
    if tuple(recording.forced) == differing:
        return []
    where = "provider_metadata.recording.forced"
    if not differing:
        return [f"{where}: says forced over {[f.value for f in recording.forced]} but the binding matches the inputs"]
    return [f"{where}: the recording answered another {', '.join(f.value for f in differing)} but the result does "
            "not say it was forced"]


def _origin_problems(assessment: AnswerabilityAssessment) -> list[str]:
    """Where the reply came from must say one thing: a replay is recorded and names its recording; a live call
    has none (so a replay cannot drop its recording, and its marks, by calling itself live)."""
    meta = assessment.provider_metadata
    if meta is None:
        return []
    replay = "replay" in (assessment.provider, meta.engine)
    if meta.origin == ReplyOrigin.LIVE and (replay or meta.recording is not None):
        return [f"provider_metadata.origin: 'live' but {'the provider is replay' if replay else 'it names a recording'}"
                " (a replayed reply is recorded)"]
    if meta.origin == ReplyOrigin.RECORDED and meta.recording is None:
        return ["provider_metadata.recording: missing although the reply is recorded"]
    return []


def recording_mark(assessment: BaseModel | Mapping[str, Any]) -> str | None:
    """The warning an assessment's recording carries (forced or unbound replay), for verify's view; None if none."""
    try:
        typed = (assessment if isinstance(assessment, AnswerabilityAssessment)
                 else AnswerabilityAssessment.model_validate(assessment))
    except ValidationError:
        return None
    meta = typed.provider_metadata
    return meta.recording.mark if meta is not None and meta.recording is not None else None


def _raw_reply(assessment: AnswerabilityAssessment) -> tuple[RawAssessment | None, list[str]]:
    if assessment.raw_output_text is not None:
        try:
            raw = parse_reply(assessment.raw_output_text)
        except ReplyError as exc:
            return None, [f"raw_output_text: not a valid reply ({exc.reason})"]
        if assessment.raw_output is not None and raw.model_dump(mode="json") != assessment.raw_output:
            return raw, ["raw_output: does not match raw_output_text"]
        return raw, []
    if assessment.raw_output is not None:
        try:
            return RawAssessment.model_validate(assessment.raw_output), []
        except ValidationError:
            return None, ["raw_output: not a valid reply"]
    if assessment.provider_metadata is not None or any(r.claimed_status or r.citations
                                                       for r in assessment.requirements):
        return None, ["raw_output_text: missing, so the recorded decisions cannot be checked"]
    return None, []  # PRME's own assessments carry no raw reply, and so no decisions


def _text_problems(assessment: AnswerabilityAssessment, raw: RawAssessment) -> list[str]:
    problems = []
    for index, (item, said) in enumerate(zip(assessment.requirements, raw.requirements, strict=True)):
        if item.requirement != said.requirement.strip():
            problems.append(f"requirements[{index}].requirement: differs from the raw reply's")
        if item.explanation != said.explanation.strip():
            problems.append(f"requirements[{index}].explanation: differs from the raw reply's")
        if item.claimed_status is not None and item.claimed_status != said.status:
            problems.append(f"requirements[{index}].claimed_status: {item.claimed_status.value!r} but the raw "
                            f"reply says {said.status.value!r}")
    return problems


def _cited_references(assessment: AnswerabilityAssessment) -> dict[str, UUID]:
    """Without the bundle: the tokens the assessment itself says resolved, and to which memory."""
    references: dict[str, UUID] = {}
    for item in assessment.requirements:
        for decision in item.citations:
            if decision.memory_id is not None and decision.ref is not None:
                references.setdefault(decision.normalized, decision.memory_id)
    return references


def _bundle_problems(data: Mapping[str, Any], bundle: MemoryBundle) -> list[str]:
    if sha256_text(bundle.exact_context) != data["context_sha256"]:
        return ["context_sha256: the bundle given is not the one assessed (its exact context hashes differently)"]
    return []


def _decision_problems(assessment: AnswerabilityAssessment, raw: RawAssessment, bundle: MemoryBundle | None,
                       context: str, references: dict[str, UUID]) -> list[str]:
    """Re-run citation checking over the raw reply and compare every decision, status, ref and error."""
    fmt = bundle.context_format if bundle is not None else _format_of(assessment)
    shell = MemoryBundle(context_format=fmt, context_references=references if bundle is None else {})
    checked = check_reply(raw, bundle if bundle is not None else shell, context, references)
    problems = []
    for index, (item, result) in enumerate(zip(assessment.requirements, checked, strict=True)):
        where = f"requirements[{index}]"
        if len(item.citations) != len(result.decisions):
            problems.append(f"{where}.citations: {len(item.citations)} recorded, the raw reply cites "
                            f"{len(result.decisions)} token(s)")
            continue
        for number, (kept, fresh) in enumerate(zip(item.citations, result.decisions, strict=True)):
            fields = _differing(kept.model_dump(), fresh.model_dump(), spans=bundle is not None)
            problems += [f"{where}.citations[{number}].{name}: recorded {kept_value!r}, re-derived {fresh_value!r}"
                         for name, kept_value, fresh_value in fields]
        if item.status != result.status:
            problems.append(f"{where}.status: {item.status.value!r} does not follow from its citations "
                            f"({result.status.value!r})")
        if list(item.evidence_refs) != list(result.refs) or list(item.evidence_ids) != list(result.ids):
            problems.append(f"{where}.evidence_refs/evidence_ids: differ from the accepted citations")
    errors = [error for result in checked for error in result.errors]
    if list(assessment.citation_errors) != errors:
        problems.append("citation_errors: differ from the errors the citations produce")
    return problems


def _format_of(assessment: AnswerabilityAssessment) -> ContextFormat:
    # Brackets are stripped from tokens only in the reader format; the decisions show whether they were.
    for item in assessment.requirements:
        for decision in item.citations:
            if decision.token.strip().startswith("[") and decision.normalized != decision.token.strip():
                return ContextFormat.READER
    return ContextFormat.COMPACT


def _differing(kept: dict[str, Any], fresh: dict[str, Any], *, spans: bool) -> list[tuple[str, Any, Any]]:
    names = [name for name in kept if spans or name not in ("span", "line")]
    return [(name, kept[name], fresh[name]) for name in names if kept[name] != fresh[name]]


