"""The app's one style call, drawn once per run by ``navigation_view.ensure_app_navigation``: the stylesheet every
fragment of ``answerlens.html`` relies on, and the rules for Streamlit's own elements."""

import streamlit as st

from answerlens.html.style import style_tag

APP_CSS = """
[data-testid="stMetricLabel"],[data-testid="stMetricLabel"] *{white-space:normal!important;
  overflow:visible!important;text-overflow:clip!important;height:auto!important}
"""
"""Rules for Streamlit's own elements on every page: a metric's label wraps rather than ending in "…"."""


def apply() -> None:
    """The stylesheet and the app-wide rules (e.g. metric labels that wrap instead of being cut to "Unsafe full
    an…")."""
    st.html(style_tag(APP_CSS))
