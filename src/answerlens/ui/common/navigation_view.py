"""Keep every page under app.py's navigation, even when a deep link is the server's first request.

Streamlit runs a ``pages/`` folder beside the entry script as a legacy multipage app until ``st.navigation`` first
runs in the process ("as soon as any session of your app executes the st.navigation command, your app will ignore
the pages/ directory", its documentation says). So when a deep link (``/trials``, or a reload) is a fresh server's
very first request, the page file runs alone, under file-name navigation, before app.py ever has. The page then
calls ``st.navigation`` itself, the public switch, and reruns: the rerun goes through app.py, whose navigation opens
the same page by its URL. The page scripts stay in ``pages/``, as DESIGN §8 names the folder.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import streamlit as st

from answerlens.ui.common import style_view

_APP_NAVIGATION = threading.Event()
"""Set once app.py's navigation has run in this process (from then on the ``pages/`` folder is ignored)."""


def app_navigation(pages: Sequence[st.Page]) -> st.Page:
    """app.py's ``st.navigation`` over its pages; returns the page to run."""
    _APP_NAVIGATION.set()
    return st.navigation(pages)


def ensure_app_navigation(page_file: str) -> None:
    """Rerun through app.py if Streamlit ran this page file (``__file__``) by itself for a browser; then draw the
    app-wide styles (``style_view``). AppTest has no browser connection (no headers): there the page keeps running
    alone.

    The page's own navigation lists the page itself, not as the default (a default page's URL is the root), so
    its URL, and the page the rerun asks for, stay the same.
    """
    if not _APP_NAVIGATION.is_set() and st.context.headers:
        st.navigation([st.Page(_root, default=True), st.Page(page_file)], position="hidden")
        st.rerun()
    style_view.apply()


def _root() -> None:
    """The default page of a page file's own navigation (never run: the rerun goes through app.py)."""
