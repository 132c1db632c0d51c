"""The requirements table and its citation chips (pure): one row per requirement, each cited token a chip drawn
as its decision, a located chip a link to its context line (``markup.context_html`` gives the lines their ids)."""

from __future__ import annotations

from collections.abc import Iterable

from answerlens.html.escape import esc
from answerlens.html.highlight import Mark, RequirementRow
from answerlens.html.markup import (
    UNCOUNTED,
    colour,
    line_anchor,
    requirement_anchor,
    requirement_dot,
    status_badge,
    uncounted_style,
)


def chip(mark: Mark, *, located: bool, line: int | None = None) -> str:
    """A cited token as a chip: accepted in its requirement's colour, discarded dashed (struck through if absent);
    with ``line``, a link that jumps to that context line."""
    drawn = _chip(mark, located=located)
    if line is None:
        return drawn
    return (f'<a class="al-jump" href="#{line_anchor(line)}" data-jump="{line}" '
            f'title="go to line {line} of the context">{drawn}</a>')


def _chip(mark: Mark, *, located: bool) -> str:
    common = (f'data-citation="{mark.look}" data-requirement="{mark.requirement}" '
              f'data-ref="{esc(mark.ref)}" data-located="{str(located).lower()}"')
    label = esc(mark.ref) if mark.ref else "<em>empty</em>"
    if mark.accepted:
        return f'<span class="al-chip" {common} style="background-color:{colour(mark.requirement)}">{label}</span>'
    if mark.look == "uncounted":
        return (f'<span class="al-chip al-uncounted" {common} title="{UNCOUNTED}" '
                f'style="{uncounted_style(mark.requirement)}">{label}</span>')
    reason = mark.reason.value if mark.reason else "discarded"
    gone = "" if located else " al-gone"
    where = "" if located else ", not in the context"
    return (f'<span class="al-chip al-discarded{gone}" {common} data-reason="{reason}" '
            f'title="discarded: {reason}{where}">{label}</span>'
            f'<span class="al-muted al-nowrap" style="font-size:0.7rem">{reason}</span>')


def requirements_html(rows: Iterable[RequirementRow]) -> str:
    """Requirements table: number (from 1), requirement with its explanation under it, claimed → final status
    (with the second opinion's badge under it when rows carry one, trusted HTML), and the accepted and discarded
    citations, each chip a link to the context line its label is on (``highlight.requirement_rows``)."""
    body = []
    opinion = False
    for row in rows:
        index, status, claimed = row.index, row.status, row.claimed
        change = ""
        if claimed and claimed != status:
            change = f'<span class="al-muted al-nowrap" data-claimed="{esc(claimed)}">{esc(claimed)} →</span><br>'
        chips = [chip(token.mark, located=token.located, line=token.line) for token in [*row.accepted, *row.discarded]]
        opinion = opinion or row.badge is not None
        second = f'<div class="al-second">{row.badge}</div>' if row.badge is not None else ""
        body.append(
            f'<tr data-requirement-row="{index}" id="{requirement_anchor(index)}">'
            f"<td>{requirement_dot(index)}</td>"
            f'<td class="al-text">{esc(row.requirement)}<div class="al-explain">{esc(row.explanation)}</div></td>'
            f"<td>{change}{status_badge(status)}{second}</td>"
            f'<td>{"".join(chips) or "—"}</td></tr>'
        )
    status_head = "status · second opinion" if opinion else "claimed → final"
    head = ('<tr><th style="width:2em">#</th><th style="width:50%">requirement and explanation</th>'
            f"<th>{status_head}</th><th>citations</th></tr>")
    return (f'<div class="al-scroll"><table class="al-table al-reqs"><thead>{head}</thead>'
            f'<tbody>{"".join(body)}</tbody></table></div>')
