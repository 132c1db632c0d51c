"""A sweep's grid as HTML (pure): two axes (formats × budgets unless others are picked), the rest filtered or one
grid per combination, each cell coloured by its most frequent action with the palette's verdict tones, its
stability and cut in words; the legend; the changes. The report and the app's Packing page draw the same markup."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from answerlens.html.escape import esc
from answerlens.html.markup import cell as _cell
from answerlens.html.markup import table_html
from answerlens.sweeps.result import SweepCell, SweepResult
from answerlens.sweeps.view import (
    ACTION_WORDS,
    AXES,
    COLUMNS,
    ROWS,
    change_text,
    filter_text,
    filters,
    lookup,
    no_change_text,
    outcome,
    setting_text,
    value_text,
    values,
)

TONES = {"answer": "answerable", "answer_partially": "partial", "abstain": "insufficient",
         "surface_conflict": "conflicting"}
"""Action -> the palette's verdict tone (the verdict each action follows from)."""


def cell_html(index: int, cell: SweepCell, link: Callable[[int], str | None] | None) -> str:
    total = len(cell.records_kept) + len(cell.records_cut)
    cut = f"{len(cell.records_kept)}/{total} records · {cell.tokens_used:,} tokens"
    if cell.records_shortened:
        cut += f" · {len(cell.records_shortened)} cut short"
    attrs = f'data-cell="{index}" data-format="{esc(cell.format)}" data-budget="{esc(cell.budget)}"'
    if not cell.assessable:
        body = (f'<div class="al-act">not assessed</div><div class="al-sub">{esc(cut)}</div>'
                f'<div class="al-sub">{esc(_short_reason(cell.reason or ""))}</div>')
        return f'<td class="al-na" {attrs} data-action="none" title="{esc(cell.reason or "")}">{body}</td>'
    action = cell.action
    if action is None:  # no sample yet, or every call failed: no action to colour it by (red is surface conflict)
        why = "every call failed" if cell.samples else "not run yet"
        body = (f'<div class="al-act">{esc(outcome(cell))}</div><div class="al-sub">{why}</div>'
                f'<div class="al-sub">{esc(cut)}</div>')
        return f'<td class="al-na" {attrs} data-action="{"error" if cell.samples else "none"}">{body}</td>'
    tone = TONES[action.value]
    word = ACTION_WORDS[action.value]
    count = cell.actions.get(action.value, 0)
    stability = "stable" if cell.stable else "unstable"
    stable_css = "" if cell.stable else ' class="al-unstable"'
    body = (f'<div class="al-act">{esc(word)} {count}/{len(cell.samples)}</div>'
            f'<div class="al-sub"><span{stable_css}>{stability}</span>'
            f'{" · " + str(cell.errors) + " error(s)" if cell.errors else ""}</div>'
            f'<div class="al-sub">{esc(cut)}</div>')
    href = link(index) if link is not None else None
    if href is not None:
        body = f'<a href="{esc(href)}" target="_self">{body}</a>'
    style = f"background-color:var(--al-soft-{tone});box-shadow:inset 4px 0 0 var(--al-edge-{tone})"
    return (f'<td {attrs} data-action="{esc(action.value)}" data-stable="{str(cell.stable).lower()}" style="{style}">'
            f"{body}</td>")


def _short_reason(reason: str) -> str:
    return reason.split(" (", 1)[0].split(":", 1)[0]


def grid_html(result: SweepResult, *, link: Callable[[int], str | None] | None = None, rows: str = ROWS,
              cols: str = COLUMNS, fixed: Mapping[str, Any] | None = None) -> str:
    """The grid: a row per value of ``rows``, a column per value of ``cols`` (format × budget by default);
    ``fixed`` picks the value of each other axis, else there is one grid per combination of them, each captioned.
    ``link(index)`` makes each assessed cell a link."""
    tables = [_table(result, link, rows, cols, chosen) for chosen in ([dict(fixed)] if fixed is not None
                                                                     else filters(result, rows, cols))]
    return "".join(tables) + legend_html()


