"""Inspect page (placeholder until the app issue lands): the CLI report of a sample."""

import streamlit as st

st.title("answerlens")
st.write("The inspection app is being built; use `answerlens assess` meanwhile.")
