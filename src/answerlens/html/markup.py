"""HTML for the app and the reports, built from data by dumb renderers: the context with its citation marks,
chips, the verdict, the requirements table, hashes, notices and tables.

Every string that comes from a record, a model, a file or a user goes through ``esc`` before it lands in
markup; colours come from ``palette`` and classes from the one stylesheet (``style``), written once per page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from answerlens.audit import HASH_COVERAGE
from answerlens.explanation import HASH_FIELDS
from answerlens.html import palette
from answerlens.html.escape import esc
from answerlens.html.highlight import Highlight, Mark
from answerlens.html.provenance import is_recorded
from answerlens.html.wrap import breakable

PALETTE: tuple[tuple[str, str], ...] = tuple(
    (f"var(--al-r{index})", f"var(--al-t{index})") for index in range(len(palette.IDENTITY))
)
"""(mark fill, line tint) per requirement, as CSS variables that follow the theme (see ``palette``)."""

VERDICT_COLOURS = {
    name: (palette.SOLID[name], f"var(--al-soft-{name})")
    for name in ("answerable", "partial", "insufficient", "conflicting")
}
"""(solid badge colour, card background) per verdict."""
STATUS_SOLID = {status: palette.SOLID[tone] for status, tone in palette.STATUS_TONE.items()}
"""Badge colours (white text) of the final statuses, in every table and in dataframes that cannot use CSS."""

_HEX64 = re.compile(r"[0-9a-f]{64}")


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 line``, ``2 lines``, ``1,024 lines`` (``many`` for irregular plurals)."""
    return f"{count:,} {word if count == 1 else many or word + 's'}"


_CODE = re.compile(r"`([^`<>]+)`")


def remedy_html(text: str) -> str:
    """A remedy for people: escaped, with `commands` in backticks shown as code (never as literal backticks)."""
    return _CODE.sub(r"<code>\1</code>", esc(text))


def _slot(requirement: int) -> int:
    return requirement % len(PALETTE)


def colour(requirement: int) -> str:
    """Requirement ``requirement``'s (0-based) mark fill."""
    return PALETTE[_slot(requirement)][0]


def tint(requirement: int) -> str:
    return PALETTE[_slot(requirement)][1]


# --- the context --------------------------------------------------------------------------------------


def context_html(context: str, highlight: Highlight, *, cited_only: bool = False) -> str:
    """The context line by line, exactly as the model saw it, with tints and nested citation marks.

    ``cited_only`` folds every run of lines without a tint or a mark into one "N lines hidden" row.
    """
    out = [f'<div class="al-context" data-lines="{len(highlight.lines)}">']
    hidden = 0
    for line in highlight.lines:
        if cited_only and not line.requirements and not any(s.marks for s in line.segments):
            hidden += 1
            continue
        if hidden:
            out.append(_gap(hidden))
            hidden = 0
        attrs = f' data-line="{line.number}" id="{line_anchor(line.number)}"'
        if line.requirements:
            first = line.requirements[0]
            attrs += (
                f' data-requirements="{" ".join(map(str, line.requirements))}"'
                f' style="background-color:{tint(first)};box-shadow:inset 4px 0 0 var(--al-e{_slot(first)})"'
            )
        dots = "".join(
            f'<a class="al-jump" href="#{requirement_anchor(r)}" data-jump-requirement="{r}"><span class="al-dot" '
            f'style="background-color:{colour(r)}" title="requirement {r + 1}: go to its row">{r + 1}</span></a>'
            for r in line.requirements
        )
        text = "".join(_segment(context[s.start : s.end], s.marks, s.unread) for s in line.segments)
        out.append(f'<div class="al-line"{attrs}><span class="al-gut">{dots}{line.number}</span>'
                   f'<span class="al-tx">{text}</span></div>')
    if hidden:
        out.append(_gap(hidden))
    out.append("</div>")
    return "".join(out)


def _gap(count: int) -> str:
    return (f'<div class="al-line al-gap" data-hidden="{count}"><span class="al-gut"></span>'
            f'<span class="al-tx al-muted">⋯ {count} line{"s" if count != 1 else ""} without citations ⋯</span></div>')


