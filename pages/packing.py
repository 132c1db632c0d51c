"""Packing: one bundle's records in every context format, whether each can be assessed, and where a reply's
citations would be accepted or discarded."""

from pathlib import Path

import streamlit as st

from answerlens.ui.common import history_view
from answerlens.ui.common import source_view as source_picker
from answerlens.ui.common.navigation_view import ensure_app_navigation
from answerlens.ui.common.ready_view import mark
from answerlens.ui.packing import sweep_view
from answerlens.ui.packing import view as packing_view
from answerlens.ui.packing import viewmodel as packing

ensure_app_navigation(__file__)

APP_ROOT = Path(__file__).resolve().parents[1]

st.title("Packing")
st.caption("The same records rendered as reader (citations on and off), auditable and compact, cut at a budget, "
           "depth and chunk size exactly as a sweep cell cuts them: what a model would see, what it costs, and "
           "whether it can be assessed.")

source = source_picker.pick("packing", APP_ROOT)
if source is not None:
    budget, top_k, record_tokens = packing_view.setting_inputs("packing")
    renderings = packing.render_all(source.bundle, budget, top_k, record_tokens)
    packing_view.renderings("packing", renderings, source.bundle)
    packing_view.record("packing", source.bundle)

    st.subheader("A reply's citations under each format")
    st.caption("Tokens are judged exactly as the engine would judge them against each rendering at the setting "
               "above: a citation of a record the setting cut is discarded, as a sweep would discard it.")
    reply, name = packing_view.reply_picker("packing", source)
    history_view.notice()  # the run history's failure, if any
    if reply is not None:
        packing_view.matrix(renderings, reply)

sweep_view.section("packing", source, APP_ROOT / "sample_bundles" / "sweeps")
mark("packing")
