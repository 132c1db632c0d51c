"""The second opinion as escaped HTML (pure), for the app and the reports: the one badge renderer, one requirement's
flags, verifier result and typed evidence, the verifier's note, what the strict policy changed, and the legend
of the context's marks. The judgements come from ``answerlens.second_opinion``; nothing is re-derived here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from answerlens.html import palette
from answerlens.html.escape import badged, esc
from answerlens.html.highlight import Highlight, Mark, unread_spans
from answerlens.html.markup import colour, legend_mark, plural, remedy_html, requirement_dot, unread_span
from answerlens.second_opinion.badges import Badge, badge, flags_by_ref, verifier_agrees
from answerlens.second_opinion.models import RequirementOpinion, SecondOpinion, VerifierNote, VerifierState

BADGES = {
    Badge.AGREES: ("✓", "agrees", "answerable", "nothing flagged, and the verifier (when it ran) agrees"),
    Badge.FLAGS: ("⚑", "flags", "partial", "deterministic checks doubt this support"),
    Badge.VERIFIER_DISAGREES: ("✗", "verifier disagrees", "conflicting", "the NLI claim verifier disagrees"),
    Badge.NOT_CHECKED: ("–", "not checked", "insufficient", "unsupported: no support to question"),
}
"""Per badge: icon, words, tone and what it means (the icon and the words carry it, not the colour)."""


def badge_html(item: RequirementOpinion) -> str:
    """The compact badge beside a requirement: ``data-badge`` holds the ``Badge`` value."""
    kind = badge(item)
    icon, words, tone, meaning = BADGES[kind]
    count = f" ({len(item.flags)})" if item.flags else ""
    return (f'<span class="al-pill al-nowrap" data-badge="{kind.value}" title="{esc(meaning)}" '
            f'style="background-color:{palette.SOLID[tone]}">{icon} {words}{count}</span>')


def flags_by_ref_codes(item: RequirementOpinion) -> dict[str, tuple[str, ...]]:
    """Each flagged citation ref with its flag codes, for the context's inline marks."""
    return {ref: tuple(flag.code.value for flag in flags) for ref, flags in flags_by_ref(item).items()}


def note_html(note: VerifierNote) -> str | None:
    """The verifier's note for the opinion as a whole (None when it ran or was not asked for)."""
    if note.state in (VerifierState.CHECKED, VerifierState.NOT_REQUESTED):
        return None
    title = note.message or "the claim verifier did not run"
    remedy = f'<div class="al-remedy"><strong>What to do:</strong> {remedy_html(note.remedy)}</div>' \
        if note.remedy else ""
    return (f'<div class="al-notice" data-notice="info" data-verifier="{note.state.value}" '
            'style="border-left-color:var(--al-edge-info);background-color:var(--al-soft-info)">'
            f"<strong>{esc(title)}</strong> — the deterministic flags still show.{remedy}</div>")


def detail_html(index: int, item: RequirementOpinion, note: VerifierNote) -> str:
    """One requirement's second opinion: its badge, each flag with its reason and refs, the verifier's result
    (or why there is none) and the typed evidence of its accepted citations."""
    parts = [f'<div><strong>Second opinion on requirement {index + 1}:</strong> {badge_html(item)}</div>']
    by_ref = flags_by_ref(item)
    if item.flags:
        rows = "".join(f'<li data-flag="{flag.code.value}"><code>{esc(flag.code.value)}</code> '
                       f'({esc(", ".join(flag.refs))}): {esc(flag.reason)}</li>' for flag in item.flags)
        parts.append(f"<ul>{rows}</ul>")
    elif item.typed_evidence:
        parts.append('<div class="al-muted">No flag raised on its citations.</div>')
    parts.append(_verifier_html(item, note))
    parts += [f'<div data-verifier-unread="{esc(unread.ref)}"><strong>Not read by the verifier:</strong> its model '
              f"read the first {unread.read_chars:,} of {unread.chars:,} characters of {esc(unread.ref)} (its token "
              "limit for a passage and a requirement); the rest, faded in the context, was never checked</div>"
              for unread in item.verifier_unread]
    if item.typed_evidence:
        parts.append(_evidence_html(index, item, by_ref))
    return f'<div class="al-panel" data-opinion-requirement="{index}">{"".join(parts)}</div>'


def _verifier_html(item: RequirementOpinion, note: VerifierNote) -> str:
    result = item.verifier
    if result is None:
        if note.state == VerifierState.UNAVAILABLE:
            why = f"not run: {note.message or 'NLI model not installed'}"
        elif note.state == VerifierState.NOT_REQUESTED:
            why = "not asked for"
        else:
            why = "not run on this requirement"
        return f'<div data-verifier-result="none"><strong>Verifier:</strong> {esc(why)}</div>'
    agrees = verifier_agrees(item)
    verdict = "agrees" if agrees else "disagrees" if agrees is False else "—"
    limits = f"; limitations: {esc(', '.join(item.value for item in result.limitations))}" if result.limitations else ""
    return (f'<div data-verifier-result="{esc(result.status.value)}"><strong>Verifier:</strong> '
            f"{esc(result.status.value)} ({verdict} with the model's {esc(item.status.value)}){limits}</div>")


