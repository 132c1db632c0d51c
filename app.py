"""answerlens app entry point: registers every page with st.navigation, nothing else."""

import streamlit as st

st.set_page_config(page_title="answerlens", page_icon="🔎", layout="wide")
st.navigation(
    [
        st.Page("pages/inspect.py", title="Inspect", icon="🔎", default=True),
    ]
).run()
