"""HTML for the app, built from data by dumb renderers (no streamlit here, so it is testable as text).

Every string that comes from a record, a model, a file or a user goes through ``esc`` before it lands in
markup; the colours live here so the context, the table and the chips agree.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from answerlens.ui.common import palette
from answerlens.ui.common.highlight import Highlight, Mark
from answerlens.ui.common.provenance import is_recorded
from answerlens.ui.common.wrap import breakable

PALETTE: tuple[tuple[str, str], ...] = tuple(
    (f"var(--al-r{index})", f"var(--al-t{index})") for index in range(len(palette.IDENTITY))
)
"""(mark fill, line tint) per requirement, as CSS variables that follow the theme (see ``palette``)."""
DISCARDED_BG = "transparent"
DISCARDED_EDGE = "var(--al-discarded)"

VERDICT_COLOURS = {
    name: (palette.SOLID[name], f"var(--al-soft-{name})")
    for name in ("answerable", "partial", "insufficient", "conflicting")
}
"""(solid badge colour, card background) per verdict."""
STATUS_COLOURS = {"supported": "#2b8a3e", "unsupported": "#868e96", "conflicting": "#c92a2a"}
"""Plain colours for status text in tables that cannot use CSS variables (pandas Styler on the Compare page)."""
STATUS_SOLID = {"supported": palette.SOLID["answerable"], "unsupported": palette.SOLID["insufficient"],
                "conflicting": palette.SOLID["conflicting"]}
"""Badge colours (white text) of the final statuses in our own tables."""

_HEX64 = re.compile(r"[0-9a-f]{64}")

STYLE = """<style>
.al-context,.al-verdict,.al-table,.al-hashes,.al-notice,.al-legend,.al-why,.al-muted,.al-chip,.al-panel,.al-marks{
  """ + palette.css_variables() + """}
.al-context{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:0.8rem;line-height:1.45;
  color:var(--al-text);background:var(--al-card);border:1px solid var(--al-rule);border-radius:6px;max-height:72vh;
  overflow:auto;padding:4px 0}
.al-line{display:flex;align-items:flex-start;min-height:1.45em}
.al-gut{flex:0 0 5.2em;display:flex;justify-content:flex-end;gap:2px;padding-right:8px;color:var(--al-muted);
  user-select:none;-webkit-user-select:none;text-align:right}
.al-dot{display:inline-block;min-width:1.3em;border-radius:3px;color:var(--al-text);text-align:center;
  font-size:0.7rem;font-weight:700}
.al-tx{flex:1;white-space:pre-wrap;overflow-wrap:normal;word-break:normal;padding-right:8px}
.al-cite{color:var(--al-text);border-radius:3px;padding:0 1px;white-space:nowrap}
.al-cite.al-discarded{background:transparent;outline:1.5px dashed var(--al-discarded);outline-offset:1px}
.al-cite.al-flagged{outline:2px solid var(--al-flagged);outline-offset:1px;
  text-decoration:underline wavy var(--al-flagged);text-decoration-thickness:1px;text-underline-offset:3px}
.al-cite.al-flagged::after{content:"\\2691";font-size:0.65rem;vertical-align:super;margin-left:1px}
.al-ctl{font-size:0.65rem;border:1px dashed var(--al-discarded);color:inherit;border-radius:3px;padding:0 2px;
  margin:0 1px}
.al-chip{display:inline-block;font-family:ui-monospace,monospace;font-size:0.75rem;border-radius:10px;
  padding:0 7px;margin:1px 2px;color:var(--al-text);max-width:100%;overflow-wrap:anywhere}
