"""answerlens app entry point: registers every page with st.navigation, nothing else."""

import streamlit as st

st.set_page_config(page_title="answerlens", page_icon=":material/manage_search:", layout="wide")
st.navigation(
    [
        st.Page("app_pages/inspect.py", title="Inspect", icon=":material/manage_search:", default=True),
        st.Page("app_pages/packing.py", title="Packing", icon=":material/view_agenda:"),
        st.Page("app_pages/compare.py", title="Compare", icon=":material/compare_arrows:"),
        st.Page("app_pages/trials.py", title="Trials", icon=":material/stacked_bar_chart:"),
    ]
).run()
