"""Compare: two assessments side by side: same inputs? same validated output? do both verify? what changed, and
what does the second opinion say on each?"""

from pathlib import Path

import streamlit as st

from answerlens.ui.common import history_view, sources
from answerlens.ui.common.navigation_view import ensure_app_navigation
from answerlens.ui.compare import view as compare_view
from answerlens.ui.compare.opinions import opinion_diff, side
from answerlens.ui.compare.viewmodel import compare

ensure_app_navigation(__file__)

APP_ROOT = Path(__file__).resolve().parents[1]

st.title("Compare")
st.caption("evaluation_id identifies the inputs, assessment_sha256 the validated output; repeats of the same "
           "inputs share the first and should share the second.")

samples_dir = sources.samples_dir(APP_ROOT)
left, right = st.columns(2, gap="large")
with left:
    a = compare_view.pick("compare", "A", samples_dir)
with right:
    b = compare_view.pick("compare", "B", samples_dir)
history_view.notice()  # the run history's failure, if any: once for both sides

if a is None or b is None:
    st.info("Choose two assessments: runs from the Inspect page's history, the shipped example, or files.")
    st.stop()

(name_a, data_a, question_a), (name_b, data_b, question_b) = a, b
side_a, side_b = side(data_a), side(data_b)  # a printed second opinion is split off; the audited parts compare
comparison = compare(side_a.assessment, side_b.assessment)
compare_view.identity(comparison, (question_a, question_b))
left, right = st.columns(2, gap="large")
with left:
    compare_view.verification("A", name_a, side_a.problems)
with right:
    compare_view.verification("B", name_b, side_b.problems)

st.subheader(f"Requirements ({comparison.changed} changed)")
compare_view.requirements("compare", comparison)
compare_view.second_opinion("compare", opinion_diff(side_a, side_b, comparison))
st.subheader("Fields and hashes")
compare_view.fields(comparison)
