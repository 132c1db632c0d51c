"""Trials: run a labelled dataset repeatedly against an endpoint (live progress, cancel, resume), or open a result;
then the summary, the gates and the charts, and any sample in the Inspect page."""

from pathlib import Path

import streamlit as st

from answerlens.ui.common import endpoint_view as endpoint
from answerlens.ui.common import sources
from answerlens.ui.trials import report_view as trial_report_view
from answerlens.ui.trials import run_view as trial_view

APP_ROOT = Path(__file__).resolve().parents[1]
CWD = Path.cwd()

st.title("Trials")
st.caption("Measure unsafe answers, answerable-question coverage, citation errors and stability on your own "
           "workload, repeatedly, before enforcing abstention. A verdict is auditable, not a calibrated probability.")

samples_dir = sources.samples_dir(APP_ROOT)
mode = st.radio("What to do", ["Run a trial", "Open a result"], horizontal=True, key="trials.mode",
                label_visibility="collapsed")
if mode == "Run a trial":
    choice = endpoint.panel("trials", None, recorded=False)
    picked = trial_view.dataset_picker("trials", samples_dir, CWD)
    repeats, concurrency, out = trial_view.settings("trials", picked, CWD)
    trial_view.run_button("trials", picked, choice, repeats, concurrency, out, CWD)
    trial_view.progress("trials")
else:
    trial_view.result_picker("trials", CWD)

shown = st.session_state.get("trials.shown")
if shown is not None:
    trial_report_view.show("trials", shown, samples_dir, CWD)
