"""Review: walk a queue of stored runs, a trial's samples or a sweep's cells; label each with the verdict a careful
reader gives from the context shown (keys 1–4); see how far the judge agrees with people, and export."""

from pathlib import Path

import streamlit as st

from answerlens.review.labels import LabelStore
from answerlens.ui.common import history, sources
from answerlens.ui.common.navigation_view import ensure_app_navigation
from answerlens.ui.common.ready_view import mark
from answerlens.ui.review import agreement_view
from answerlens.ui.review import view as review_view
from answerlens.ui.review import viewmodel as queue

ensure_app_navigation(__file__)

APP_ROOT = Path(__file__).resolve().parents[1]
CWD = Path.cwd()

st.title("Review")
st.caption("Was the model right? Label what a careful reader concludes from the context shown; the labels measure "
           "the judge against people and become a regression set for trials.")

name = review_view.reviewer("review")
source = review_view.source("review", CWD)
if source is not None:
    items = review_view.items(source)
    shown = queue.filtered(items, review_view.filters("review", items))
    labels = review_view.labels(LabelStore(history.store(st.session_state)))
    review_view.queue("review", source, shown, labels, name)
    st.subheader("Agreement: the judge against people")
    matching = agreement_view.show(source, labels, items)
    agreement_view.exports("review", source, labels, matching, [sources.samples_dir(APP_ROOT)])
mark("review")
