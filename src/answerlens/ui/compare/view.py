"""The Compare page's widgets: pick two assessments, then identity, verification and requirement diff."""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from answerlens.audit import VerificationReport
from answerlens.errors import BundleError, DatasetError
from answerlens.trials.reader import FoundAssessment, assessments_in
from answerlens.ui.common import history, sources
from answerlens.ui.common.markup import STATUS_COLOURS, cell, esc, notice_html, outcome_cell, table_html
from answerlens.ui.compare.viewmodel import Comparison

HASHES = frozenset({"query_sha256", "context_sha256", "answer_sha256", "configuration_sha256", "prompt_sha256",
                    "evaluation_id", "assessment_sha256", "raw_output_sha256"})


def pick(prefix: str, side: str) -> tuple[str, dict[str, Any]] | None:
    """One side's assessment: a run from this session or a file (an assessment or a trial result file)."""
    runs = history.entries(st.session_state)
    options = (["A run from this session"] if runs else []) + ["Upload a file"]
    kind = st.radio(f"Assessment {side}", options, horizontal=True, key=f"{prefix}.{side}.kind")
    if kind == "A run from this session":
        titles = {entry.number: entry.title for entry in runs}
        numbers = list(reversed(titles))
        default = min(len(numbers) - 1, 0 if side == "A" else 1)
        number = st.selectbox("Run", numbers, index=default, format_func=titles.__getitem__,
                              key=f"{prefix}.{side}.run")
        entry = history.find(st.session_state, number)
        return (entry.title, entry.assessment.model_dump(mode="json")) if entry is not None else None
    upload = st.file_uploader("Assessment JSON, or a trial result file", type=["json"], key=f"{prefix}.{side}.file")
    if upload is None:
        return None
    try:
        found = assessments_in(json.loads(sources.reply_text(upload.getvalue(), upload.name)), upload.name)
    except (ValueError, BundleError) as exc:  # a trial file's DatasetError names the file already
        found, problem = [], str(exc) if isinstance(exc, DatasetError) else f"{upload.name}: {exc}"
    else:
        problem = (f"{upload.name}: not an assessment: expected a JSON object with 'verdict' and 'requirements', or "
                   "a trial result file with at least one assessed sample")
    if not found:
        st.html(notice_html("error", "No assessment in this file", problem,
                            remedy="upload an assessment JSON (answerlens or PRME) or a trial result file"))
        return None
    if len(found) == 1:
        return upload.name, found[0].data
    labels = [_label(item) for item in found]
    index = st.selectbox(f"Assessment in {len(found)} trial samples", range(len(found)),
                         format_func=labels.__getitem__, key=f"{prefix}.{side}.sample")
    return f"{upload.name} · {labels[index]}", found[index].data


def _label(item: FoundAssessment) -> str:
    return f"{item.question_id} · repeat {item.repeat}" if item.position is not None else "assessment"


def identity(comparison: Comparison) -> None:
    same_in, same_out = comparison.same_inputs, comparison.same_output
    inputs = ("Same inputs: evaluation_id matches" if same_in
              else "Different inputs: evaluation_id differs (question, context, answer, configuration or prompt)")
    output = ("Same validated output: assessment_sha256 matches" if same_out
              else "Different validated output: assessment_sha256 differs")
    hint = None
    if same_in and not same_out:
        hint = "The same inputs gave a different result: the model is not deterministic here (see the diff)."
    st.html(f'<div data-same-inputs="{str(same_in).lower()}">'
            f'{notice_html("ok" if same_in else "warning", inputs)}</div>'
            f'<div data-same-output="{str(same_out).lower()}">'
            f'{notice_html("ok" if same_out else "warning", output, hint)}</div>')


def verification(side: str, name: str, report: VerificationReport) -> None:
    if report.ok:
        st.html(f'<div data-verified="{side}">{notice_html("ok", f"{side} verifies", name)}</div>')
        return
    problems = "\n".join(report.problems)
    st.html(f'<div data-verify-failed="{side}">'
            f'{notice_html("error", f"{side} does not verify", name, code=problems)}</div>')


def fields(comparison: Comparison) -> None:
    rows = []
    for row in comparison.fields:
        attr_a = f'data-hash="{row.name}" data-side="A"' if row.name in HASHES else ""
        attr_b = f'data-hash="{row.name}" data-side="B"' if row.name in HASHES else ""
        mark = outcome_cell("same" if row.same else "differs", True if row.same else False)
        rows.append(cell(row.name) + _value(row.a, attr_a) + _value(row.b, attr_b) + mark)
    st.html(table_html(["field", "A", "B", ""], rows))


def _value(value: Any, attrs: str) -> str:
    text = "null" if value is None else str(value)
    return f'<td {attrs} style="font-family:ui-monospace,monospace;font-size:0.75rem;overflow-wrap:anywhere">' \
           f"{esc(text)}</td>"


def requirements(comparison: Comparison) -> None:
    rows = []
    for row in comparison.requirements:
        text = row.text_a if row.text_a is not None else row.text_b
        if "text" in row.changes:
            text = f"A: {row.text_a}\nB: {row.text_b}"
        changes = ", ".join(row.changes) or "same"
        rows.append(
            cell("" if row.a_index is None else row.a_index) + cell("" if row.b_index is None else row.b_index)
            + f'<td style="white-space:pre-wrap">{esc(text)}</td>'
            + _status(row.status_a) + _status(row.status_b)
            + cell(" ".join(row.refs_a) or "—") + cell(" ".join(row.refs_b) or "—")
            + outcome_cell(changes, None if row.changes else True, f'data-change="{esc(changes)}"')
        )
    st.html(table_html(["A #", "B #", "requirement", "status A", "status B", "refs A", "refs B", "change"], rows))


def _status(status: str | None) -> str:
    if status is None:
        return cell("—")
    return f'<td style="color:{STATUS_COLOURS.get(status, "#1f2328")};font-weight:600">{esc(status)}</td>'