def legend_mark(mark: Mark, text: str) -> str:
    """A legend's sample of a cited token, drawn by the context's own renderer (filled: accepted; dashed:
    discarded; outlined, underlined and ⚑: flagged by the second opinion) without the data attributes that say
    which citation of the page it is."""
    return _mark_open(mark, data=False) + esc(text) + "</mark>"


def requirement_dot(requirement: int) -> str:
    """Requirement ``requirement``'s (0-based) number, from 1, on its colour."""
    return (f'<span class="al-dot" style="background-color:{colour(requirement)}" '
            f'title="requirement {requirement + 1}">{requirement + 1}</span>')


UNREAD = "the claim verifier's model never read this: it cut the passage to its token limit"


def unread_span(text: str) -> str:
    """Text the claim verifier never read, as the context draws it (faded, dotted underline)."""
    return f'<span class="al-unread" data-unread="true" title="{UNREAD}">{text}</span>'


def _segment(text: str, marks: Sequence[Mark], unread: bool = False) -> str:
    if not marks:
        return unread_span(breakable(text, esc)) if unread else breakable(text, esc)
    body = esc(text)  # a citation label stays whole (``.al-cite`` does not wrap)
    for mark in reversed(marks):  # marks are outermost first; wrap from the inside out
        body = _mark_open(mark) + body + "</mark>"
    return unread_span(body) if unread else body


def _mark_open(mark: Mark, *, data: bool = True) -> str:
    """``data``: the attributes that name the page's citation (a legend's sample has none)."""
    common = (f' data-citation="{mark.look}" data-requirement="{mark.requirement}" '
              f'data-ref="{esc(mark.ref)}"') if data else ""
    who = f"requirement {mark.requirement + 1}"
    if mark.accepted:
        if mark.flagged:
            codes = " ".join(mark.flags)
            return (f'<mark class="al-cite al-flagged"{common} data-flagged="true" '
                    f'data-flags="{esc(codes)}" title="{who}: accepted, flagged by the second opinion: '
                    f'{esc(", ".join(mark.flags))}" style="background-color:{colour(mark.requirement)}">')
        return (f'<mark class="al-cite"{common} title="{who}: accepted" '
                f'style="background-color:{colour(mark.requirement)}">')
    if mark.look == "uncounted":
        return (f'<mark class="al-cite al-uncounted"{common} title="{who}: {UNCOUNTED}" '
                f'style="{uncounted_style(mark.requirement)}">')
    reason = mark.reason.value if mark.reason else "discarded"
    return (f'<mark class="al-cite al-discarded"{common} data-reason="{reason}" '
            f'title="{who}: discarded ({reason})">')


UNCOUNTED = "a valid reference, but the requirement ended unsupported, so it did not count"
"""The look of a valid token whose requirement ended unsupported: outlined in its colour, never filled."""


def uncounted_style(requirement: int) -> str:
    return f"outline:2px solid var(--al-e{_slot(requirement)});outline-offset:-1px"


def line_anchor(number: int) -> str:
    """The id of context line ``number`` (1-based): a chip links to it."""
    return f"al-line-{number}"


def requirement_anchor(index: int) -> str:
    """The id of requirement ``index``'s row (0-based): a line's requirement number in the gutter links back to it."""
    return f"al-req-{index}"


# --- verdict, why, requirements -----------------------------------------------------------------------


