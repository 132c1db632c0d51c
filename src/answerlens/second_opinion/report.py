"""The second opinion as readable report lines (the CLI's text output, after ``explanation.report_lines``):
badges, flags, verifier results, the strict changes and the hashes. Requirement texts are quoted as the reader
format quotes them, so no text from a model or a record can break a line."""

from __future__ import annotations

from uuid import UUID

from answerlens.render import quote
from answerlens.second_opinion.badges import badge
from answerlens.second_opinion.models import RequirementOpinion, SecondOpinion, StrictOutcome, VerifierState


def opinion_lines(opinion: SecondOpinion) -> list[str]:
    lines = [f"second opinion (flag rules {opinion.flag_rules_version}, policy {opinion.policy.value}):",
             f"  verifier: {_note(opinion)}"]
    for number, item in enumerate(opinion.requirements, 1):
        lines.append(f"[{number}] {badge(item).value}: {quote(item.requirement)}")
        lines += [f"      flag {flag.code.value} ({', '.join(flag.refs)}): {flag.reason}" for flag in item.flags]
        if item.verifier is not None:
            lines.append(f"      verifier: {verifier_summary(item)}")
    if opinion.strict is not None:
        lines += _strict_lines(opinion.strict)
    lines += [f"  opinion_id     {opinion.opinion_id}", f"  opinion_sha256 {opinion.opinion_sha256}"]
    return lines


def _note(opinion: SecondOpinion) -> str:
    note = opinion.verifier_note
    if note.state == VerifierState.NOT_REQUESTED:
        return "not requested"
    if note.state == VerifierState.CHECKED:
        checked = sum(item.verifier is not None for item in opinion.requirements)
        return f"checked {checked} supported or conflicting requirement(s)"
    text = note.message or note.state.value
    if note.remedy:
        return f"{text} — {note.remedy}"
    return f"{text}: {note.detail}" if note.detail else text


def verifier_summary(item: RequirementOpinion) -> str:
    """The claim verifier's result for one requirement in a line: status, deciding groups (as the bundle's
    references), bases and limitations; "not run" when the verifier did not check it. The printed document and
    the HTML report both use it."""
    result = item.verifier
    if result is None:
        return "not run"
    refs = {evidence.memory_id: evidence.ref for evidence in item.typed_evidence}
    parts = [result.status.value]
    for side, group, basis in (("supporting", result.supporting_group, result.supporting_basis),
                               ("refuting", result.refuting_group, result.refuting_basis)):
        if group:
            parts.append(f"{side} {_refs(group, refs)}" + (f" ({basis.value})" if basis else ""))
    if result.limitations:
        parts.append("limitations " + ", ".join(limit.value for limit in result.limitations))
    return "; ".join(parts)


def _refs(group: tuple[UUID, ...], refs: dict[UUID, str]) -> str:
    return "+".join(refs.get(memory_id, str(memory_id)) for memory_id in group)


def _strict_lines(strict: StrictOutcome) -> list[str]:
    lines = [f"  strict policy: verdict {strict.verdict.value}, action {strict.recommended_action.value}"]
    for change in strict.changes:
        reasons = [code.value for code in change.flags]
        if change.verifier_status is not None:
            reasons.append(f"verifier {change.verifier_status.value}")
        lines.append(f"    [{change.index + 1}] {change.from_status.value} -> {change.to_status.value}: "
                     f"{', '.join(reasons)}")
    if not strict.changes:
        lines.append("    nothing changed")
    return lines