def _evidence_html(index: int, item: RequirementOpinion, by_ref: Mapping[str, object]) -> str:
    rows = []
    for evidence in item.typed_evidence:
        fields = [evidence.source_type.value, evidence.epistemic_type.value, evidence.lifecycle_state.value]
        times = [f"{name} {value:%Y-%m-%d}" for name, value in (("event", evidence.event_time),
                 ("valid from", evidence.valid_from), ("valid to", evidence.valid_to)) if value is not None]
        flagged = ' data-flagged="true"' if evidence.ref in by_ref else ""
        speaker = f"{esc(evidence.speaker)}: " if evidence.speaker else ""
        rows.append(f'<tr{flagged}><td><span class="al-chip" style="background-color:{colour(index)}">'
                    f'{esc(evidence.ref)}</span>{" ⚑" if flagged else ""}</td>'
                    f'<td class="al-nowrap">{esc(" · ".join(fields + times))}</td>'
                    f'<td class="al-text">{speaker}{esc(evidence.text)}</td></tr>')
    return ('<table class="al-table" data-typed-evidence><thead><tr><th>ref</th><th>typed fields</th>'
            f'<th>passage</th></tr></thead><tbody>{"".join(rows)}</tbody></table>')


def strict_html(opinion: SecondOpinion, audited_verdict: str) -> str | None:
    """What the strict evidence policy changed (None when it is not on); the verdict shown is the strict one."""
    strict = opinion.strict
    if strict is None:
        return None
    if not strict.changes:
        return ('<div class="al-source" data-strict="unchanged">Strict evidence policy: nothing flagged changed '
                "a status; the verdict is the model-derived one.</div>")
    changes = "".join(
        f'<li data-strict-change="{change.index}">requirement {change.index + 1}: {esc(change.from_status.value)} → '
        f"{esc(change.to_status.value)} ({esc(', '.join(c.value for c in change.flags) or '')}"
        f"{'; verifier ' + esc(change.verifier_status.value) if change.verifier_status else ''})</li>"
        for change in strict.changes)
    return (f'<div class="al-source" data-strict="changed" data-audited-verdict="{esc(audited_verdict)}">'
            f"<strong>The strict evidence policy changed the verdict</strong> from {esc(audited_verdict.upper())} "
            f"(the model-derived, audited one) to {esc(strict.verdict.value.upper())}; "
            f"{plural(len(strict.changes), 'requirement')} demoted:<ul>{changes}</ul></div>")


def legend_items(marks: Highlight, context: str, *, tint: bool = True) -> list[tuple[str, str]]:
    """What the context's tints, fills and outlines mean: only the looks that occur in this context, each drawn
    with the run's own first mark of that look (its label, its requirement's colour, its flags), as (sample HTML,
    meaning). The app's legend and the report's (which draws the tint its own way: ``tint=False``) are made from
    these."""
    first: dict[str, Mark] = {}
    for line in marks.lines:
        for segment in line.segments:
            for mark in segment.marks:
                first.setdefault("flagged" if mark.accepted and mark.flagged else mark.look, mark)
    items = [(legend_mark(first[look], _short(first[look].ref)), meaning(first[look]))
             for look, meaning in LOOKS if look in first]
    tinted = next((line.requirements[0] for line in marks.lines if line.requirements), None)
    if tinted is not None and tint:
        items.append((requirement_dot(tinted), "requirement number; the line is tinted when it holds an accepted "
                      "citation"))
    if marks.unread:
        start, end = marks.unread[0]
        items.append((unread_span(esc(_short(context[start:end], 12))), "the claim verifier's model never read this "
                      "part of a cited passage: it cut the passage to its token limit"))
    hidden = badged(context)
    if hidden:
        items.append((f'<span class="al-ctl">U+{ord(hidden[0]):04X}</span>', "an invisible or reordering character, "
                      "shown as its code"))
    return items


LOOKS: tuple[tuple[str, Callable[[Mark], str]], ...] = (
    ("accepted", lambda mark: f"accepted citation of requirement {mark.requirement + 1}, filled in its colour "
                              "(number in the gutter)"),
    ("flagged", lambda mark: f"accepted, but flagged by the second opinion ({', '.join(mark.flags)}): solid outline, "
                             "wavy underline, ⚑"),
    ("uncounted", lambda mark: f"valid, but requirement {mark.requirement + 1} ended unsupported, so it did not "
                               "count: solid outline, no fill"),
    ("discarded", lambda mark: f"discarded ({mark.reason.value if mark.reason else 'discarded'}): dashed outline, "
                               "no fill"),
)
"""Each look a citation can have, in legend order, and what it means said of the run's own mark."""


def _short(text: str, limit: int = 14) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def unread_of(opinion: SecondOpinion, context: str) -> tuple[tuple[int, int], ...]:
    """Where in ``context`` the claim verifier's model stopped reading a cited passage (``highlight``'s
    ``unread``)."""
    passages = [(unread.ref, evidence.text, unread.read_chars) for item in opinion.requirements
                for unread in item.verifier_unread for evidence in item.typed_evidence
                if evidence.memory_id == unread.memory_id]
    return unread_spans(context, list(dict.fromkeys(passages)))


def legend_html(marks: Highlight, context: str) -> str:
    """The legend under the app's context: ``legend_items`` (empty when nothing is marked)."""
    items = legend_items(marks, context)
    if not items:
        return ""
    body = "".join(f'<div data-legend-item>{sample} <span class="al-muted">{esc(text)}</span></div>'
                   for sample, text in items)
    return (f'<div class="al-legend al-marks" data-legend style="font-size:0.78rem;line-height:1.9;'
            f'color:var(--al-text)">{body}</div>')
