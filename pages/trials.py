"""Trials: the shipped example result first; open any result; or run a labelled dataset repeatedly against an
endpoint (live progress, cancel, resume). Then the summary, gates, charts, second opinion, tables and samples."""

from pathlib import Path

import streamlit as st

from answerlens.ui.common import endpoint_view as endpoint
from answerlens.ui.common import sources
from answerlens.ui.common.navigation_view import ensure_app_navigation
from answerlens.ui.trials import report_view as trial_report_view
from answerlens.ui.trials import run_view as trial_view

ensure_app_navigation(__file__)

APP_ROOT = Path(__file__).resolve().parents[1]
CWD = Path.cwd()

st.title("Trials")
st.caption("Measure unsafe answers, answerable-question coverage, citation errors and stability on your own "
           "workload, repeatedly, before enforcing abstention. A verdict is auditable, not a calibrated probability.")

samples_dir = sources.samples_dir(APP_ROOT)
MODES = ("Example result", "Open a result", "Run a trial")
mode = st.radio("What to do", MODES, horizontal=True, key="trials.mode", label_visibility="collapsed",
                help="the shipped example first; then any result file or run directory, or a run of your own")
if mode == "Run a trial":
    choice = endpoint.panel("trials", None, recorded=False)
    picked = trial_view.dataset_picker("trials", samples_dir, CWD)
    repeats, concurrency, out = trial_view.settings("trials", picked, CWD)
    trial_view.run_button("trials", picked, choice, repeats, concurrency, out, CWD)
    trial_view.progress("trials")
elif mode == "Open a result":
    trial_view.result_picker("trials", CWD)

shown = trial_view.example(samples_dir, APP_ROOT) if mode == "Example result" else st.session_state.get("trials.shown")
if shown is not None:
    trial_report_view.show("trials", shown, samples_dir, CWD)
