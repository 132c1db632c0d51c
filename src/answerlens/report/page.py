"""The report's HTML document: head (a policy that forbids every load and every script, the styles), the body
in sheets that print on pages of their own, light and dark themes, and small shared pieces (headings, key/value
tables, the integrity line). Pure: strings in, string out; every value passes ``esc``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from answerlens.html.escape import esc
from answerlens.html.style import style_tag

POLICY = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
"""No fetch of any kind (images, fonts, frames, connections) and no script: the data block is inert JSON."""

CSS = """
.rp{--fg:var(--al-text);--muted:var(--al-muted);--bg:var(--al-page);--card:var(--al-card);--line:var(--al-rule);
  --soft:var(--al-rule);max-width:1120px;margin:0 auto;padding:20px 22px 48px;color:var(--fg);background:var(--bg)}
html,body{margin:0;background:var(--al-page)}
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
.rp h1{font-size:1.45rem;margin:0 0 2px}
.rp h2{font-size:1.12rem;margin:26px 0 8px;padding-bottom:3px;border-bottom:1px solid var(--line)}
.rp h3{font-size:0.98rem;margin:14px 0 6px}
.rp .rp-muted{color:var(--muted)}
.rp .rp-small{font-size:0.82rem}
.rp .rp-head{border-bottom:2px solid var(--line);padding-bottom:10px;margin-bottom:6px}
.rp .rp-ids{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:0.78rem;margin-top:6px}
.rp .rp-ids td{padding:1px 8px 1px 0;vertical-align:top}
.rp .rp-ids code{overflow-wrap:anywhere;user-select:all;-webkit-user-select:all}
.rp .rp-question{font-size:1.08rem;margin:4px 0;overflow-wrap:anywhere}
.rp .rp-kv{border-collapse:collapse;font-size:0.85rem;width:100%}
.rp .rp-kv td{padding:2px 8px;border-bottom:1px solid var(--soft);vertical-align:top;overflow-wrap:anywhere}
.rp .rp-kv td.rp-k{white-space:nowrap;color:var(--muted);width:1%}
.rp .rp-focus{border:1px solid var(--line);border-radius:6px;padding:4px 10px;margin:6px 0;font-size:0.85rem}
.rp .rp-focus label{margin-right:10px;white-space:nowrap;cursor:pointer}
.rp .rp-legend{font-size:0.8rem;margin:4px 0 6px;line-height:2}
.rp .rp-legend>span{display:inline-block;margin:0 14px 0 3px}
.rp .rp-swatch{display:inline-block;width:1.6em;height:0.9em;vertical-align:-1px;border-radius:2px;margin-right:4px}
.rp .rp-cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(190px,1fr));gap:8px;margin:6px 0}
.rp .rp-card{border:1px solid var(--line);border-radius:8px;padding:6px 10px;background:var(--card)}
.rp .rp-card .rp-value{font-size:1.35rem;font-weight:600}
.rp .rp-card .rp-label{font-size:0.78rem;color:var(--muted)}
.rp .rp-charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(440px,100%),1fr));gap:18px;
  align-items:start}
.rp figure{margin:0}
.rp figcaption{font-weight:600;font-size:0.92rem;margin-bottom:4px}
.rp svg{max-width:100%;height:auto;color:var(--fg)}
.rp .rp-cell{display:inline-block;min-width:1.2em;border-radius:3px;padding:0 5px;margin:1px;
  color:var(--al-solid-text);font-size:0.74rem;font-family:ui-monospace,monospace}
.rp .al-context{max-height:80vh}
.rp .al-hashes td{overflow-wrap:anywhere}
.rp .al-hashes td.al-k{width:11.5em;overflow-wrap:normal}
.rp details>summary{cursor:pointer}
@media screen and (max-width:720px){
  .rp{padding:12px 10px 32px}
  .rp .al-table,.rp .rp-kv{display:block;overflow-x:auto}
  .rp .al-table th{white-space:normal}
}
@media print{
  @page{margin:14mm}
  :root{color-scheme:light}
  body{font-size:10.5pt}
  .rp{max-width:none;padding:0}
  .rp .rp-sheet+.rp-sheet{break-before:page}
  .rp h2,.rp h3{break-after:avoid}
  .rp .al-context{max-height:none;overflow:visible}
  .rp .al-line,.rp tr,.rp figure,.rp .rp-card{break-inside:avoid}
  .rp .rp-focus{display:none}
  .rp *{-webkit-print-color-adjust:exact;print-color-adjust:exact}
}
"""


def document(*, title: str, kind: str, sheets: Sequence[str], data: str, css: str = "") -> str:
    """The whole file. ``sheets`` are escaped body parts, each printed from a new page; ``css`` is generated
    from data that was checked to be safe in a style sheet (see ``focus``); ``data`` is the embedded data block.

    The one stylesheet (``html.style``) is written here, once; the theme follows the reader's system setting
    through ``color-scheme`` and the palette's ``light-dark()`` pairs.
    """
    body = "\n".join(f'<div class="rp-sheet">\n{sheet}\n</div>' for sheet in sheets)
    return (
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="color-scheme" content="light dark">\n'
        f"<title>{esc(title)}</title>\n{style_tag(CSS, css)}\n</head>\n<body>\n"
        f'<main class="rp" data-report="{esc(kind)}">\n{body}\n</main>\n{data}\n</body>\n</html>\n'
    )


def section(anchor: str, title: str, *parts: str) -> str:
    return f'<section id="{esc(anchor)}">\n<h2>{esc(title)}</h2>\n' + "\n".join(parts) + "\n</section>"


def heading(text: str) -> str:
    return f"<h3>{esc(text)}</h3>"


def muted(text: str, *, small: bool = True) -> str:
    return f'<p class="rp-muted{" rp-small" if small else ""}">{esc(text)}</p>'


def key_values(rows: Iterable[tuple[str, Any]], *, attribute: str = "data-fact") -> str:
    """A key/value table; each value cell names its key in ``attribute``."""
    body = "".join(f'<tr><td class="rp-k">{esc(key)}</td><td {attribute}="{esc(key)}">{esc(_text(value))}</td></tr>'
                   for key, value in rows)
    return f'<table class="rp-kv">{body}</table>'


VERIFY_COMMAND = "answerlens verify REPORT.html"


def header(title: str, subtitle: str, ids: Sequence[tuple[str, str]], note: str) -> str:
    """The first lines: what this is, where it came from, the identities to check it by, how to verify it."""
    rows = "".join(f'<tr><td class="rp-muted">{esc(name)}</td><td><code data-integrity="{esc(name)}">{esc(value)}'
                   f"</code></td></tr>" for name, value in ids)
    return (f'<header class="rp-head"><h1>{esc(title)}</h1><div class="rp-muted">{esc(subtitle)}</div>'
            f'<table class="rp-ids">{rows}</table><div class="rp-muted rp-small">{esc(note)} '
            f"<code>{esc(VERIFY_COMMAND)}</code></div></header>")


def cards(numbers: Iterable[tuple[str, str, str | None]]) -> str:
    """Headline numbers as cards: value, label and (when given) what the number counts."""
    out = []
    for label, value, help_text in numbers:
        hint = f'<div class="rp-label">{esc(help_text)}</div>' if help_text else ""
        out.append(f'<div class="rp-card" data-number="{esc(label)}"><div class="rp-value">{esc(value)}</div>'
                   f'<div class="rp-label"><strong>{esc(label)}</strong></div>{hint}</div>')
    return f'<div class="rp-cards">{"".join(out)}</div>'


def _text(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)
