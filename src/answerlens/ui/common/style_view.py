"""Styles every page shares, drawn once per run by ``navigation_view.ensure_app_navigation``."""

import streamlit as st

from answerlens.ui.common.markup import APP_STYLE


def apply() -> None:
    """The app-wide rules (e.g. metric labels that wrap instead of being cut to "Unsafe full an…")."""
    st.html(APP_STYLE)
