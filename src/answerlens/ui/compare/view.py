"""The Compare page's widgets: pick two assessments, then identity, verification and requirement diff."""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from answerlens.errors import BundleError, DatasetError
from answerlens.trials.found import FoundAssessment
from answerlens.trials.reader import assessments_in
from answerlens.ui.common import history, sources
from answerlens.ui.common.markup import notice_html
from answerlens.ui.compare.viewmodel import (
    Comparison,
    fields_html,
    identity_html,
    requirements_table,
    verification_html,
)
from answerlens.verification import VerificationReport


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
    st.html(identity_html(comparison))


def verification(side: str, name: str, report: VerificationReport) -> None:
    st.html(verification_html(side, name, report))


def fields(comparison: Comparison) -> None:
    st.html(fields_html(comparison))


def requirements(prefix: str, comparison: Comparison) -> None:
    """The requirement diff, sortable by any column."""
    number = st.column_config.NumberColumn
    text = st.column_config.TextColumn
    st.dataframe(
        requirements_table(comparison),
        hide_index=True,
        width="stretch",
        key=f"{prefix}.requirements",
        column_config={
            "A #": number("A #", help="the requirement's index in A (empty: not in A)", format="%d", width="small"),
            "B #": number("B #", help="the requirement's index in B (empty: not in B)", format="%d", width="small"),
            "requirement": text("requirement", width="large"),
            "status A": text("status A", help="final status in A"),
            "status B": text("status B", help="final status in B"),
            "refs A": text("refs A", help="accepted citations in A"),
            "refs B": text("refs B", help="accepted citations in B"),
            "change": text("change", help="same, or any of: added, removed, text, status, citations, explanation"),
        },
    )
