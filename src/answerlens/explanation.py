"""Plain-language explanations of an assessment, built only from its data (used by the CLI and the app)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from answerlens.assessment import AnswerabilityAssessment, AnswerabilityRequirement
from answerlens.audit import HASH_COVERAGE
from answerlens.citations import CitationDecision, Decision, DiscardReason
from answerlens.verdict import AnswerabilityStatus, AnswerabilityVerdict

if TYPE_CHECKING:
    from answerlens.second_opinion.models import SecondOpinion

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


def why(assessment: AnswerabilityAssessment, opinion: SecondOpinion | None = None) -> str:
    """The deciding facts, in the data's own words: the verdict, then one or two sentences per requirement that
    decided it (what is missing or conflicting and why: the model's explanation, the discarded tokens and their
    reasons), the second opinion's flags and the strict policy's demotions; supporting requirements are listed
    once. Requirements are numbered from 1, as everywhere people read them. The app, the report and the command
    line all show this text."""
    if not assessment.model_called and assessment.raw_output is None:
        return (
            "No model was called: the context holds no citable evidence, so the verdict is insufficient "
            "and the action is to abstain."
        )
    numbered = list(enumerate(assessment.requirements, 1))
    by_status = {status: [(n, r) for n, r in numbered if r.status == status] for status in AnswerabilityStatus}
    supported = by_status[AnswerabilityStatus.SUPPORTED]
    conflicting = by_status[AnswerabilityStatus.CONFLICTING]
    missing = by_status[AnswerabilityStatus.UNSUPPORTED]
    verdict = assessment.verdict
    action = assessment.recommended_action.value.replace("_", " ")
    if verdict == AnswerabilityVerdict.ANSWERABLE:
        parts = [f"Answerable (action: {action}): every requirement is supported — {_cited(supported)}."]
    elif verdict == AnswerabilityVerdict.CONFLICTING:
        parts = [f"Conflicting (action: {action}): the records disagree on {_which(conflicting)}."]
        parts += [_conflict(n, r) for n, r in conflicting]
    else:
        lead = "only part of the question can be answered" if supported else "nothing the question needs is supported"
        parts = [f"{verdict.value.capitalize()} (action: {action}): {_which(missing)} "
                 f"{'is' if len(missing) == 1 else 'are'} missing, so {lead}."]
        parts += [_missing(n, r) for n, r in missing]
    if supported and verdict != AnswerabilityVerdict.ANSWERABLE:
        parts.append(f"Supported: {_cited(supported)}.")
    if verdict == AnswerabilityVerdict.CONFLICTING and missing:
        parts.append(f"Also missing: {_which(missing)}.")
    deciding = {n for n, _ in (numbered if verdict == AnswerabilityVerdict.ANSWERABLE else
                               conflicting if verdict == AnswerabilityVerdict.CONFLICTING else missing)}
    others = sum(1 for n, r in numbered if n not in deciding for c in r.citations if c.decision == Decision.DISCARDED)
    if others:
        parts.append(f"{others} other discarded token{'s' if others != 1 else ''} did not change the verdict "
                     "(the table lists each).")
    if opinion is not None:
        parts += _opinion(opinion)
    return " ".join(parts)


def reason_text(citation: CitationDecision) -> str:
    """Why a token was discarded; a token repeated verbatim is skipped silently (no citation error)."""
    if citation.reason == DiscardReason.DUPLICATE_MEMORY and citation.error is None:
        return "the same token again, skipped"
    return REASON_TEXT[citation.reason] if citation.reason else "discarded"


def error_parts(error: str) -> tuple[int | None, str]:
    """A citation error as people read it: the 1-based requirement it belongs to and the rest of PRME's text.

    PRME's strings count requirements from 0 and are hashed, so JSON keeps them verbatim; this is for display.
    """
    match = _ERROR_PREFIX.match(error)
    if match is None:
        return None, error
    return int(match.group(1)) + 1, error[match.end():]


def error_text(error: str) -> str:
    """A citation error for display: ``requirement[1] cited …`` reads ``requirement 2: cited …``."""
    number, text = error_parts(error)
    return text if number is None else f"requirement {number}: {text}"


_ERROR_PREFIX = re.compile(r"requirement\[(\d+)\] ")


def _which(items: list[tuple[int, AnswerabilityRequirement]]) -> str:
    numbers = [str(n) for n, _ in items]
    if not numbers:  # only when the stored verdict does not follow from the statuses (a tampered file)
        return "no requirement"
    if len(numbers) == 1:
        return f"requirement {numbers[0]}"
    return f"requirements {', '.join(numbers[:-1])} and {numbers[-1]}"


def _cited(items: list[tuple[int, AnswerabilityRequirement]]) -> str:
    return "; ".join(f"requirement {n} {_quote(r)} ({', '.join(r.evidence_refs)})" for n, r in items)


def _quote(requirement: AnswerabilityRequirement) -> str:
    return f"“{requirement.requirement}”"


def _said(requirement: AnswerabilityRequirement) -> str:
    text = requirement.explanation.strip()
    return f" The model: “{text}”" + ("" if text.endswith((".", "!", "?")) else ".") if text else ""


def _conflict(number: int, requirement: AnswerabilityRequirement) -> str:
    refs = " and ".join(requirement.evidence_refs)
    return f"Requirement {number} {_quote(requirement)}: {refs} disagree.{_said(requirement)}"


def _missing(number: int, requirement: AnswerabilityRequirement) -> str:
    """Why one requirement is missing: what the model claimed, what became of its citations, what it said."""
    claimed = requirement.claimed_status
    dropped = [f"{c.normalized or repr(c.token)} was discarded ({reason_text(c)})"
               for c in requirement.citations if c.decision == Decision.DISCARDED]
    kept = requirement.evidence_refs
    if claimed is None or claimed == AnswerabilityStatus.UNSUPPORTED:
        how = "the model marked it unsupported"
    else:
        needed = 2 if claimed == AnswerabilityStatus.CONFLICTING else 1
        valid = f"only {', '.join(kept)} {'is' if len(kept) == 1 else 'are'} valid" if kept else "no citation is valid"
        cited = "; ".join(dropped) if dropped else ("it cited nothing" if not kept else valid)
        if dropped:
            cited += f"; {valid}" if kept else ""
        how = (f"the model claimed {claimed.value}, but {cited}, and {claimed.value} needs {needed} valid "
               f"citation{'s' if needed != 1 else ''}, so it was downgraded")
    return f"Requirement {number} {_quote(requirement)}: {how}.{_said(requirement)}"


def _opinion(opinion: SecondOpinion) -> list[str]:
    """The second opinion's flags (one sentence) and the strict policy's demotions (one sentence)."""
    parts = []
    flags = [f"requirement {n}: {flag.code.value} on {', '.join(flag.refs)} ({flag.reason})"
             for n, item in enumerate(opinion.requirements, 1) for flag in item.flags]
    if flags:
        parts.append("The second opinion flags " + "; ".join(flags) + ".")
    strict = opinion.strict
    if strict is not None:
        verdict = f"{strict.verdict.value} (action: {strict.recommended_action.value.replace('_', ' ')})"
        if strict.changes:
            demoted = "; ".join(
                f"requirement {change.index + 1} {change.from_status.value} → {change.to_status.value}"
                for change in strict.changes)
            parts.append(f"The strict evidence policy demotes {demoted}, so the verdict is {verdict}.")
        else:
            parts.append(f"The strict evidence policy changes nothing: the verdict stays {verdict}.")
    return parts


def report_lines(assessment: AnswerabilityAssessment, opinion: SecondOpinion | None = None) -> list[str]:
    """The CLI's readable report; requirements are numbered from 1 and each shows its own citation errors. With a
    second opinion, its lines follow (and under the strict policy the first line shows the strict verdict)."""
    meta = assessment.provider_metadata
    source = "recorded response" if meta is not None and meta.recorded else "live model"
    if not assessment.model_called and assessment.raw_output is None:
        source = "no model call"
    lines = [
        f"verdict: {assessment.verdict.value}    action: {assessment.recommended_action.value}",
        f"provider: {assessment.provider}    model: {assessment.model}    ({source})",
    ]
    if meta is not None and meta.recording is not None:
        if meta.recording.mark:
            lines.insert(1, f"WARNING: {meta.recording.mark}")
        lines.append(f"recording: {meta.recording.note}")
    if assessment.trace_import is not None:
        lines.append(f"evidence from: {assessment.trace_import.describe()}")
    lines.append("")
    errors: dict[int | None, list[str]] = {}
    for error in assessment.citation_errors:
        number, text = error_parts(error)
        errors.setdefault(number, []).append(text)
    for number, requirement in enumerate(assessment.requirements, 1):
        claimed = requirement.claimed_status
        status = requirement.status.value
        if claimed is not None and claimed != requirement.status:
            status += f" (claimed {claimed.value})"
        lines.append(f"[{number}] {status}: {requirement.requirement}")
        for citation in requirement.citations:
            if citation.decision == Decision.ACCEPTED:
                lines.append(f"      accepted  {citation.normalized} -> {citation.memory_id}")
            else:
                reason = citation.reason.value if citation.reason else "discarded"
                lines.append(f"      discarded {citation.normalized or repr(citation.token)} ({reason})")
        if not requirement.citations and requirement.evidence_refs:
            lines.append(f"      cites {', '.join(requirement.evidence_refs)}")
        lines += [f"      citation error: {text}" for text in errors.pop(number, [])]
        lines.append(f"      {requirement.explanation}")
    leftover = [text for texts in errors.values() for text in texts]
    if leftover:
        lines += ["", "citation errors:", *(f"  {error}" for error in leftover)]
    lines += ["", "why: " + why(assessment, opinion), "", "hashes:"]
    lines += [f"  {name:<21} {getattr(assessment, name)}" for name in HASH_FIELDS]
    lines.append(f"  {'prompt_version':<21} {assessment.prompt_version}")
    lines += ["", "what each hash covers:",
              *(f"  {name:<21} {HASH_COVERAGE[name]}" for name in HASH_FIELDS if name in HASH_COVERAGE)]
    if opinion is None:
        return lines
    from answerlens.second_opinion.report import opinion_lines

    if opinion.strict is not None:  # the strict verdict first, the model-derived one beside it
        lines[0] = (f"verdict: {opinion.strict.verdict.value}    action: {opinion.strict.recommended_action.value}"
                    f"    (strict evidence policy; model-derived: {assessment.verdict.value}, "
                    f"{assessment.recommended_action.value})")
    return [*lines, "", *opinion_lines(opinion)]
