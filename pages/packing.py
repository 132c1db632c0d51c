"""Packing: one bundle's records in every context format, whether each can be assessed, and where a reply's
citations would be accepted or discarded."""

from pathlib import Path

import streamlit as st

from answerlens.ui.common import history_view
from answerlens.ui.common import source_view as source_picker
from answerlens.ui.common.navigation_view import ensure_app_navigation
from answerlens.ui.packing import sweep_view
from answerlens.ui.packing import view as packing_view
from answerlens.ui.packing import viewmodel as packing

ensure_app_navigation(__file__)

APP_ROOT = Path(__file__).resolve().parents[1]

st.title("Packing")
st.caption("The same records rendered as reader (citations on and off), auditable and compact: what a model "
           "would see, what it costs, and whether it can be assessed.")

source = source_picker.pick("packing", APP_ROOT)
if source is not None:
    renderings = packing.render_all(source.bundle)
    budget = packing_view.budget_input("packing", source.bundle)
    packing_view.renderings(renderings, source.bundle, budget)
    packing_view.record("packing", source.bundle)

    st.subheader("A reply's citations under each format")
    st.caption("Tokens are judged exactly as the engine would judge them against each rendering; a reply "
               "written for one format usually cites tokens that another format does not contain.")
    reply, name = packing_view.reply_picker("packing", source)
    history_view.notice()  # the run history's failure, if any
    if reply is not None:
        packing_view.matrix(renderings, reply)

sweep_view.section("packing", source, APP_ROOT / "sample_bundles" / "sweeps")
