"""The Packing page's widgets: the four renderings side by side, and a reply's citations under each."""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from answerlens.html.escape import esc, plain
from answerlens.html.markup import notice_html, plural
from answerlens.prompts import RawAssessment
from answerlens.records import MemoryBundle
from answerlens.ui.common import history, sources
from answerlens.ui.common.sources import Source
from answerlens.ui.packing import record_detail
from answerlens.ui.packing.viewmodel import (
    Rendering,
    assessable_detail,
    budget_cut,
    bundle_budget,
    counts_text,
    matrix_html,
    reply_from,
)


def budget_input(prefix: str, bundle: MemoryBundle) -> int:
    return int(st.number_input("Token budget (tokens the whole context may use)", min_value=0,
                               value=bundle_budget(bundle), step=256, key=f"{prefix}.budget",
                               help="Default: what the bundle's packer could spend, else PRME's 4096."))


def renderings(items: list[Rendering], bundle: MemoryBundle, budget: int | None = None) -> None:
    columns = st.columns(len(items), gap="small")
    for column, rendering in zip(columns, items, strict=True):
        with column:
            _rendering(rendering, bundle)
            if budget is not None and rendering.error is None:
                _budget_line(rendering, budget)


def _budget_line(rendering: Rendering, budget: int) -> None:
    cut = budget_cut(rendering, budget)
    if cut is None:
        return
    if cut.fits:
        every = "the" if cut.records == 1 else "all"
        text = f"a budget of {budget:,} tokens holds {every} {plural(cut.records, 'record')}"
    else:
        text = (f"a budget of {budget:,} tokens ends after record {cut.kept} of {cut.records} "
                f"({cut.kept_tokens:,} tokens); cut here: {_clip(cut.first_cut or '')}")
    st.html(f'<div class="al-muted" style="font-size:0.78rem" data-budget-cut="{rendering.format.key}" '
            f'data-kept="{cut.kept}" data-records="{cut.records}">{esc(text)}</div>')


def _clip(line: str, limit: int = 160) -> str:
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _rendering(rendering: Rendering, bundle: MemoryBundle) -> None:
    packed = " · as packed" if rendering.as_packed else ""
    st.markdown(f"**{rendering.format.label}**{packed}")
    if rendering.error is not None:
        st.html(notice_html("error", "Cannot be rendered in this format", rendering.error))
        return
    counts = counts_text(rendering, bundle)
    st.html(f'<div class="al-muted" style="font-size:0.78rem" data-counts="{rendering.format.key}">'
            f"{esc(counts)}</div>")
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
        st.html('<div class="al-muted" style="font-size:0.78rem" data-matches-packed="true">'
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
