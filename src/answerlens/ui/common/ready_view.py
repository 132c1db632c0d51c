"""The mark a page draws as the last thing of every run, so a browser (tests, ``make bench``) knows the run it
waited for has been drawn: ``data-al-ready`` names the page, ``data-al-run`` counts this session's runs.

The first mark of the process also warms it: the other pages' modules (pandas, plotly) and the token encoding
are loaded in the background once the first page is on screen, so the first visit to another page does not pay
for them.
"""

from __future__ import annotations

import importlib
import logging
import threading

import streamlit as st

RUNS = "ready.runs"
WARM_MODULES = ("pandas", "plotly.graph_objects", "answerlens.ui.inspect.view", "answerlens.ui.packing.view",
                "answerlens.ui.compare.view", "answerlens.ui.trials.report_view", "answerlens.ui.trials.run_view")
_warming = threading.Lock()
_warmed = False
log = logging.getLogger(__name__)


def mark(page: str) -> None:
    """Draw the page's readiness mark (in the sidebar, where it takes no room); call it last, and before any
    ``st.stop()``."""
    count = int(st.session_state.get(RUNS, 0)) + 1
    st.session_state[RUNS] = count
    st.sidebar.html(f'<div data-al-ready="{page}" data-al-run="{count}" hidden></div>')
    _warm_once()


def _warm_once() -> None:
    global _warmed
    with _warming:
        if _warmed:
            return
        _warmed = True
    threading.Thread(target=_warm, name="answerlens-warm", daemon=True).start()


def _warm() -> None:
    try:
        for name in WARM_MODULES:
            importlib.import_module(name)
        from answerlens.tokens import exact_counts_available

        exact_counts_available()  # loads the cl100k_base encoding the Packing page counts with
    except Exception:  # noqa: BLE001 - warming is an optimisation; the page imports what it needs itself
        log.exception("warming the app's modules failed")
