"""Compare: two assessments side by side: same inputs? same validated output? do both verify? what changed?"""

import streamlit as st

from answerlens import verify_assessment
from answerlens.ui.common.navigation_view import ensure_app_navigation
from answerlens.ui.compare import view as compare_view
from answerlens.ui.compare.viewmodel import compare

ensure_app_navigation()

st.title("Compare")
st.caption("evaluation_id identifies the inputs, assessment_sha256 the validated output; repeats of the same "
           "inputs share the first and should share the second.")

left, right = st.columns(2, gap="large")
with left:
    a = compare_view.pick("compare", "A")
with right:
    b = compare_view.pick("compare", "B")

if a is None or b is None:
    st.info("Choose two assessments: runs from the Inspect page's history, or files.")
    st.stop()

(name_a, data_a), (name_b, data_b) = a, b
comparison = compare(data_a, data_b)
compare_view.identity(comparison)
left, right = st.columns(2, gap="large")
with left:
    compare_view.verification("A", name_a, verify_assessment(data_a))
with right:
    compare_view.verification("B", name_b, verify_assessment(data_b))

st.subheader(f"Requirements ({comparison.changed} changed)")
compare_view.requirements("compare", comparison)
st.subheader("Fields and hashes")
compare_view.fields(comparison)
