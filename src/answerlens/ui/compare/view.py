"""The Compare page's widgets: pick two assessments, then identity, verification, the requirement diff (searchable,
filterable, exported as shown) and the second-opinion differences."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

import streamlit as st

from answerlens.errors import BundleError, DatasetError
from answerlens.html.escape import plain
from answerlens.html.markup import notice_html
from answerlens.json_reader import read_json
from answerlens.trials.reader import FoundAssessment, assessments_in
from answerlens.ui.common import filters_view, history, sources
from answerlens.ui.common.filters import badged_frame
from answerlens.ui.compare.opinions import OpinionDiff, coverage_html, opinion_frame, verdicts_html
from answerlens.ui.compare.viewmodel import (
    REQUIREMENT_SPEC,
    Comparison,
    fields_html,
    identity_html,
    question_html,
    requirements_frame,
    requirements_html,
    verification_html,
)

SESSION, SHIPPED, UPLOAD = "A stored run", "Shipped example", "Upload a file"


class Picked(NamedTuple):
    """One side: its name, its assessment (or printed document) and the question's text when it is known (an
    assessment holds only its hash; a stored run and a printed second opinion hold the text)."""

    name: str
    data: dict[str, Any]
    question: str | None
COMPARE_DIR = "compare"
"""Under the sample directory: the shipped pair (``sample_bundles/compare``, made by ``make_example.py``)."""


def shipped(samples_dir: Path) -> dict[str, Path]:
    """The shipped example assessments by file name."""
    folder = samples_dir / COMPARE_DIR
    return {path.name: path for path in sorted(folder.glob("*.json"))} if folder.is_dir() else {}


@st.cache_data(max_entries=8, show_spinner=False)
def _read(path: str, mtime_ns: int) -> Any:
    return read_json(Path(path))


def pick(prefix: str, side: str, samples_dir: Path) -> Picked | None:
    """One side's assessment: a stored run, a shipped example, or a file (an assessment, a printed
    ``assess --second-opinion --json`` document or a trial result file). The shipped pair is chosen first, stored
    runs or not: two runs picked by position would be two unrelated questions. Stored runs are not offered when the
    run history cannot be read (``history_view.notice`` says so)."""
    runs = history.entries(st.session_state)
    examples = shipped(samples_dir)
    options = ([SESSION] if runs else []) + ([SHIPPED] if examples else []) + [UPLOAD]
    kind = st.radio(f"Assessment {side}", options, horizontal=True, key=f"{prefix}.{side}.kind",
                    index=options.index(SHIPPED) if examples else 0)
    if kind == SESSION:
        titles = {entry.number: entry.title for entry in runs}
        numbers = list(reversed(titles))
        default = min(len(numbers) - 1, 0 if side == "A" else 1)
        number = st.selectbox("Run", numbers, index=default, format_func=titles.__getitem__,
                              key=f"{prefix}.{side}.run")
        entry = history.find(st.session_state, number)
        if entry is None:
            return None
        return Picked(entry.title, entry.assessment.model_dump(mode="json"), entry.question)
    if kind == SHIPPED:
        names = list(examples)
        name = st.selectbox("Example", names, index=min(len(names) - 1, 0 if side == "A" else 1),
                            key=f"{prefix}.{side}.example", help="two repeats of one question of the example trial: "
                            "the same inputs, two hand-written replies, each with its strict second opinion")
        path = examples[name]
        data = _read(str(path), path.stat().st_mtime_ns)
        return Picked(f"shipped example {name}", data, _question(data))
    return _upload(prefix, side)


def _question(data: Any) -> str | None:
    """The question a printed document's second opinion names (None for a bare assessment)."""
    opinion = data.get("second_opinion") if isinstance(data, dict) else None
    question = opinion.get("question") if isinstance(opinion, dict) else None
    return question if isinstance(question, str) else None


def _upload(prefix: str, side: str) -> Picked | None:
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
        return Picked(upload.name, found[0].data, _question(found[0].data))
    labels = [_label(item) for item in found]
    index = st.selectbox(f"Assessment in {len(found)} trial samples", range(len(found)),
                         format_func=labels.__getitem__, key=f"{prefix}.{side}.sample")
    return Picked(f"{upload.name} · {labels[index]}", found[index].data, _question(found[index].data))


def _label(item: FoundAssessment) -> str:
    return plain(f"{item.question_id} · repeat {item.repeat}") if item.position is not None else "assessment"


def identity(comparison: Comparison, questions: tuple[str | None, str | None]) -> None:
    st.html(question_html(*questions))
    st.html(identity_html(comparison))


def verification(side: str, name: str, problems: tuple[str, ...]) -> None:
    st.html(verification_html(side, name, problems))


def fields(comparison: Comparison) -> None:
    st.html(fields_html(comparison))


def requirements(prefix: str, comparison: Comparison) -> None:
    """The requirement diff: searchable, filterable by status and kind of change, sorted, exported as shown; drawn
    as a table that wraps, so a phone shows each requirement with its statuses and no column is cut."""
    filters_view.table(f"{prefix}.requirements", requirements_frame(comparison), REQUIREMENT_SPEC,
                       noun="requirement", file_stem="compare-requirements", placeholder="words of a requirement",
                       draw=lambda visible: st.html(requirements_html(visible)))


def second_opinion(prefix: str, diff: OpinionDiff | None) -> None:
    """The second-opinion differences, or why there are none to show."""
    st.subheader("Second opinion")
    if diff is None:
        st.html('<div data-opinions="">' + notice_html(
            "info", "Neither assessment carries a second opinion",
            remedy="compare the printed output of answerlens assess … --second-opinion --json (or the shipped "
            "example) to see flags and verifier results side by side") + "</div>")
        return
    st.html(coverage_html(diff))
    st.html(verdicts_html(diff))
    text = st.column_config.TextColumn
    shown = badged_frame(opinion_frame(diff))
    st.dataframe(shown, key=f"{prefix}.opinions", hide_index=True, width="stretch", column_config={
        "requirement": text("requirement", width="medium"),
        "opinion A": text("opinion A", help="agrees, flags, verifier disagrees, or not checked (not supported)"),
        "opinion B": text("opinion B", help="agrees, flags, verifier disagrees, or not checked (not supported)"),
        "flags added": text("flags added", help="flag codes B raises that A does not"),
        "flags removed": text("flags removed", help="flag codes A raises that B does not"),
        "verifier A": text("verifier A", help="the claim verifier's status in A (empty: not run)"),
        "verifier B": text("verifier B", help="the claim verifier's status in B (empty: not run)"),
    })
