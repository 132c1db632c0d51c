"""Keep every page under app.py's navigation, even when a deep link is the server's first request.

Why a private flag: Streamlit (checked on 1.67; pyproject pins ``<1.68``) has no public switch for this, and the
page scripts stay in ``pages/`` as DESIGN §8 names the folder; renaming it is the only public alternative.
"""

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

from answerlens.ui.common import style_view


def ensure_app_navigation() -> None:
    """Rerun through app.py if Streamlit ran this page file by itself for a browser; then draw the app-wide
    styles (``style_view``).

    Streamlit treats a ``pages/`` folder beside the entry script as a v1 multipage app until ``st.navigation``
    first runs in the process; so when a deep link (``/trials``, or a reload) is the server's very first
    request, it runs the page file alone, under file-name navigation. Clearing that flag and rerunning sends
    the request through app.py, whose ``st.navigation`` then opens the same page by its URL. AppTest has no
    browser connection (no headers) and re-detects the folder on every run; there the page keeps running alone.
    """
    if PagesManager.uses_pages_directory and st.context.headers:
        PagesManager.uses_pages_directory = False
        st.rerun()
    style_view.apply()
