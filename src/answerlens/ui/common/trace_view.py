"""*From a trace*, drawn: upload an OTLP JSON file, or give a Phoenix URL and project; a table of the retriever
spans with their question and document count; open one, and it becomes the page's bundle, question (and draft).
Failures are shown in place with what to do; the page carries on without a bundle."""

from __future__ import annotations

import hashlib

import streamlit as st

from answerlens.errors import AnswerlensError
from answerlens.html.escape import esc
from answerlens.html.markup import notice_html
from answerlens.traces.importer import SpanChoice
from answerlens.ui.common import trace_source
from answerlens.ui.common.sources import Source

MODES = ("Upload an OTLP JSON file", "Phoenix")


def pick(prefix: str) -> Source | None:
    """The span opened last (kept for the session), after drawing the form to list and open another."""
    mode = st.radio("Trace source", MODES, horizontal=True, key=f"{prefix}.trace_mode",
                    label_visibility="collapsed")
    choices = _file_choices(prefix) if mode == MODES[0] else _phoenix_choices(prefix)
    if choices:
        st.html(trace_source.choices_html(choices))
        _open_form(prefix, mode, choices)
    opened: trace_source.Opened | None = st.session_state.get(f"{prefix}.trace_opened")
    if opened is None:
        return None
    source = opened.source
    if source.sample is not None:
        st.html(f'<p class="al-muted" style="margin:0" data-trace-opened="{esc(source.name)}">'
                f"{esc(source.sample.description)}</p>")
    for note in opened.notes:
        st.html(notice_html("info", note))
    return source


def _file_choices(prefix: str) -> list[SpanChoice]:
    upload = st.file_uploader("OTLP JSON file (one document, or JSON lines of them, as a collector's file exporter "
                              "writes; up to 50 MB)", type=["json", "jsonl"], key=f"{prefix}.trace_upload")
    if upload is None:
        return []
    data = upload.getvalue()
    digest = hashlib.sha256(data).hexdigest() + upload.name
    slot = st.session_state.get(f"{prefix}.trace_file")
    if slot is None or slot[0] != digest:
        try:
            slot = (digest, trace_source.read_upload(data, upload.name))
        except AnswerlensError as exc:
            slot = (digest, exc)
        st.session_state[f"{prefix}.trace_file"] = slot
    if isinstance(slot[1], AnswerlensError):
        _failed("This file cannot be read as a trace", slot[1])
        return []
    choices = slot[1].choices
    if not choices:
        st.html(notice_html("info", "No RETRIEVER span in this file",
                            remedy="upload a trace of a pipeline with a retrieval step"))
    return choices


def _phoenix_choices(prefix: str) -> list[SpanChoice]:
    left, right = st.columns([3, 2])
    url = left.text_input("Phoenix URL", value=trace_source.DEFAULT_URL, key=f"{prefix}.phoenix_url")
    project = right.text_input("Project", value="default", key=f"{prefix}.phoenix_project")
    st.caption(trace_source.key_note())
    if st.button("List recent retriever spans", key=f"{prefix}.trace_list", icon=":material/list:"):
        try:
            st.session_state[f"{prefix}.trace_listed"] = (url, project, trace_source.list_phoenix(url, project))
        except AnswerlensError as exc:
            st.session_state.pop(f"{prefix}.trace_listed", None)
            _failed("Phoenix could not list its spans", exc)
    listed = st.session_state.get(f"{prefix}.trace_listed")
    if listed is None or listed[:2] != (url, project):
        return []
    if not listed[2]:
        st.html(notice_html("info", f"No RETRIEVER span in project {project}",
                            remedy="trace a pipeline with a retrieval step into it, or name another project"))
    return list(listed[2])


def _open_form(prefix: str, mode: str, choices: list[SpanChoice]) -> None:
    by_id = {choice.span_id: choice for choice in choices}
    left, right = st.columns([5, 2], vertical_alignment="bottom")
    span_id = left.selectbox("Span to open", list(by_id), key=f"{prefix}.trace_span",
                             format_func=lambda key: trace_source.choice_label(by_id[key]))
    with_answer = right.checkbox("Draft from the LLM span", key=f"{prefix}.trace_answer",
                                 help="check the trace's LLM output as the draft answer, claim by claim")
    if not st.button("Open this span", key=f"{prefix}.trace_open", type="primary", icon=":material/input:") \
            or not span_id:
        return
    try:
        if mode == MODES[0]:
            opened = trace_source.open_file(st.session_state[f"{prefix}.trace_file"][1], span_id,
                                            with_answer=with_answer)
        else:
            url, project, _ = st.session_state[f"{prefix}.trace_listed"]
            opened = trace_source.open_phoenix(url, project, span_id, with_answer=with_answer)
    except AnswerlensError as exc:
        _failed("This span cannot be opened", exc)
        return
    st.session_state[f"{prefix}.trace_opened"] = opened


def _failed(title: str, exc: AnswerlensError) -> None:
    st.html(trace_source.failure_html(title, exc))
