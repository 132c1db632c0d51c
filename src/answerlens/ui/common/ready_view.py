"""The mark a page draws as the last thing of every run, so a browser (tests, ``make bench``) knows the run it
waited for has been drawn: ``data-al-ready`` names the page, ``data-al-run`` counts this session's runs."""

from __future__ import annotations

import streamlit as st

RUNS = "ready.runs"


def mark(page: str) -> None:
    """Draw the page's readiness mark (in the sidebar, where it takes no room); call it last, and before any
    ``st.stop()``."""
    count = int(st.session_state.get(RUNS, 0)) + 1
    st.session_state[RUNS] = count
    st.sidebar.html(f'<div data-al-ready="{page}" data-al-run="{count}" hidden></div>')