def _table(result: SweepResult, link: Callable[[int], str | None] | None, rows: str, cols: str,
           fixed: Mapping[str, Any]) -> str:
    across = values(result, cols)
    head = "".join(f"<th>{esc(value if cols == 'budget' else value_text(cols, value))}</th>" for value in across)
    body = []
    for value in values(result, rows):
        cells = []
        for other in across:
            found = lookup(result, {**fixed, rows: value, cols: other})
            cells.append(cell_html(found[0], found[1], link) if found else "<td></td>")
        body.append(f"<tr><th>{esc(value_text(rows, value))}</th>{''.join(cells)}</tr>")
    corner = f"{AXES[rows]} \\ {AXES[cols]}"
    caption = f'<div class="al-muted" data-grid-filter>{esc(filter_text(fixed))}</div>' if fixed else ""
    table = f"<table><thead><tr><th>{esc(corner)}</th>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    return f'{caption}<div class="al-sweep" role="region" aria-label="sweep grid">{table}</div>'


def legend_html() -> str:
    items = [f'<span><i style="background-color:var(--al-soft-{TONES[key]});box-shadow:inset 4px 0 0 '
             f'var(--al-edge-{TONES[key]})"></i>{esc(label)}</span>' for key, label in ACTION_WORDS.items()]
    items.append('<span><i style="border-style:dashed"></i>not assessed, no sample yet, or every call failed</span>')
    items.append("<span>n/m: repeats with that action · unstable: repeats disagree</span>")
    return f'<div class="al-legend" data-legend="sweep">{"".join(items)}</div>'


def changes_html(result: SweepResult, labels: Mapping[str, str] | None = None) -> str:
    if not result.changes:
        return f'<p class="al-muted" data-changes="none">Changes: {esc(no_change_text(result))}.</p>'
    items = "".join(f'<li data-change="{index}">{esc(change_text(result, change, labels))}</li>'
                    for index, change in enumerate(result.changes))
    return f'<ol class="al-why">{items}</ol>'


def detail_rows(result: SweepResult) -> list[list[str]]:
    """Per cell, as text: setting, tokens, records kept/cut, actions, verdicts, stability, latency, reason; and
    the second opinion's flags counted over repeats when the sweep asked for one."""
    opinions = any(cell.flags is not None for cell in result.cells)
    rows = []
    for cell in result.cells:
        row = [setting_text(cell), f"{cell.tokens_used:,}" + (f" of {cell.budget_tokens:,}"
                                                             if cell.budget_tokens is not None else ""),
               f"{len(cell.records_kept)} kept, {len(cell.records_cut)} cut",
               ", ".join(f"{ACTION_WORDS[name]} {count}" for name, count in cell.actions.items()) or "—",
               ", ".join(f"{name} {count}" for name, count in cell.verdicts.items()) or "—",
               ("stable" if cell.stable else "unstable") if cell.assessable and cell.samples else "—",
               f"{cell.latency_ms:,.0f} ms" if cell.latency_ms is not None else "—"]
        if opinions:
            row.append(", ".join(f"{code} ×{count}" for code, count in (cell.flags or {}).items())
                       or ("none" if cell.assessable else "—"))
        rows.append([*row, cell.reason or ""])
    return rows


def cells_table(result: SweepResult) -> str:
    """Every cell's numbers (``detail_rows``) as a table, scrolling sideways on a narrow screen."""
    head = ["setting", "tokens used", "records", "actions", "verdicts", "stability", "median latency"]
    if any(cell.flags is not None for cell in result.cells):
        head.append("second-opinion flags")
    body = ["".join(map(_cell, row)) for row in detail_rows(result)]
    return f'<div class="al-scroll">{table_html([*head, "why not assessed"], body)}</div>'


def requirement_tables(result: SweepResult) -> list[tuple[str, str]]:
    """Per assessed cell: its setting in words, and its requirements (numbered from 1) over repeats: final
    statuses, accepted citations and discarded ones, each with how many repeats cited it."""
    tables = []
    for item in result.cells:
        if not item.requirements:
            continue
        body = ["".join([_cell(index), _cell(tally.requirement),
                         _cell(", ".join(f"{name} {count}" for name, count in tally.statuses.items())),
                         _cell(", ".join(f"{token} ×{count}" for token, count in tally.accepted.items()) or "—"),
                         _cell(", ".join(f"{token!r} ×{count}" for token, count in tally.discarded.items()) or "—")])
                for index, tally in enumerate(item.requirements, start=1)]
        tables.append((setting_text(item), table_html(["#", "requirement", "final statuses", "accepted citations",
                                                       "discarded"], body)))
    return tables
