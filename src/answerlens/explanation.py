"""Plain-language explanations of an assessment, built only from its data (used by the CLI and the app)."""

from __future__ import annotations

from answerlens.assessment import AnswerabilityAssessment, AnswerabilityRequirement
from answerlens.audit import HASH_COVERAGE
from answerlens.citations import CitationDecision, Decision, DiscardReason
from answerlens.verdict import AnswerabilityStatus

REASON_TEXT = {
    DiscardReason.UNKNOWN_REFERENCE: "not a citable reference in this context",
    DiscardReason.DUPLICATE_MEMORY: "cites a memory this requirement already cites",
    DiscardReason.EMPTY: "empty token",
}

HASH_FIELDS = (
    "evaluation_id",
    "assessment_sha256",
    "query_sha256",
    "context_sha256",
    "answer_sha256",
    "configuration_sha256",
    "prompt_sha256",
    "raw_output_sha256",
    "provenance_sha256",
)


def why(assessment: AnswerabilityAssessment, *, first: int = 0) -> str:
    """A paragraph saying which requirements are supported, missing or conflicting, and what was discarded;
    requirements are numbered from ``first`` (the CLI keeps PRME's 0-based indices, the app counts from 1)."""
    reqs = assessment.requirements
    if not assessment.model_called:
        return (
            "No model was called: the context holds no citable evidence, so the verdict is insufficient "
            "and the action is to abstain."
        )
    parts = [
        f"The model split the question into {len(reqs)} requirement{'s' if len(reqs) != 1 else ''}; "
        f"the verdict {assessment.verdict.value} (action {assessment.recommended_action.value}) follows from "
        "their final statuses."
    ]
    supported = [r for r in reqs if r.status == AnswerabilityStatus.SUPPORTED]
    if supported:
        cited = (f"{_quote(r)} by {', '.join(r.evidence_refs)}" for r in supported)
        parts.append("Supported: " + "; ".join(cited) + ".")
    conflicting = [r for r in reqs if r.status == AnswerabilityStatus.CONFLICTING]
    if conflicting:
        disagreeing = (f"{_quote(r)} ({', '.join(r.evidence_refs)} disagree)" for r in conflicting)
        parts.append("Conflicting: " + "; ".join(disagreeing) + ".")
    missing = [r for r in reqs if r.status == AnswerabilityStatus.UNSUPPORTED]
    if missing:
        parts.append("Missing: " + "; ".join(_missing(r) for r in missing) + ".")
    discarded = [
        f"{citation.normalized or repr(citation.token)} in requirement {index + first} ({reason_text(citation)})"
        for index, r in enumerate(reqs)
        for citation in r.citations
        if citation.decision == Decision.DISCARDED and citation.reason is not None
    ]
    if discarded:
        parts.append("Discarded citations: " + "; ".join(discarded) + ".")
    return " ".join(parts)


def reason_text(citation: CitationDecision) -> str:
    """Why a token was discarded; a token repeated verbatim is skipped silently (no citation error)."""
    if citation.reason == DiscardReason.DUPLICATE_MEMORY and citation.error is None:
        return "the same token again, skipped"
    return REASON_TEXT[citation.reason] if citation.reason else "discarded"


def _quote(requirement: AnswerabilityRequirement) -> str:
    return f"“{requirement.requirement}”"


def _missing(requirement: AnswerabilityRequirement) -> str:
    claimed = requirement.claimed_status
    if claimed is not None and claimed != AnswerabilityStatus.UNSUPPORTED:
        had = "fewer than 2 valid citations" if claimed == AnswerabilityStatus.CONFLICTING else "no valid citation"
        return f"{_quote(requirement)} (the model claimed {claimed.value}, but it had {had}, so it was downgraded)"
    return _quote(requirement)


def report_lines(assessment: AnswerabilityAssessment) -> list[str]:
    """The CLI's readable report."""
    meta = assessment.provider_metadata
    source = "recorded response" if meta is not None and meta.recorded else "live model"
    if not assessment.model_called:
        source = "no model call"
    lines = [
        f"verdict: {assessment.verdict.value}    action: {assessment.recommended_action.value}",
        f"provider: {assessment.provider}    model: {assessment.model}    ({source})",
    ]
    if meta is not None and meta.recording is not None:
        if meta.recording.mark:
            lines.insert(1, f"WARNING: {meta.recording.mark}")
        lines.append(f"recording: {meta.recording.note}")
    lines.append("")
    for index, requirement in enumerate(assessment.requirements):
        claimed = requirement.claimed_status
        status = requirement.status.value
        if claimed is not None and claimed != requirement.status:
            status += f" (claimed {claimed.value})"
        lines.append(f"[{index}] {status}: {requirement.requirement}")
        for citation in requirement.citations:
            if citation.decision == Decision.ACCEPTED:
                lines.append(f"      accepted  {citation.normalized} -> {citation.memory_id}")
            else:
                reason = citation.reason.value if citation.reason else "discarded"
                lines.append(f"      discarded {citation.normalized or repr(citation.token)} ({reason})")
        if not requirement.citations and requirement.evidence_refs:
            lines.append(f"      cites {', '.join(requirement.evidence_refs)}")
        lines.append(f"      {requirement.explanation}")
    if assessment.citation_errors:
        lines += ["", "citation errors:", *(f"  {error}" for error in assessment.citation_errors)]
    lines += ["", "why: " + why(assessment), "", "hashes:"]
    lines += [f"  {name:<21} {getattr(assessment, name)}" for name in HASH_FIELDS]
    lines.append(f"  {'prompt_version':<21} {assessment.prompt_version}")
    lines += ["", "what each hash covers:",
              *(f"  {name:<21} {HASH_COVERAGE[name]}" for name in HASH_FIELDS if name in HASH_COVERAGE)]
    return lines
