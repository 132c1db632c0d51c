"""HTML for the app, built from data by dumb renderers (no streamlit here, so it is testable as text).

Every string that comes from a record, a model, a file or a user goes through ``esc`` before it lands in
markup; the colours live here so the context, the table and the chips agree.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from answerlens.ui.common.highlight import Highlight, Mark
from answerlens.ui.common.provenance import is_recorded

# (mark colour, line tint) per requirement; chosen to stay tellable apart and readable under dark text.
PALETTE: tuple[tuple[str, str], ...] = (
    ("#9ec5fe", "#e7f1ff"),
    ("#ffc078", "#fff4e6"),
    ("#8ce99a", "#ebfbee"),
    ("#d0bfff", "#f3f0ff"),
    ("#fcc2d7", "#fff0f6"),
    ("#63e6be", "#e6fcf5"),
    ("#ffe066", "#fff9db"),
    ("#a5d8ff", "#e7f5ff"),
)
DISCARDED_BG = "#ffe3e3"
DISCARDED_EDGE = "#c92a2a"

VERDICT_COLOURS = {
    "answerable": ("#2b8a3e", "#ebfbee"),
    "partial": ("#e67700", "#fff9db"),
    "insufficient": ("#495057", "#f1f3f5"),
    "conflicting": ("#c92a2a", "#fff5f5"),
}
STATUS_COLOURS = {"supported": "#2b8a3e", "unsupported": "#868e96", "conflicting": "#c92a2a"}

_HEX64 = re.compile(r"[0-9a-f]{64}")

STYLE = """<style>
.al-context{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:0.8rem;line-height:1.45;
  color:#1f2328;background:#fcfcfd;border:1px solid #d0d7de;border-radius:6px;max-height:72vh;overflow:auto;
  padding:4px 0}
.al-line{display:flex;align-items:flex-start;min-height:1.45em}
.al-gut{flex:0 0 5.2em;display:flex;justify-content:flex-end;gap:2px;padding-right:8px;color:#8c959f;
  user-select:none;-webkit-user-select:none;text-align:right}
