"""answerlens app entry point: registers every page with st.navigation, nothing else."""

import streamlit as st

from answerlens.ui.common.navigation_view import app_navigation

st.set_page_config(page_title="answerlens", page_icon=":material/manage_search:", layout="wide")
app_navigation(
    [
        st.Page("pages/inspect.py", title="Inspect", icon=":material/manage_search:", default=True),
        st.Page("pages/packing.py", title="Packing", icon=":material/view_agenda:"),
        st.Page("pages/compare.py", title="Compare", icon=":material/compare_arrows:"),
        st.Page("pages/trials.py", title="Trials", icon=":material/stacked_bar_chart:"),
        st.Page("pages/review.py", title="Review", icon=":material/rate_review:"),
    ]
).run()
