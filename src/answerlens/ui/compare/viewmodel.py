"""Comparing two assessments: same inputs, same validated output, and a requirement-level diff, with the
escaped HTML the page shows for them (pure).

Works on answerlens and PRME assessment JSON; ``answerlens.trials.reader.assessments_in`` finds them in files.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from answerlens.audit import IDENTITY_FIELDS
from answerlens.html import palette
from answerlens.html.escape import esc
from answerlens.html.markup import cell, notice_html, outcome_cell, status_badge, table_html
from answerlens.ui.common.filters import Facet, TableSpec

COMPARED_FIELDS = ("verdict", "recommended_action", "provider", "model", *IDENTITY_FIELDS, "evaluation_id",
                   "assessment_sha256", "raw_output_sha256")
HASHES = frozenset({"query_sha256", "context_sha256", "answer_sha256", "configuration_sha256", "prompt_sha256",
                    "evaluation_id", "assessment_sha256", "raw_output_sha256"})
"""Compared fields whose cells carry ``data-hash`` (and ``data-side``), as the Inspect page's audit does."""


@dataclass(frozen=True)
class FieldRow:
    name: str
    a: Any
    b: Any

    @property
    def same(self) -> bool:
        return self.a == self.b


@dataclass(frozen=True)
class RequirementRow:
    a_index: int | None
    b_index: int | None
    text_a: str | None
    text_b: str | None
    status_a: str | None
    status_b: str | None
    refs_a: tuple[str, ...]
    refs_b: tuple[str, ...]
    changes: tuple[str, ...]
    """Empty when unchanged; else any of ``added``, ``removed``, ``text``, ``status``, ``citations``,
    ``explanation``."""


@dataclass(frozen=True)
class Comparison:
    same_inputs: bool
    same_output: bool
    fields: tuple[FieldRow, ...]
    requirements: tuple[RequirementRow, ...]

    @property
    def changed(self) -> int:
        return sum(1 for row in self.requirements if row.changes)


def compare(a: Mapping[str, Any], b: Mapping[str, Any]) -> Comparison:
    fields = tuple(FieldRow(name, a.get(name), b.get(name)) for name in COMPARED_FIELDS)
    same_inputs = a.get("evaluation_id") is not None and a.get("evaluation_id") == b.get("evaluation_id")
    same_output = a.get("assessment_sha256") is not None and a.get("assessment_sha256") == b.get("assessment_sha256")
    return Comparison(same_inputs, same_output, fields, tuple(_requirements(a, b)))


def _key(item: Mapping[str, Any]) -> str:
    return " ".join(str(item.get("requirement", "")).split()).casefold()