def verdict_html(verdict: str, action: str, *, source: str, note: str | None = None, stale: bool = False,
                 marks: Sequence[str] = (), extra: str = "") -> str:
    """The verdict badge (``data-verdict``, ``data-stale``), the action, where the judgement came from, and the
    warnings it carries (``marks``: a forced or unbound replay, inputs changed since); ``extra`` is trusted HTML
    (e.g. the strict policy's note) placed under them."""
    strong, soft = VERDICT_COLOURS.get(verdict, (palette.SOLID["insufficient"], "var(--al-soft-insufficient)"))
    note_html = f" · {esc(note)}" if note else ""
    pills = "".join(f'<div><span class="al-pill" data-mark style="background-color:{palette.SOLID["partial"]}">'
                    f"⚠</span>{esc(mark)}</div>" for mark in marks)
    return (
        f'<div class="al-verdict{" al-stale" if stale else ""}" data-verdict="{esc(verdict)}" '
        f'data-action="{esc(action)}" data-stale="{str(stale).lower()}" '
        f'style="background-color:{soft};border-color:{strong}">'
        f'<span class="al-badge" style="background-color:{strong}">{esc(verdict.upper())}</span>'
        f'<span class="al-action">action: {esc(action.replace("_", " "))}</span>'
        f'<div class="al-source">{source_label_html(source)}{note_html}</div>{pills}{extra}</div>'
    )


def source_label_html(source: str) -> str:
    if is_recorded(source):
        return f'<span class="al-recorded" data-source="recorded">{esc(source)}</span>'
    return f'<span data-source="live">{esc(source)}</span>'


def paragraph_html(text: str, *, css: str = "al-why") -> str:
    return f'<p class="{css}">{esc(text)}</p>'


def status_badge(status: str) -> str:
    """A requirement's final status as its badge: the words on the status's solid colour (``data-status``)."""
    solid = STATUS_SOLID.get(status, palette.SOLID["insufficient"])
    return (f'<span class="al-status al-nowrap" data-status="{esc(status)}" style="background-color:{solid}">'
            f"{esc(status)}</span>")


# --- audit --------------------------------------------------------------------------------------------

_COPY_SCRIPT = """<script>(function(){var root=document.currentScript.parentElement;
root.querySelectorAll('button[data-copy]').forEach(function(b){b.addEventListener('click',function(){
var v=b.getAttribute('data-copy');
function done(){b.textContent='copied';setTimeout(function(){b.textContent='copy'},1200)}
if(navigator.clipboard&&window.isSecureContext){navigator.clipboard.writeText(v).then(done)}else{
var t=document.createElement('textarea');t.value=v;document.body.appendChild(t);t.select();
document.execCommand('copy');document.body.removeChild(t);done()}})})})();</script>"""


def hashes_html(values: Mapping[str, Any], *, copy_buttons: bool = True) -> str:
    """One row per audit hash, each value carrying ``data-hash="<field>"``, with copy buttons.

    Only values that look like sha256 hex get a copy button; anything else is shown escaped, so this
    block stays inert even though it is allowed a script.
    """
    rows = []
    for name, value in values.items():
        if value is None:
            cell = f'<code data-hash="{esc(name)}" class="al-muted">null</code>'
            button = ""
        else:
            text = str(value)
            cell = f'<code data-hash="{esc(name)}">{esc(text)}</code>'
            ok = _HEX64.fullmatch(text) is not None
            button = (f'<button type="button" class="al-copy" data-copy="{esc(text)}" '
                      f'title="copy {esc(name)}">copy</button>') if ok and copy_buttons else ""
        rows.append(f'<tr><td class="al-k">{esc(name)}</td><td>{cell}</td><td>{button}</td></tr>')
    script = _COPY_SCRIPT if copy_buttons else ""
    return f'<div class="al-audit"><table class="al-hashes">{"".join(rows)}</table>{script}</div>'


def facts_html(facts: Sequence[tuple[str, Any]]) -> str:
    """A small key/value table (provider, model, prompt version …)."""
    rows = "".join(
        f'<tr><td class="al-k">{esc(key)}</td><td data-fact="{esc(key)}">{esc(value)}</td></tr>'
        for key, value in facts
    )
    return f'<table class="al-hashes">{rows}</table>'


# --- notices ------------------------------------------------------------------------------------------

class NoticeKind(str, Enum):
    """How serious a notice is; it picks the notice's colours (``data-notice`` carries the value)."""

    OK = "ok"
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


_NOTICE = {NoticeKind.ERROR: "conflicting", NoticeKind.WARNING: "partial", NoticeKind.INFO: "info",
           NoticeKind.OK: "answerable"}


