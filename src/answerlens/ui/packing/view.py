"""The Packing page's widgets: the setting (budget, depth, chunk size) the four renderings are cut at, the
renderings side by side or one at a time, and a reply's citations under each."""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from answerlens.html.escape import esc, plain
from answerlens.html.markup import notice_html, plural
from answerlens.prompts import RawAssessment
from answerlens.records import MemoryBundle
from answerlens.sweeps.settings import PACKED, parse_budget
from answerlens.sweeps.view import cut_text
from answerlens.ui.common import history, sources
from answerlens.ui.common.sources import Source
from answerlens.ui.packing import record_detail
from answerlens.ui.packing.viewmodel import (
    Rendering,
    assessable_detail,
    counts_text,
    matrix_html,
    reply_from,
)

LAYOUTS = ("Side by side", "One at a time")
CAPTION = 'class="al-muted" style="font-size:0.78rem;overflow-wrap:anywhere"'
"""A caption under a rendering: long labels and record lines wrap inside their column."""


def setting_inputs(prefix: str) -> tuple[str, int | None, int | None]:
    """The budget, depth and chunk size the renderings are cut at, as a sweep cell would cut them."""
    budget_col, depth_col, chunk_col = st.columns([2, 1, 1])
    typed = budget_col.text_input("Token budget", value=PACKED, key=f"{prefix}.budget",
                                  help="As a sweep cell: 'packed' (the bundle as it is), a token count the whole "
                                  "context may use, or NN% of the packed context's tokens. Records are kept in packed "
                                  "order while the context fits.")
    depth = int(depth_col.number_input("Depth (top k)", min_value=0, value=0, step=1, key=f"{prefix}.top_k",
                                       help="Keep the first K records in packed order (0: every record)"))
    chunk = int(chunk_col.number_input("Chunk size (tokens)", min_value=0, value=0, step=10,
                                       key=f"{prefix}.record_tokens",
                                       help="Cut each record's text to its first N tokens, marked as cut in the "
                                       "context (0: whole records)"))
    try:
        budget = parse_budget(typed)
    except ValueError as exc:
        st.html(notice_html("error", "Not a budget", str(exc), "the renderings below are as packed"))
        budget = PACKED
    return budget, depth or None, chunk or None


def renderings(prefix: str, items: list[Rendering], bundle: MemoryBundle) -> None:
    """The four renderings: two a row (one a row on a phone), or one at a time in tabs."""
    layout = st.radio("Layout", LAYOUTS, horizontal=True, key=f"{prefix}.layout", label_visibility="collapsed")
    if layout == LAYOUTS[1]:
        for tab, rendering in zip(st.tabs([item.format.label for item in items]), items, strict=True):
            with tab:
                _rendering(rendering, bundle)
        return
    for start in range(0, len(items), 2):
        for column, rendering in zip(st.columns(2, gap="medium"), items[start:start + 2], strict=False):
            with column:
                _rendering(rendering, bundle)


def _rendering(rendering: Rendering, bundle: MemoryBundle) -> None:
    packed = " · the format it was packed in" if rendering.as_packed else ""
    st.markdown(f"**{rendering.format.label}**{packed}")
    key = rendering.format.value
    if rendering.error is not None:
        st.html(notice_html("error", "Cannot be rendered in this format", rendering.error))
        return
    st.html(f'<div {CAPTION} data-counts="{key}">{esc(counts_text(rendering, bundle))}</div>')
    context = rendering.context
    st.html(f'<div {CAPTION} data-budget-cut="{key}" data-kept="{len(context.kept)}" '
            f'data-records="{len(context.kept) + len(context.cut)}">{esc(cut_text(context, bundle))}</div>')
    # st.code shows text as it is: invisible and reordering characters are shown as their codes, like everywhere.
    st.code(plain(rendering.text) or " ", language=None, wrap_lines=True, height=420)
    if rendering.problem is not None:
        st.html(notice_html("error", "Cannot be assessed", rendering.problem, rendering.fix))
    else:
        st.html(notice_html("ok", "Can be assessed", assessable_detail(rendering)))
    if rendering.matches_packed is False:
        st.html(notice_html("warning", "Differs from the packed context",
                            "answerlens renders these records differently from the bundle's rendered_context; "
                            "shown here is the packed text, which is what a model saw"))
    elif rendering.matches_packed:
        st.html(f'<div {CAPTION} data-matches-packed="true">'
                "shown as packed; byte for byte what answerlens renders from these records</div>")


def reply_picker(prefix: str, source: Source) -> tuple[RawAssessment | None, str]:
    """The reply whose citations to check: the sample's, one from the history, or an uploaded file."""
    options = []
    if source.recorded_reply is not None:
        options.append("The sample's recorded reply")
    runs = [entry for entry in history.entries(st.session_state) if entry.run.has_reply]
    if runs:
        options.append("A stored run")
    options.append("Upload a raw reply or an assessment")
    kind = st.radio("Reply", options, horizontal=True, key=f"{prefix}.reply_kind")
    if kind == "The sample's recorded reply":
        return _parsed(source.recorded_reply, "the sample's recorded reply")
    if kind == "A stored run":
        titles = {entry.number: entry.title for entry in runs}
        number = st.selectbox("Run", list(reversed(titles)), format_func=titles.__getitem__, key=f"{prefix}.run")
        entry = history.find(st.session_state, number)
        return _parsed(entry.assessment.model_dump(mode="json") if entry else None, f"run #{number}")
    upload = st.file_uploader("Raw reply, or assessment JSON (answerlens or PRME)", type=["json"],
                              key=f"{prefix}.reply_file")
    if upload is None:
        return None, ""
    try:
        data = json.loads(sources.reply_text(upload.getvalue(), upload.name))
    except ValueError as exc:
        st.html(notice_html("error", "The file cannot be read", f"{upload.name}: {exc}"))
        return None, ""
    return _parsed(data, upload.name)


def _parsed(data: Any, name: str) -> tuple[RawAssessment | None, str]:
    try:
        return reply_from(data), name
    except ValueError as exc:
        st.html(notice_html("error", "Not a reply", f"{name}: {exc}",
                            remedy="use the model's raw reply (requirements + reasoning) or an assessment JSON"))
        return None, name


def record(prefix: str, bundle: MemoryBundle) -> None:
    """One packed record's every field: those answerlens reads and those it keeps for audit."""
    titles = record_detail.record_choices(bundle)
    if not titles:
        return
    with st.expander(f"Record detail ({plural(len(titles), 'record')})"):
        chosen = st.selectbox("Record", list(titles), format_func=lambda key: plain(titles[key]),
                              key=f"{prefix}.record")
        found = record_detail.record(bundle, chosen) if chosen else None
        if found is not None:
            st.html(record_detail.detail_html(found))


def matrix(items: list[Rendering], reply: RawAssessment) -> None:
    st.html(matrix_html(items, reply))
