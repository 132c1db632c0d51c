"""Inspect: pick a bundle and a question, assess, and see why, with citations highlighted in the context."""

from pathlib import Path

import streamlit as st

from answerlens.ui.common import endpoint_view as endpoint
from answerlens.ui.common import source_view as source_picker
from answerlens.ui.common.navigation_view import ensure_app_navigation
from answerlens.ui.inspect import view as result_view

ensure_app_navigation()

APP_ROOT = Path(__file__).resolve().parents[1]

st.title("Inspect")
st.caption("Does the packed evidence establish what the question asks? See the verdict, and why.")

source = source_picker.pick("inspect", APP_ROOT)
source_picker.prefill("inspect", source)
choice = endpoint.panel("inspect", source)

if source is not None:
    ask, draft = st.columns(2)
    question = ask.text_area("Question", key="inspect.question", height=80)
    answer = draft.text_area("Draft answer (optional: its claims are checked too)", key="inspect.answer",
                             height=80)
    ready = bool(question.strip()) and choice.config is not None and not result_view.busy("inspect")
    if st.button("Assess", type="primary", key="inspect.assess", disabled=not ready,
                 help=None if ready else "type a question and set the endpoint first (or wait for the run)"):
        result_view.assess("inspect", choice, source, question, answer if answer.strip() else None)

if not result_view.progress("inspect") and not result_view.show_failure("inspect"):
    entry = result_view.history_picker("inspect")
    if entry is not None:
        result_view.show("inspect", entry)