@dataclass(frozen=True)
class Notice:
    """One message for an alert box: what happened, the detail, and what to do. The one notice type of the pages
    (a trial's state, an endpoint's preflight …); ``html()`` draws it."""

    kind: NoticeKind
    title: str
    detail: str | None = None
    remedy: str | None = None

    def html(self) -> str:
        return notice_html(self.kind, self.title, self.detail, self.remedy)


def notice_html(kind: NoticeKind | str, title: str, detail: str | None = None, remedy: str | None = None,
                code: str | None = None, items: Sequence[str] = ()) -> str:
    """An alert box for messages that carry file, record or server text (st.error would render Markdown); the
    `commands` of the detail, the items and the remedy show as code, never as literal backticks."""
    kind = NoticeKind(kind)
    tone = _NOTICE[kind]
    parts = [f"<strong>{esc(title)}</strong>"]
    if detail:
        parts.append(f'<div class="al-detail">{remedy_html(detail)}</div>')
    if items:
        parts.append('<ul class="al-detail">' + "".join(f"<li>{remedy_html(item)}</li>" for item in items) + "</ul>")
    if remedy:
        parts.append(f'<div class="al-remedy"><strong>What to do:</strong> {remedy_html(remedy)}</div>')
    if code:
        parts.append(f"<pre><code>{esc(code)}</code></pre>")
    return (f'<div class="al-notice" data-notice="{kind.value}" role="alert" '
            f'style="border-left-color:var(--al-edge-{tone});background-color:var(--al-soft-{tone})">'
            f'{"".join(parts)}</div>')


def fit_notes_html(notes: Sequence[str], run: str) -> str:
    """What a run fitted to its endpoint chose, and why (``trials.fit``), under its outcome; ``run``: trial or sweep."""
    return (f'<div class="al-muted" data-{run}-fit>' + "<br>".join(esc(note) for note in notes) + "</div>"
            if notes else "")


def caveats_html(caveats: Sequence[str]) -> str:
    """What verification cannot prove for a file (no provenance hash, a forced or unbound replay, an unfinished
    run, references taken as recorded), shown next to its verdict; empty when there is nothing to say."""
    if not caveats:
        return ""
    return notice_html(NoticeKind.WARNING, "What this check cannot prove", items=caveats)


# --- tables for the Packing and Compare pages ---------------------------------------------------------

_OUTCOME_TONES = {True: ("answerable", "al-ok"), False: ("conflicting", "al-no"), None: (None, "")}


def outcome_cell(text: str, accepted: bool | None, attrs: str = "") -> str:
    """A table cell for an accepted (✓), refused (✗) or neutral outcome, on a background that follows the theme
    (the mark is drawn by CSS, so the cell's text stays the outcome's words)."""
    tone, css = _OUTCOME_TONES[accepted]
    style = (f' class="{css}" style="background-color:var(--al-soft-{tone});'
             f'box-shadow:inset 3px 0 0 var(--al-edge-{tone})"' if tone else "")
    return f"<td {attrs}{style}>{esc(text)}</td>"


def table_html(head: Sequence[str], rows: Iterable[str], *, css: str = "al-table") -> str:
    """A table from escaped header labels and prebuilt ``<td>`` row bodies."""
    header = "".join(f"<th>{esc(label)}</th>" for label in head)
    body = "".join(f"<tr>{row}</tr>" for row in rows)
    return f'<table class="{css}"><thead><tr>{header}</tr></thead><tbody>{body}</tbody></table>'


def cell(value: Any, attrs: str = "") -> str:
    return f"<td {attrs}>{esc(value)}</td>" if attrs else f"<td>{esc(value)}</td>"


def hash_coverage_html() -> str:
    """One row per recorded hash: the fields it covers (``audit.HASH_COVERAGE``), for the report and the page."""
    rows = [f"<td><code>{esc(name)}</code></td>" + cell(HASH_COVERAGE[name])
            for name in HASH_FIELDS if name in HASH_COVERAGE]
    return f'<div id="hash-coverage">{table_html(["hash", "covers"], rows)}</div>'