.al-dot{display:inline-block;min-width:1.2em;border-radius:3px;color:#1f2328;text-align:center;font-size:0.7rem}
.al-tx{flex:1;white-space:pre-wrap;overflow-wrap:anywhere;padding-right:8px}
.al-cite{color:#1f2328;border-radius:3px;padding:0 1px}
.al-ctl{font-size:0.65rem;border:1px solid #c92a2a;color:#c92a2a;border-radius:3px;padding:0 2px;margin:0 1px}
.al-chip{display:inline-block;font-family:ui-monospace,monospace;font-size:0.75rem;border-radius:10px;
  padding:0 7px;margin:1px 2px;color:#1f2328;max-width:100%;overflow-wrap:anywhere}
.al-chip.al-gone{text-decoration:line-through;text-decoration-thickness:2px}
.al-verdict{border-radius:8px;padding:10px 14px;border:1px solid;color:#1f2328}
.al-badge{display:inline-block;font-weight:700;letter-spacing:0.04em;color:#fff;border-radius:6px;padding:2px 10px}
.al-action{font-weight:600;margin-left:6px}
.al-source{font-size:0.8rem;margin-top:6px;color:#57606a}
.al-recorded{display:inline-block;background:#fff3bf;color:#5c3c00;border:1px solid #e8c35a;border-radius:4px;
  padding:0 6px;font-weight:600}
.al-why{line-height:1.5}
.al-table{border-collapse:collapse;width:100%;font-size:0.82rem}
.al-table td.al-text{overflow-wrap:anywhere}
.al-nowrap{white-space:nowrap}
.al-table th{text-align:left;border-bottom:2px solid #d0d7de;padding:4px 6px;white-space:nowrap}
.al-table td{border-bottom:1px solid #e6e8eb;padding:4px 6px;vertical-align:top}
.al-status{font-weight:600}
.al-muted{color:#8c959f}
.al-hashes{font-family:ui-monospace,monospace;font-size:0.78rem;border-collapse:collapse;width:100%}
.al-hashes td{padding:2px 6px;border-bottom:1px solid #eef0f2;vertical-align:middle}
.al-hashes td.al-k{white-space:nowrap;color:#8c959f;font-family:inherit}
.al-hashes code{user-select:all;-webkit-user-select:all;overflow-wrap:anywhere;background:none;color:inherit}
.al-copy{font-size:0.7rem;border:1px solid #d0d7de;border-radius:4px;background:#f6f8fa;cursor:pointer;
  padding:1px 6px;color:#1f2328}
.al-notice{border-radius:6px;padding:10px 14px;border-left:5px solid;margin:4px 0;overflow-wrap:anywhere}
.al-notice .al-remedy{margin-top:4px}
.al-notice pre{white-space:pre-wrap;margin:4px 0 0;font-size:0.8rem}
</style>"""


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


def colour(requirement: int) -> str:
    return PALETTE[requirement % len(PALETTE)][0]


def tint(requirement: int) -> str:
    return PALETTE[requirement % len(PALETTE)][1]


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
                f' style="background-color:{tint(first)};box-shadow:inset 4px 0 0 {colour(first)}"'
            )
        dots = "".join(
            f'<span class="al-dot" style="background-color:{colour(r)}">{r}</span>' for r in line.requirements
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
    body = esc(text)
    for mark in reversed(marks):  # marks are outermost first; wrap from the inside out
        body = _mark_open(mark) + body + "</mark>"
    return body


def _mark_open(mark: Mark) -> str:
    common = f'data-requirement="{mark.requirement}" data-ref="{esc(mark.ref)}"'
    if mark.accepted:
        return (f'<mark class="al-cite" data-citation="accepted" {common} '
                f'title="requirement {mark.requirement}: accepted" '
                f'style="background-color:{colour(mark.requirement)}">')
    reason = mark.reason.value if mark.reason else "discarded"
    return (f'<mark class="al-cite al-discarded" data-citation="discarded" {common} data-reason="{reason}" '
            f'title="requirement {mark.requirement}: discarded ({reason})" '
            f'style="background-color:{DISCARDED_BG};outline:1.5px dashed {DISCARDED_EDGE};outline-offset:1px">')


def chip(mark: Mark, *, located: bool) -> str:
    """A cited token as a chip: accepted in its requirement's colour, discarded struck through if absent."""
    common = (f'data-citation="{mark.decision.value}" data-requirement="{mark.requirement}" '
              f'data-ref="{esc(mark.ref)}" data-located="{str(located).lower()}"')
    label = esc(mark.ref) if mark.ref else "<em>empty</em>"
    if mark.accepted:
        return f'<span class="al-chip" {common} style="background-color:{colour(mark.requirement)}">{label}</span>'
    reason = mark.reason.value if mark.reason else "discarded"
    gone = "" if located else " al-gone"
    where = "" if located else ", not in the context"
    return (f'<span class="al-chip{gone}" {common} data-reason="{reason}" title="discarded: {reason}{where}" '
            f'style="background-color:{DISCARDED_BG};border:1px dashed {DISCARDED_EDGE}">{label}</span>'
            f'<span class="al-muted al-nowrap" style="font-size:0.7rem">{reason}</span>')


# --- verdict, why, requirements -----------------------------------------------------------------------


def verdict_html(verdict: str, action: str, *, source: str, note: str | None = None) -> str:
    """The verdict badge (``data-verdict``), the action, and where the judgement came from."""
    strong, soft = VERDICT_COLOURS.get(verdict, ("#495057", "#f1f3f5"))
    note_html = f" · {esc(note)}" if note else ""
    return (
        f'{STYLE}<div class="al-verdict" data-verdict="{esc(verdict)}" data-action="{esc(action)}" '
        f'style="background-color:{soft};border-color:{strong}">'
        f'<span class="al-badge" style="background-color:{strong}">{esc(verdict.upper())}</span>'
        f'<span class="al-action">action: {esc(action.replace("_", " "))}</span>'
        f'<div class="al-source">{source_label_html(source)}{note_html}</div></div>'
    )


def source_label_html(source: str) -> str:
    if is_recorded(source):
        return f'<span class="al-recorded" data-source="recorded">{esc(source)}</span>'
    return f'<span data-source="live">{esc(source)}</span>'


def paragraph_html(text: str, *, css: str = "al-why") -> str:
    return f'<p class="{css}">{esc(text)}</p>'


def requirements_html(rows: Iterable[Mapping[str, Any]]) -> str:
    """Requirements table: claimed → final status, accepted and discarded citations, explanation.

    Each row needs ``index``, ``requirement``, ``claimed``, ``status``, ``explanation``, and ``accepted`` and
    ``discarded`` as ``(mark, located)`` pairs (see ``highlight.requirement_rows``).
    """
    body = []
    for row in rows:
        index = row["index"]
        status = row["status"]
        claimed = row["claimed"]
        change = ""
        if claimed and claimed != status:
            change = f'<span class="al-muted al-nowrap" data-claimed="{esc(claimed)}">{esc(claimed)} →</span><br>'
        chips = [chip(mark, located=located) for mark, located in [*row["accepted"], *row["discarded"]]]
        body.append(
            f'<tr data-requirement-row="{index}">'
            f'<td><span class="al-dot" style="background-color:{colour(index)}">{index}</span></td>'
            f'<td class="al-text">{esc(row["requirement"])}</td>'
            f'<td>{change}<span class="al-status al-nowrap" data-status="{esc(status)}" '
            f'style="color:{STATUS_COLOURS.get(status, "#1f2328")}">{esc(status)}</span></td>'
            f'<td>{"".join(chips) or "—"}</td><td class="al-text">{esc(row["explanation"])}</td></tr>'
        )
    head = ('<tr><th style="width:1.8em">#</th><th style="width:30%">requirement</th><th>claimed → final</th>'
            "<th>citations</th><th>explanation</th></tr>")
    return f'{STYLE}<table class="al-table al-reqs"><thead>{head}</thead><tbody>{"".join(body)}</tbody></table>'


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

_NOTICE = {"error": ("#c92a2a", "#fff5f5"), "warning": ("#e67700", "#fff9db"), "info": ("#1c7ed6", "#e7f5ff"),
           "ok": ("#2b8a3e", "#ebfbee")}


def notice_html(kind: str, title: str, detail: str | None = None, remedy: str | None = None,
                code: str | None = None) -> str:
    """An alert box for messages that carry file, record or server text (st.error would render Markdown)."""
    edge, soft = _NOTICE[kind]
    parts = [f"<strong>{esc(title)}</strong>"]
    if detail:
        parts.append(f'<div class="al-detail">{esc(detail)}</div>')
    if remedy:
        parts.append(f'<div class="al-remedy"><strong>What to do:</strong> {esc(remedy)}</div>')
    if code:
        parts.append(f"<pre><code>{esc(code)}</code></pre>")
    return (f'{STYLE}<div class="al-notice" data-notice="{kind}" role="alert" '
            f'style="border-left-color:{edge};background-color:{soft};color:#1f2328">{"".join(parts)}</div>')


# --- tables for the Packing and Compare pages ---------------------------------------------------------

OUTCOME_COLOURS = {True: ("#ebfbee", "#2b8a3e"), False: ("#fff5f5", "#c92a2a"), None: ("transparent", "#57606a")}


def outcome_cell(text: str, accepted: bool | None, attrs: str = "") -> str:
    soft, strong = OUTCOME_COLOURS[accepted]
    return f'<td {attrs} style="background-color:{soft};color:{strong}">{esc(text)}</td>'


def table_html(head: Sequence[str], rows: Iterable[str], *, css: str = "al-table") -> str:
    """A table from escaped header labels and prebuilt ``<td>`` row bodies."""
    header = "".join(f"<th>{esc(label)}</th>" for label in head)
    body = "".join(f"<tr>{row}</tr>" for row in rows)
    return f'{STYLE}<table class="{css}"><thead><tr>{header}</tr></thead><tbody>{body}</tbody></table>'


def cell(value: Any, attrs: str = "") -> str:
    return f"<td {attrs}>{esc(value)}</td>" if attrs else f"<td>{esc(value)}</td>"
