"""The one stylesheet of the app and the reports: written once per page (the app's style call, the report's
``<head>``), never carried by a fragment. Its custom properties are the palette's, declared on the root so every
element (legend swatches and requirement dots included) resolves them, and each follows the theme through
``light-dark()``."""

from __future__ import annotations

from answerlens.html import palette

STYLESHEET = ":root{" + palette.css_variables() + """}
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
.al-cite.al-uncounted{background:transparent}
.al-cite.al-flagged{outline:2px solid var(--al-flagged);outline-offset:1px;
  text-decoration-line:underline;text-decoration-style:wavy;text-decoration-color:var(--al-flagged);
  text-decoration-thickness:2px;text-underline-offset:2px;text-decoration-skip-ink:none}
.al-cite.al-flagged::after{content:"\\2691";color:var(--al-flagged);font-size:0.8rem;font-weight:700;
  vertical-align:super;margin-left:2px}
.al-unread{color:var(--al-muted);text-decoration-line:underline;text-decoration-style:dotted;
  text-decoration-color:var(--al-muted);text-underline-offset:3px}
.al-ctl{font-size:0.65rem;border:1px dashed var(--al-discarded);color:inherit;border-radius:3px;padding:0 2px;
  margin:0 1px}
.al-chip{display:inline-block;font-family:ui-monospace,monospace;font-size:0.75rem;border-radius:10px;
  padding:0 7px;margin:1px 2px;color:var(--al-text);max-width:100%;overflow-wrap:anywhere}
.al-chip.al-discarded{background:transparent;border:1px dashed var(--al-discarded)}
.al-chip.al-gone{text-decoration:line-through;text-decoration-thickness:2px}
.al-verdict{border-radius:8px;padding:10px 14px;border:1px solid;border-left-width:6px;color:var(--al-text)}
.al-badge{display:inline-block;font-weight:700;letter-spacing:0.04em;color:var(--al-solid-text);border-radius:6px;
  padding:2px 10px}
.al-action{font-weight:600;margin-left:6px}
.al-source{font-size:0.8rem;margin-top:6px}
.al-recorded{display:inline-block;border:1px solid var(--al-edge-partial);border-radius:4px;padding:0 6px;
  font-weight:600;background:var(--al-soft-partial)}
.al-pill{display:inline-block;color:var(--al-solid-text);border-radius:4px;padding:0 6px;font-weight:700;
  font-size:0.78rem;margin:2px 4px 0 0}
.al-why{line-height:1.5}
.al-table{border-collapse:collapse;width:100%;font-size:0.82rem;color:var(--al-text)}
.al-table td.al-text{overflow-wrap:anywhere}
.al-nowrap{white-space:nowrap}
a.al-jump{text-decoration:none;color:inherit;cursor:pointer}
.al-table th{text-align:left;border-bottom:2px solid var(--al-rule);padding:4px 6px}
.al-scroll{overflow-x:auto;max-width:100%}
.al-table td{border-bottom:1px solid var(--al-rule);padding:4px 6px;vertical-align:top}
.al-explain{margin-top:3px;font-size:0.78rem;color:var(--al-muted)}
.al-second{margin-top:4px}
.al-status{font-weight:700;color:var(--al-solid-text);border-radius:4px;padding:0 5px;font-size:0.75rem}
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
.al-sweep{overflow-x:auto}
.al-sweep table{border-collapse:separate;border-spacing:4px;font-size:0.84rem;color:var(--al-text)}
.al-sweep th{text-align:left;font-weight:600;padding:2px 6px;white-space:nowrap}
.al-sweep tbody th{white-space:normal;min-width:84px}
.al-sweep td{min-width:128px;padding:6px 8px;border-radius:6px;vertical-align:top;border:1px solid var(--al-rule)}
.al-sweep td.al-na{border-style:dashed;color:var(--al-muted)}
.al-sweep td a{color:inherit;text-decoration:none;display:block}
.al-sweep .al-act{font-weight:700}
.al-sweep .al-sub{font-size:0.76rem;color:var(--al-muted)}
.al-sweep .al-unstable{font-weight:700;color:var(--al-text)}
.al-legend{display:flex;flex-wrap:wrap;gap:6px 14px;font-size:0.8rem;margin:6px 0;color:var(--al-text)}
.al-legend span{display:inline-flex;align-items:center;gap:5px}
.al-legend i{display:inline-block;width:14px;height:14px;border-radius:3px;border:1px solid var(--al-rule)}
"""


def style_tag(*extra: str) -> str:
    """``STYLESHEET`` and any page-specific rules after it, as one ``<style>`` element."""
    return "<style>" + STYLESHEET + "".join(extra) + "</style>"