def _requirements(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[RequirementRow]:
    left = [item for item in a.get("requirements") or [] if isinstance(item, Mapping)]
    right = [item for item in b.get("requirements") or [] if isinstance(item, Mapping)]
    matcher = difflib.SequenceMatcher(a=[_key(i) for i in left], b=[_key(i) for i in right], autojunk=False)
    rows: list[RequirementRow] = []
    for tag, a0, a1, b0, b1 in matcher.get_opcodes():
        if tag in ("equal", "replace"):
            pairs = list(zip(range(a0, a1), range(b0, b1), strict=False))
            rows += [_row(i, left[i], j, right[j]) for i, j in pairs]
            rows += [_row(i, left[i], None, None) for i in range(a0 + len(pairs), a1)]
            rows += [_row(None, None, j, right[j]) for j in range(b0 + len(pairs), b1)]
        elif tag == "delete":
            rows += [_row(i, left[i], None, None) for i in range(a0, a1)]
        else:
            rows += [_row(None, None, j, right[j]) for j in range(b0, b1)]
    return rows


def _refs(item: Mapping[str, Any] | None) -> tuple[str, ...]:
    return tuple(map(str, item.get("evidence_refs") or ())) if item is not None else ()


def _ids(item: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(map(str, item.get("evidence_ids") or ()))


def _row(i: int | None, x: Mapping[str, Any] | None, j: int | None, y: Mapping[str, Any] | None) -> RequirementRow:
    changes: list[str] = []
    if x is None:
        changes.append("added")
    elif y is None:
        changes.append("removed")
    else:
        if _key(x) != _key(y):
            changes.append("text")
        if x.get("status") != y.get("status"):
            changes.append("status")
        if _refs(x) != _refs(y) or _ids(x) != _ids(y):
            changes.append("citations")
        if x.get("explanation") != y.get("explanation"):
            changes.append("explanation")
    return RequirementRow(
        a_index=i,
        b_index=j,
        text_a=x.get("requirement") if x is not None else None,
        text_b=y.get("requirement") if y is not None else None,
        status_a=x.get("status") if x is not None else None,
        status_b=y.get("status") if y is not None else None,
        refs_a=_refs(x),
        refs_b=_refs(y),
        changes=tuple(changes),
    )


# --- what the page shows ------------------------------------------------------------------------------


def question_html(a: str | None, b: str | None) -> str:
    """The question compared: once when both sides asked the same, both when they differ, and a plain word when
    a side's file holds only the question's hash."""
    def shown(question: str | None) -> str:
        return esc(question) if question is not None else "<em>not in this file (only its hash)</em>"

    style = 'style="font-size:1.05rem;margin:2px 0 8px;overflow-wrap:anywhere"'
    if a is not None and a == b:
        return f'<div data-question="same" {style}><strong>Question:</strong> {shown(a)}</div>'
    return (f'<div data-question="differ" {style}><div><strong>Question A:</strong> {shown(a)}</div>'
            f"<div><strong>Question B:</strong> {shown(b)}</div></div>")


def identity_html(comparison: Comparison) -> str:
    """Same inputs? Same validated output? Each as a notice carrying ``data-same-inputs``/``data-same-output``."""
    same_in, same_out = comparison.same_inputs, comparison.same_output
    inputs = ("Same inputs: evaluation_id matches" if same_in
              else "Different inputs: evaluation_id differs (question, context, answer, configuration or prompt)")
    output = ("Same validated output: assessment_sha256 matches" if same_out
              else "Different validated output: assessment_sha256 differs")
    hint = None
    if same_in and not same_out:
        hint = ("The same inputs gave a different result: the replies differ (a model that is not deterministic "
                "here, or another recording); see the diff.")
    return (f'<div data-same-inputs="{str(same_in).lower()}">'
            f'{notice_html("ok" if same_in else "warning", inputs)}</div>'
            f'<div data-same-output="{str(same_out).lower()}">'
            f'{notice_html("ok" if same_out else "warning", output, hint)}</div>')


def verification_html(side: str, name: str, problems: Sequence[str]) -> str:
    """Whether one side verifies (``data-verified``) or not (``data-verify-failed``, with the problems)."""
    if not problems:
        return f'<div data-verified="{esc(side)}">{notice_html("ok", f"{side} verifies", name)}</div>'
    return (f'<div data-verify-failed="{esc(side)}">'
            f'{notice_html("error", f"{side} does not verify", name, code=chr(10).join(problems))}</div>')


def fields_html(comparison: Comparison) -> str:
    """Field by field, A beside B, the same or not."""
    rows = []
    for row in comparison.fields:
        attr_a = f'data-hash="{row.name}" data-side="A"' if row.name in HASHES else ""
        attr_b = f'data-hash="{row.name}" data-side="B"' if row.name in HASHES else ""
        mark = outcome_cell("same" if row.same else "differs", True if row.same else False)
        rows.append(cell(row.name) + _value(row.a, attr_a) + _value(row.b, attr_b) + mark)
    return table_html(["field", "A", "B", ""], rows)


def _value(value: Any, attrs: str) -> str:
    text = "null" if value is None else str(value)
    return f'<td {attrs} style="font-family:ui-monospace,monospace;font-size:0.75rem;overflow-wrap:anywhere">' \
           f"{esc(text)}</td>"


REQUIREMENT_COLUMNS = ("A #", "B #", "change", "requirement", "status A", "status B", "refs A", "refs B")
"""``change`` early: on a phone it is what the first screen of the table shows beside the numbers."""


def requirements_frame(comparison: Comparison) -> pd.DataFrame:
    """The requirement diff as a table (one row per aligned pair; a missing side's number and status are null).

    Requirements are numbered from 1, as people count them (``A #`` 1 is ``requirements[0]``)."""
    rows = []
    for row in comparison.requirements:
        text = row.text_a if row.text_a is not None else row.text_b
        if "text" in row.changes:
            text = f"A: {row.text_a}\nB: {row.text_b}"
        rows.append([_number(row.a_index), _number(row.b_index), ", ".join(row.changes) or "same", text, row.status_a,
                     row.status_b, " ".join(row.refs_a), " ".join(row.refs_b)])
    frame = pd.DataFrame(rows, columns=list(REQUIREMENT_COLUMNS))
    return frame.astype({"A #": "Int64", "B #": "Int64"})


def _number(index: int | None) -> int | None:
    return None if index is None else index + 1


def requirements_html(frame: pd.DataFrame) -> str:
    """The visible rows of the diff as a table that wraps instead of scrolling: on a phone the requirement and its
    statuses are on the first screen, and at any width no column is cut. One row per requirement: its numbers in
    A and B, its text, its status (A → B when they differ), the kind of change and the accepted citations."""
    rows = []
    for record in frame.to_dict("records"):
        numbers = f"{_shown(record['A #'])} → {_shown(record['B #'])}"
        a, b = record["status A"], record["status B"]
        status = _status(a) if a == b else f"{_status(a)} → {_status(b)}"
        change = record["change"]
        refs_a, refs_b = record["refs A"] or "—", record["refs B"] or "—"
        rows.append(
            f'<td class="al-nowrap" data-a="{esc(_shown(record["A #"]))}" data-b="{esc(_shown(record["B #"]))}">'
            f"{esc(numbers)}</td>"
            + f'<td class="al-text" style="min-width:9em">{esc(record["requirement"]).replace(chr(10), "<br>")}</td>'
            + f'<td data-status-a="{esc(a or "")}" data-status-b="{esc(b or "")}">{status}</td>'
            + _change_badge(change)
            + cell(refs_a if refs_a == refs_b else f"{refs_a} → {refs_b}", 'class="al-text"'))
    table = table_html(["A → B #", "requirement", "status", "change", "citations"], rows)
    return f'<div class="al-scroll" data-requirement-diff="{len(rows)}">{table}</div>'


def _shown(number: Any) -> str:
    return "—" if number is None or pd.isna(number) else str(int(number))


def _status(status: Any) -> str:
    if not isinstance(status, str):
        return "—"
    return status_badge(status)


REQUIREMENT_SPEC = TableSpec(("requirement",), (
    Facet("Status", ("status A", "status B")),
    Facet("Change", ("change",), separator=","),
))
"""Search the requirement text; keep a status on either side, and kinds of change."""


CHANGED_COLOUR = palette.SOLID["partial"]
"""A change is white words on a solid colour (the palette's badge pair, readable in both themes); "same" stays plain."""


def _change_badge(change: str) -> str:
    if change == "same":
        return f'<td data-change="{esc(change)}">{esc(change)}</td>'
    return (f'<td data-change="{esc(change)}"><span class="al-status" style="background-color:{CHANGED_COLOUR};'
            f'color:{palette.SOLID_TEXT}">{esc(change)}</span></td>')
