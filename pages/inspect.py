"""Inspect: pick a bundle and a question, assess, and see why, with citations highlighted in the context."""

from pathlib import Path

import streamlit as st

from answerlens.ui.common import endpoint_view as endpoint
from answerlens.ui.common import inputs, sources
from answerlens.ui.common import source_view as source_picker
from answerlens.ui.common.endpoint import assess_blocker, choice_key
from answerlens.ui.common.endpoint_view import blocked_html
from answerlens.ui.common.navigation_view import ensure_app_navigation
from answerlens.ui.common.ready_view import mark
from answerlens.ui.inspect import history_view
from answerlens.ui.inspect import view as result_view
from answerlens.ui.inspect.viewmodel import inputs_of

ensure_app_navigation(__file__)

APP_ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sources.samples_dir(APP_ROOT)

st.title("Inspect")
st.caption("Does the packed evidence establish what the question asks? See the verdict, and why.")

history_view.open_link("inspect", SAMPLES)  # ?run=<evaluation_id>: before the inputs it restores are drawn
source = source_picker.pick("inspect", APP_ROOT, traces=True)
source_picker.prefill("inspect", source)
choice = endpoint.panel("inspect", source)

question = answer = None
second_opinion, strict = True, False
if source is not None:
    ask, draft = st.columns(2)
    question = ask.text_area("Question", key="inspect.question", height=80,
                             on_change=inputs.release, args=(st.session_state, "inspect.question"))
    answer = draft.text_area("Draft answer (optional: its claims are checked too)", key="inspect.answer",
                             height=80, on_change=inputs.release, args=(st.session_state, "inspect.answer"))
    second_opinion, strict = result_view.options("inspect")
now = inputs_of(question, answer, source.context_sha256 if source is not None else None,
                choice_key(choice) + ("strict" if strict else ""))
if source is not None and question is not None:
    why_not = assess_blocker(question, choice, busy=result_view.busy("inspect"))
    ready = why_not is None
    go, reason = st.columns([1, 6], vertical_alignment="center")
    clicked = go.button("Assess", type="primary", key="inspect.assess", disabled=not ready,
                        on_click=inputs.release, args=(st.session_state,), help=why_not)
    if why_not:
        reason.html(blocked_html(why_not))
    if clicked or (ready and result_view.retry("inspect")):
        result_view.assess("inspect", choice, source, question, answer if answer and answer.strip() else None,
                           now=now, second_opinion=second_opinion, strict=strict)

if not result_view.progress("inspect") and not result_view.show_failure("inspect"):
    entry = history_view.picker("inspect", SAMPLES)
    if entry is not None:
        history_view.keep_link("inspect", entry)
        opinion = result_view.opinion_for("inspect", entry, source, second_opinion)
        result_view.show("inspect", entry, now, second_opinion=second_opinion, opinion=opinion)
mark("inspect")
