"""The Inspect page's stored runs: the picker (titled by question), the table, Clear history, and the deep link
``?run=<evaluation_id>`` that reopens a run, after a reload or a server restart too."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from answerlens.html.markup import plural
from answerlens.providers.kinds import KINDS
from answerlens.ui.common import history, history_view, inputs, sources
from answerlens.ui.common.endpoint import label_of
from answerlens.ui.common.filters import badged_frame
from answerlens.ui.inspect import viewmodel

SHOWN = "shown"
"""``{prefix}.shown``: (run number, the endpoint it was produced with or opened under; None until the next draw)."""


def reopen(prefix: str, entry: history.Entry, samples_dir: Path) -> None:
    """Make ``entry`` current and put its question and draft back in the inputs (and its sample, when it came
    from one), before the widgets are drawn; its inputs are read at the next draw."""
    history.select(st.session_state, entry.number)
    st.session_state[f"{prefix}.{SHOWN}"] = (entry.number, None)
    st.session_state.pop(f"{prefix}.failure", None)
    stems = {path.name: stem for stem, path in sources.sample_files(samples_dir).items()}
    if entry.source_name in stems:
        inputs.seed(st.session_state, f"{prefix}.source_kind", "Sample")
        inputs.seed(st.session_state, f"{prefix}.sample", stems[entry.source_name])
    st.session_state[f"{prefix}.pending"] = (entry.question, entry.answer or "")


def open_link(prefix: str, samples_dir: Path) -> None:
    """Follow ``?run=<evaluation_id>`` once per link: reopen the stored run, or remember that it is unknown."""
    wanted = st.query_params.get("run")
    if not wanted or wanted == st.session_state.get(f"{prefix}.linked"):
        return
    st.session_state[f"{prefix}.linked"] = wanted
    entry = history.by_id(st.session_state, wanted)
    if entry is None:
        if history.problem(st.session_state) is None:  # else the store's notice says why
            st.session_state[f"{prefix}.unknown_link"] = wanted
        return
    st.session_state.pop(f"{prefix}.unknown_link", None)
    if f"{prefix}.provider" not in st.session_state:
        _endpoint_of(prefix, entry)
    reopen(prefix, entry, samples_dir)


def _endpoint_of(prefix: str, entry: history.Entry) -> None:
    """A link opened in a fresh session: the endpoint panel starts on the run's own provider, server and model,
    so the sidebar speaks of what produced the run, never of a probe of today's default provider."""
    a = entry.assessment
    if a.provider not in KINDS:
        return
    inputs.seed(st.session_state, f"{prefix}.provider", label_of(a.provider))
    meta = a.provider_metadata
    if a.provider in ("ollama", "openai"):
        if meta is not None and meta.base_url:
            inputs.seed(st.session_state, f"{prefix}.base_url.{a.provider}", meta.base_url)
        inputs.seed(st.session_state, f"{prefix}.model.{a.provider}", a.model)


def keep_link(prefix: str, entry: history.Entry) -> None:
    """The address names the run shown, so a reload (or the link, shared) reopens it (a run not stored has none)."""
    if not entry.stored:
        return
    st.session_state[f"{prefix}.linked"] = entry.evaluation_id
    if st.query_params.get("run") != entry.evaluation_id:
        st.query_params["run"] = entry.evaluation_id


def picker(prefix: str, samples_dir: Path) -> history.Entry | None:
    """The stored runs (newest first, by question), Compare and Clear history; returns the current run (which may
    be one that could not be stored)."""
    unknown = st.session_state.get(f"{prefix}.unknown_link")
    if unknown:
        st.html(viewmodel.unknown_run_html(unknown, str(history.store(st.session_state).path)))
    entries = history.entries(st.session_state)
    current = history.current(st.session_state)
    history_view.notice()
    if not entries:
        return current
    key = f"{prefix}.history"
    if current is not None and current.stored and st.session_state.get(key) != current.number:
        st.session_state[key] = current.number
    titles = viewmodel.history_titles(entries)
    left, middle, right = st.columns([5, 2, 2], vertical_alignment="bottom")
    label = viewmodel.history_label([entry.number for entry in entries])
    left.selectbox(label, list(titles), format_func=titles.__getitem__, key=key,
                   on_change=_picked, args=(prefix, key, samples_dir), index=None,
                   placeholder="Reopen a stored run (newest first)",
                   help="Runs are kept on this machine (they survive a reload); the same inputs are one run.")
    middle.page_link("pages/compare.py", label="Compare", icon=":material/compare_arrows:")
    right.button("Clear history", key=f"{prefix}.clear_history", on_click=_clear, args=(prefix,),
                 icon=":material/delete:", help="drop every stored run (for every session of this app)")
    with st.expander(f"History as a table ({plural(len(entries), 'run')})"):
        _table(prefix, entries)
    return current


def _picked(prefix: str, key: str, samples_dir: Path) -> None:
    entry = history.find(st.session_state, st.session_state[key])
    if entry is not None:
        reopen(prefix, entry, samples_dir)


def _clear(prefix: str) -> None:
    history.clear(st.session_state)
    for name in (SHOWN, "linked", "unknown_link", "history"):
        st.session_state.pop(f"{prefix}.{name}", None)
    st.query_params.clear()


def _table(prefix: str, entries: list[history.Entry]) -> None:
    text = st.column_config.TextColumn
    st.dataframe(
        badged_frame(viewmodel.history_frame(entries)),
        hide_index=True,
        width="stretch",
        key=f"{prefix}.history_table",
        column_config={
            "run": st.column_config.NumberColumn("run", format="#%d", width="small"),
            "time": st.column_config.DatetimeColumn("time", format="HH:mm:ss", width="small"),
            "verdict": text("verdict", width="medium"),
            "action": text("action", width="medium"),
            "question": text("question", width="large"),
            "bundle": text("bundle"),
            "source": text("source", help="recorded response, live model (and where), or no model call"),
            "requirements": st.column_config.NumberColumn("requirements", width="medium"),
            "seconds": st.column_config.NumberColumn("seconds", format="%.2f", width="small"),
            "evaluation_id": text("evaluation_id", help="same inputs, same id (see Compare)"),
            "link": st.column_config.LinkColumn("link", display_text="open", help="reopens this run",
                                                width="small"),
        },
    )
