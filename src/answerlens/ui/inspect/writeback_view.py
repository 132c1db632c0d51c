"""*Write verdict to Phoenix*, under the result of an imported sample's assessment: the Phoenix URL and project (from
the trace it was opened from, when it was), one button, and what was written with a link to the trace; or why not."""

from __future__ import annotations

import streamlit as st

from answerlens.errors import AnswerlensError
from answerlens.tracing.attributes import run_url
from answerlens.tracing.base import app_url
from answerlens.ui.common import history, trace_source


def panel(prefix: str, entry: history.Entry) -> None:
    """Drawn only for an assessment that carries an import block (a failed assessment shows no result, so nothing
    can be written for it)."""
    a = entry.assessment
    block = a.trace_import
    if block is None:
        return
    listed = st.session_state.get(f"{prefix}.trace_listed")
    with st.container(key=f"{prefix}.writeback", border=True):
        st.markdown("**Phoenix**")
        left, right = st.columns([3, 2])
        url = left.text_input("Phoenix URL", value=listed[0] if listed else trace_source.DEFAULT_URL,
                              key=f"{prefix}.writeback_url")
        project = right.text_input("Project", value=block.project or "default", key=f"{prefix}.writeback_project")
        st.caption(f"The verdict goes onto span {block.span_id} (trace {block.trace_id}) as the annotation "
                   f"answerlens.answerability, and one annotation per document. {trace_source.key_note()}")
        key = f"{prefix}.written"
        if st.button("Write verdict to Phoenix", key=f"{prefix}.writeback_go", icon=":material/upload:"):
            try:
                written = trace_source.write(url, project, a, run_url(app_url(), a.evaluation_id))
                st.session_state[key] = (a.evaluation_id, written)
            except AnswerlensError as exc:
                st.session_state[key] = (a.evaluation_id, exc)
        done = st.session_state.get(key)
        if done is None or done[0] != a.evaluation_id:
            return
        if isinstance(done[1], AnswerlensError):
            st.html(trace_source.failure_html("Nothing was written to Phoenix", done[1]))
        else:
            st.html(trace_source.written_html(done[1]))
