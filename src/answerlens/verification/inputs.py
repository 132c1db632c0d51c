"""What a report's embedded data must satisfy, by field: an assessment's question, draft and context hash to its
recorded inputs and it verifies (every citation decision and span re-derived from the embedded context, the
second opinion and its strict view too); a trial result reads back as recorded, its summary and gates follow
from its samples, and every sample's assessment verifies."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from uuid import UUID

from pydantic import ValidationError

from answerlens.assessment import AnswerabilityAssessment
from answerlens.audit import sha256_text
from answerlens.citations import label_sites, printed_record_ids
from answerlens.records import ContextFormat, MemoryBundle
from answerlens.render import context_format_of
from answerlens.report.embedded import AssessmentData, SweepData, TrialData
from answerlens.second_opinion.document import KEY, split_document
from answerlens.verification.assessment import verify_assessment
from answerlens.verification.notes import Notes, assessment_notes
from answerlens.verification.opinion import verify_second_opinion


def input_problems(data: AssessmentData) -> list[str]:
    """The question, draft and context must be the ones assessed (their hashes are in ``evaluation_id``)."""
    recorded = data.document
    problems = []
    if sha256_text(data.question) != recorded.get("query_sha256"):
        problems.append("question: not the question assessed (its sha256 differs from query_sha256)")
    if data.answer is not None:
        if recorded.get("answer_sha256") is None:
            problems.append("answer: the assessment checked no draft answer")
        elif sha256_text(data.answer) != recorded.get("answer_sha256"):
            problems.append("answer: not the draft assessed (its sha256 differs from answer_sha256)")
    if data.context != data.context.strip() or sha256_text(data.context) != recorded.get("context_sha256"):
        problems.append("context: not the exact context assessed (its sha256 differs from context_sha256)")
    return problems


def assessment_problems(data: AssessmentData, *, bundle: MemoryBundle | None = None) -> tuple[str, ...]:
    """Every problem of an assessment report's data; ``bundle`` (the one assessed) adds its own checks."""
    problems = input_problems(data)
    audited, opinion, view = split_document(data.document)
    problems += view
    if bundle is not None and bundle.exact_context != data.context:
        problems.append("context: not the exact context of the bundle given")
    fmt, unknown = format_of(data, audited)
    problems += unknown
    against = bundle if bundle is not None else citable_context(data, audited, fmt)
    problems += verify_assessment(audited, bundle=against).problems
    if KEY in data.document:
        problems += verify_second_opinion(opinion, audited, bundle=bundle)
    return tuple(problems)


def format_of(data: AssessmentData, audited: Mapping[str, Any]) -> tuple[ContextFormat | None, list[str]]:
    """The format to re-derive citations in: the one the context's header names (the renderers write it), which a
    stated format must agree with. Neither, for a context something is cited from, is a problem: its citations
    cannot be re-derived, and the report must not pass as if they were."""
    header = context_format_of(data.context)
    stated = data.context_format
    if stated is not None and header is not None and stated != header:
        return header, [f"context_format: {stated.value!r} but the context's header is the {header.value} "
                        "format's; citations were re-derived in the format the header names"]
    fmt = header or stated
    printed = [other for other in ContextFormat if label_sites(data.context, other, cited_reader=True)]
    if fmt is not None and printed and fmt not in printed:
        return fmt, [f"context: its header names the {fmt.value} format but its records are printed in the "
                     f"{printed[0].value} format, so its citations cannot be re-derived: NOT VERIFIED"]
    cites = any(item.get("evidence_refs") or item.get("citations") for item in _requirements(audited))
    if fmt is None and cites:
        return None, ["context_format: unknown, and the embedded context has no header naming one, so its "
                      "citations cannot be re-derived: NOT VERIFIED"]
    return fmt, []


def _requirements(audited: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    items = audited.get("requirements")
    return [item for item in items if isinstance(item, Mapping)] if isinstance(items, list) else []


def citable_context(data: AssessmentData, audited: Mapping[str, Any],
                    fmt: ContextFormat | None = None) -> MemoryBundle | None:
    """The embedded context as a bundle to re-derive citations against, in ``fmt`` (default: the stated format,
    else the header's). Its references are the tokens the assessment resolved (decisions and kept references):
    in the auditable format each printed record id names itself; in the others which memory a reference names is
    not in the context, so only the bundle checks it. None when there is no format or the assessment does not
    read."""
    fmt = fmt or data.context_format or context_format_of(data.context)
    if fmt is None:
        return None
    try:
        typed = AnswerabilityAssessment.model_validate(audited)
    except ValidationError:
        return None
    references: dict[str, UUID] = {}
    if fmt == ContextFormat.AUDITABLE:
        references = {token: UUID(token) for token in printed_record_ids(data.context) if _is_uuid(token)}
    else:
        for requirement in typed.requirements:
            for decision in requirement.citations:
                if decision.memory_id is not None:
                    references.setdefault(decision.normalized, decision.memory_id)
            for ref, memory_id in zip(requirement.evidence_refs, requirement.evidence_ids, strict=False):
                references.setdefault(ref, memory_id)
    return MemoryBundle(context_format=fmt, context_references=references, rendered_context=data.context)


def _is_uuid(token: str) -> bool:
    try:
        return str(UUID(token)) == token
    except ValueError:
        return False


def report_notes(report: AssessmentData | TrialData | SweepData, *, bundle: MemoryBundle | None) -> Notes:
    """What verify says beside its verdict of a report's data: the replay marks of every assessment in it, then
    the caveats (provenance no hash covers; for a reader or compact context verified without its bundle, that which
    memory a reference names was taken as recorded)."""
    if isinstance(report, TrialData | SweepData):
        samples = report.result.get("samples") if isinstance(report, TrialData) else report.sweep.get("samples")
        found = [(f"samples[{index}] ", sample.get("assessment")) for index, sample in
                 enumerate(samples if isinstance(samples, list) else []) if isinstance(sample, Mapping)]
    else:
        found = [("", split_document(report.document)[0])]
    notes = assessment_notes(found)
    if isinstance(report, AssessmentData) and bundle is None:
        fmt = context_format_of(report.context) or report.context_format
        if fmt in (ContextFormat.READER, ContextFormat.COMPACT) and any(
                item.get("evidence_refs") for item in _requirements(report.document)):
            notes += Notes(caveats=(f"which memory each reference names was taken as recorded (a {fmt.value} "
                                    "context does not print it): pass --bundle to check it",))
    return notes