.al-chip.al-discarded{background:transparent;border:1px dashed var(--al-discarded)}
.al-chip.al-gone{text-decoration:line-through;text-decoration-thickness:2px}
.al-verdict{border-radius:8px;padding:10px 14px;border:1px solid;border-left-width:6px;color:var(--al-text)}
.al-badge{display:inline-block;font-weight:700;letter-spacing:0.04em;color:#fff;border-radius:6px;padding:2px 10px}
.al-action{font-weight:600;margin-left:6px}
.al-source{font-size:0.8rem;margin-top:6px}
.al-recorded{display:inline-block;border:1px solid var(--al-edge-partial);border-radius:4px;padding:0 6px;
  font-weight:600;background:var(--al-soft-partial)}
.al-pill{display:inline-block;color:#fff;border-radius:4px;padding:0 6px;font-weight:700;font-size:0.78rem;
  margin:2px 4px 0 0}
.al-why{line-height:1.5}
.al-table{border-collapse:collapse;width:100%;font-size:0.82rem;color:var(--al-text)}
.al-table td.al-text{overflow-wrap:anywhere}
.al-nowrap{white-space:nowrap}
.al-table th{text-align:left;border-bottom:2px solid var(--al-rule);padding:4px 6px}
.al-scroll{overflow-x:auto;max-width:100%}
.al-table td{border-bottom:1px solid var(--al-rule);padding:4px 6px;vertical-align:top}
.al-explain{margin-top:3px;font-size:0.78rem;color:var(--al-muted)}
.al-second{margin-top:4px}
.al-status{font-weight:700;color:#fff;border-radius:4px;padding:0 5px;font-size:0.75rem}
.al-muted{color:var(--al-muted)}
.al-hashes{font-family:ui-monospace,monospace;font-size:0.78rem;border-collapse:collapse;width:100%;
  color:var(--al-text)}
.al-hashes td{padding:2px 6px;border-bottom:1px solid var(--al-rule);vertical-align:middle}
.al-hashes td.al-k{white-space:nowrap;color:var(--al-muted);font-family:inherit}
.al-hashes code{user-select:all;-webkit-user-select:all;overflow-wrap:anywhere;background:none;color:inherit}
.al-copy{font-size:0.7rem;border:1px solid var(--al-rule);border-radius:4px;background:var(--al-card);
  cursor:pointer;padding:1px 6px;color:var(--al-text)}
.al-notice{border-radius:6px;padding:10px 14px;border-left:5px solid;margin:4px 0;overflow-wrap:anywhere;
  color:var(--al-text)}
.al-notice .al-remedy{margin-top:4px}
.al-notice pre{white-space:pre-wrap;margin:4px 0 0;font-size:0.8rem}
.al-notice code,.al-panel code{font-size:0.85em}
.al-stale{opacity:0.55;filter:grayscale(1)}
td.al-ok::before{content:"\\2713  "}
td.al-no::before{content:"\\2717  "}
</style>"""


APP_STYLE = """<style>
[data-testid="stMetricLabel"],[data-testid="stMetricLabel"] *{white-space:normal!important;
  overflow:visible!important;text-overflow:clip!important;height:auto!important}
</style>"""
"""Rules for Streamlit's own elements on every page: a metric's label wraps rather than ending in "…"."""


# Characters that reorder, hide or break text in a browser: controls but tab and newline, format characters (bidi
# overrides and isolates, zero-width, tags …) and line/paragraph separators (Unicode Cc, Cf, Zl, Zp).
_INVISIBLE_RANGES = (
    (0x00, 0x08), (0x0B, 0x1F), (0x7F, 0x9F), (0xAD, 0xAD), (0x600, 0x605), (0x61C, 0x61C), (0x6DD, 0x6DD),
    (0x70F, 0x70F), (0x890, 0x891), (0x8E2, 0x8E2), (0x180E, 0x180E), (0x200B, 0x200F), (0x2028, 0x202E),
    (0x2060, 0x2064), (0x2066, 0x206F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD),
    (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001), (0xE0020, 0xE007F),
)
_INVISIBLE = re.compile("[" + "".join(f"\\U{low:08x}-\\U{high:08x}" for low, high in _INVISIBLE_RANGES) + "]")


def _badge(match: re.Match[str]) -> str:
    # No quote characters: the badge stays inert inside a double-quoted attribute as well as in text.
    return f"<span class=al-ctl title=invisible&#32;character>U+{ord(match.group()):04X}</span>"


def esc(value: Any) -> str:
    """The one escaping function: HTML-escape anything (quotes too, since values also land in attributes) and
    show every invisible or reordering character as a visible ``U+XXXX`` badge, so the display cannot lie."""
    return _INVISIBLE.sub(_badge, html.escape(str(value), quote=True))


def plain(value: Any) -> str:
    """``esc`` for the places that show text, not HTML (widget labels and options, ``st.code``): every invisible
    or reordering character becomes the visible text ``⟨U+XXXX⟩``; nothing else changes."""
    return _INVISIBLE.sub(lambda match: f"⟨U+{ord(match.group()):04X}⟩", str(value))


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
    out = [STYLE, f'<div class="al-context" data-lines="{len(highlight.lines)}">']
    hidden = 0
    for line in highlight.lines:
        if cited_only and not line.requirements and not any(s.marks for s in line.segments):
            hidden += 1
            continue
        if hidden:
            out.append(_gap(hidden))
            hidden = 0
        attrs = f' data-line="{line.number}"'
        if line.requirements:
            first = line.requirements[0]
            attrs += (
                f' data-requirements="{" ".join(map(str, line.requirements))}"'
                f' style="background-color:{tint(first)};box-shadow:inset 4px 0 0 var(--al-e{_slot(first)})"'
            )
        dots = "".join(
            f'<span class="al-dot" style="background-color:{colour(r)}" title="requirement {r + 1}">{r + 1}</span>'
            for r in line.requirements
        )
        text = "".join(_segment(context[s.start : s.end], s.marks) for s in line.segments)
        out.append(f'<div class="al-line"{attrs}><span class="al-gut">{dots}{line.number}</span>'
                   f'<span class="al-tx">{text}</span></div>')
    if hidden:
        out.append(_gap(hidden))
    out.append("</div>")
    return "".join(out)


def _gap(count: int) -> str:
    return (f'<div class="al-line al-gap" data-hidden="{count}"><span class="al-gut"></span>'
            f'<span class="al-tx al-muted">⋯ {count} line{"s" if count != 1 else ""} without citations ⋯</span></div>')


def _segment(text: str, marks: Sequence[Mark]) -> str:
    if not marks:
        return breakable(text, esc)
    body = esc(text)  # a citation label stays whole (``.al-cite`` does not wrap)
    for mark in reversed(marks):  # marks are outermost first; wrap from the inside out
        body = _mark_open(mark) + body + "</mark>"
    return body


def _mark_open(mark: Mark) -> str:
    common = f'data-requirement="{mark.requirement}" data-ref="{esc(mark.ref)}"'
    who = f"requirement {mark.requirement + 1}"
    if mark.accepted:
        if mark.flagged:
            codes = " ".join(mark.flags)
            return (f'<mark class="al-cite al-flagged" data-citation="accepted" {common} data-flagged="true" '
                    f'data-flags="{esc(codes)}" title="{who}: accepted, flagged by the second opinion: '
                    f'{esc(", ".join(mark.flags))}" style="background-color:{colour(mark.requirement)}">')
        return (f'<mark class="al-cite" data-citation="accepted" {common} title="{who}: accepted" '
                f'style="background-color:{colour(mark.requirement)}">')
    reason = mark.reason.value if mark.reason else "discarded"
    return (f'<mark class="al-cite al-discarded" data-citation="discarded" {common} data-reason="{reason}" '
            f'title="{who}: discarded ({reason})">')


def chip(mark: Mark, *, located: bool) -> str:
    """A cited token as a chip: accepted in its requirement's colour, discarded dashed (struck through if absent)."""
    common = (f'data-citation="{mark.decision.value}" data-requirement="{mark.requirement}" '
              f'data-ref="{esc(mark.ref)}" data-located="{str(located).lower()}"')
    label = esc(mark.ref) if mark.ref else "<em>empty</em>"
    if mark.accepted:
        return f'<span class="al-chip" {common} style="background-color:{colour(mark.requirement)}">{label}</span>'
    reason = mark.reason.value if mark.reason else "discarded"
    gone = "" if located else " al-gone"
    where = "" if located else ", not in the context"
    return (f'<span class="al-chip al-discarded{gone}" {common} data-reason="{reason}" '
            f'title="discarded: {reason}{where}">{label}</span>'
            f'<span class="al-muted al-nowrap" style="font-size:0.7rem">{reason}</span>')


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
        f'{STYLE}<div class="al-verdict{" al-stale" if stale else ""}" data-verdict="{esc(verdict)}" '
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


def requirements_html(rows: Iterable[Mapping[str, Any]]) -> str:
    """Requirements table: number (from 1), requirement with its explanation under it, claimed → final status
    (with the second opinion's ``badge`` under it when rows carry one, trusted HTML), and the accepted and discarded
    citations.

    Each row needs ``index``, ``requirement``, ``claimed``, ``status``, ``explanation``, and ``accepted`` and
    ``discarded`` as ``(mark, located)`` pairs (see ``highlight.requirement_rows``).
    """
    body = []
    opinion = False
    for row in rows:
        index = row["index"]
        status = row["status"]
        claimed = row["claimed"]
        change = ""
        if claimed and claimed != status:
            change = f'<span class="al-muted al-nowrap" data-claimed="{esc(claimed)}">{esc(claimed)} →</span><br>'
        chips = [chip(mark, located=located) for mark, located in [*row["accepted"], *row["discarded"]]]
        badge = row.get("badge")
        opinion = opinion or badge is not None
        solid = STATUS_SOLID.get(status, palette.SOLID["insufficient"])
        second = f'<div class="al-second">{badge}</div>' if badge is not None else ""
        body.append(
            f'<tr data-requirement-row="{index}">'
            f'<td><span class="al-dot" style="background-color:{colour(index)}">{index + 1}</span></td>'
            f'<td class="al-text">{esc(row["requirement"])}<div class="al-explain">{esc(row["explanation"])}</div></td>'
            f'<td>{change}<span class="al-status al-nowrap" data-status="{esc(status)}" '
            f'style="background-color:{solid}">{esc(status)}</span>{second}</td>'
            f'<td>{"".join(chips) or "—"}</td></tr>'
        )
    status_head = "status · second opinion" if opinion else "claimed → final"
    head = ('<tr><th style="width:2em">#</th><th style="width:50%">requirement and explanation</th>'
            f"<th>{status_head}</th><th>citations</th></tr>")
    return (f'{STYLE}<div class="al-scroll"><table class="al-table al-reqs"><thead>{head}</thead>'
            f'<tbody>{"".join(body)}</tbody></table></div>')


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
    return f'{STYLE}<div class="al-audit"><table class="al-hashes">{"".join(rows)}</table>{script}</div>'


def facts_html(facts: Sequence[tuple[str, Any]]) -> str:
    """A small key/value table (provider, model, prompt version …)."""
    rows = "".join(
        f'<tr><td class="al-k">{esc(key)}</td><td data-fact="{esc(key)}">{esc(value)}</td></tr>'
        for key, value in facts
    )
    return f'{STYLE}<table class="al-hashes">{rows}</table>'


# --- notices ------------------------------------------------------------------------------------------

_NOTICE = {"error": "conflicting", "warning": "partial", "info": "info", "ok": "answerable"}


def notice_html(kind: str, title: str, detail: str | None = None, remedy: str | None = None,
                code: str | None = None) -> str:
    """An alert box for messages that carry file, record or server text (st.error would render Markdown); the
    `commands` of the detail and the remedy show as code, never as literal backticks."""
    tone = _NOTICE[kind]
    parts = [f"<strong>{esc(title)}</strong>"]
    if detail:
        parts.append(f'<div class="al-detail">{remedy_html(detail)}</div>')
    if remedy:
        parts.append(f'<div class="al-remedy"><strong>What to do:</strong> {remedy_html(remedy)}</div>')
    if code:
        parts.append(f"<pre><code>{esc(code)}</code></pre>")
    return (f'{STYLE}<div class="al-notice" data-notice="{kind}" role="alert" '
            f'style="border-left-color:var(--al-edge-{tone});background-color:var(--al-soft-{tone})">'
            f'{"".join(parts)}</div>')


# --- tables for the Packing and Compare pages ---------------------------------------------------------

OUTCOME_COLOURS = {True: ("#ebfbee", "#2b8a3e"), False: ("#fff5f5", "#c92a2a"), None: ("transparent", "#57606a")}
"""Plain (background, text) colours for tables that cannot use CSS variables (pandas Styler on Compare)."""
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
    return f'{STYLE}<table class="{css}"><thead><tr>{header}</tr></thead><tbody>{body}</tbody></table>'


def cell(value: Any, attrs: str = "") -> str:
    return f"<td {attrs}>{esc(value)}</td>" if attrs else f"<td>{esc(value)}</td>"
