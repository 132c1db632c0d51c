"""The second opinion in a report: per requirement its badge, flags, verifier result and typed evidence; the
verifier's note; the strict outcome; its hashes. Badges and flagged citation marks are the app's own renderers
(``html.opinion``, ``html.markup``). Flag reasons are built by code from typed values, but they are escaped like
everything else."""

from __future__ import annotations

from answerlens.html.escape import esc
from answerlens.html.markup import cell, hashes_html, notice_html, requirement_dot, status_badge, table_html
from answerlens.html.opinion import badge_html, flags_by_ref_codes
from answerlens.report.page import heading, muted, section
from answerlens.second_opinion.models import (
    SecondOpinion,
    StrictChange,
    StrictOutcome,
    VerifierState,
)
from answerlens.second_opinion.report import verifier_summary


def flagged(opinion: SecondOpinion) -> bool:
    return any(item.flags for item in opinion.requirements)


def flagged_refs(opinion: SecondOpinion) -> dict[int, dict[str, tuple[str, ...]]]:
    """Per requirement, its flagged citation refs with their codes: the context marks them as the app does."""
    return {index: flags_by_ref_codes(item) for index, item in enumerate(opinion.requirements)}


def section_html(opinion: SecondOpinion) -> str:
    parts = [muted(f"Flag rules {opinion.flag_rules_version} · evidence policy {opinion.policy.value} · "
                   "typed evidence read from the bundle, never from the model"), _note(opinion)]
    if opinion.strict is not None:
        parts.append(_strict(opinion.strict))
    parts += [_table(opinion), *_evidence(opinion), heading("Hashes"),
              hashes_html({"opinion_id": opinion.opinion_id, "opinion_sha256": opinion.opinion_sha256,
                           "verifier_configuration_sha256": opinion.verifier_configuration_sha256},
                          copy_buttons=False)]
    return section("second-opinion", "Second opinion", *parts)


def _note(opinion: SecondOpinion) -> str:
    note = opinion.verifier_note
    if note.state == VerifierState.CHECKED:
        checked = sum(item.verifier is not None for item in opinion.requirements)
        return notice_html("ok", f"Claim verifier: checked {checked} supported or conflicting requirement(s)")
    if note.state == VerifierState.NOT_REQUESTED:
        return notice_html("info", "Claim verifier: not requested", "only the deterministic flags were computed")
    return notice_html("warning", f"Claim verifier: {note.message or note.state.value}", note.detail, note.remedy)


def _reasons(change: StrictChange) -> list[str]:
    return [code.value for code in change.flags] + (
        [f"verifier {change.verifier_status.value}"] if change.verifier_status is not None else [])


def _strict(strict: StrictOutcome) -> str:
    changes = [f"[{change.index + 1}] {change.from_status.value} → {change.to_status.value}: "
               + ", ".join(_reasons(change)) for change in strict.changes]
    title = (f"Strict evidence policy: verdict {strict.verdict.value}, action "
             f"{strict.recommended_action.value.replace('_', ' ')}")
    return (f'<div data-strict-verdict="{esc(strict.verdict.value)}">'
            + notice_html("warning" if changes else "info", title,
                          "changed: " + "; ".join(changes) if changes else "nothing changed") + "</div>")


def _table(opinion: SecondOpinion) -> str:
    rows = []
    for index, item in enumerate(opinion.requirements):
        flags = "".join(f'<div data-flag="{esc(flag.code.value)}"><code>{esc(flag.code.value)}</code> '
                        f'({esc(", ".join(flag.refs))}): {esc(flag.reason)}</div>' for flag in item.flags) or "—"
        rows.append(
            f'<td data-opinion-row="{index}">{requirement_dot(index)}</td>'
            + f'<td class="al-text">{esc(item.requirement)}</td><td>{status_badge(item.status.value)}</td>'
            + f"<td>{badge_html(item)}</td>"
            + f'<td class="al-text">{flags}</td>' + cell(verifier_summary(item)))
    return table_html(["#", "requirement", "status", "second opinion", "flags", "claim verifier"], rows)


def _evidence(opinion: SecondOpinion) -> list[str]:
    """Typed evidence per requirement that cites any: the record's typed fields and its packed text."""
    parts = []
    for index, item in enumerate(opinion.requirements):
        if not item.typed_evidence:
            continue
        rows = [cell(e.ref) + cell(e.section) + cell(e.node_type.value) + cell(e.source_type.value)
                + cell(e.epistemic_type.value) + cell(e.lifecycle_state.value) + cell(_time(e.event_time))
                + cell(_window(e.valid_from, e.valid_to)) + cell(e.superseded_by or "—")
                + cell(e.speaker or "—") + f'<td class="al-text">{esc(e.text)}</td>'
                for e in item.typed_evidence]
        parts += [heading(f"Typed evidence of requirement {index + 1}"),
                  table_html(["ref", "section", "type", "source", "epistemic", "lifecycle", "event time",
                              "valid", "superseded by", "speaker", "text"], rows)]
    return parts


def _window(start: object, end: object) -> str:
    if start is None and end is None:
        return "—"
    return f"{_time(start)} → {_time(end)}"


def _time(value: object) -> str:
    return "—" if value is None else str(value)
