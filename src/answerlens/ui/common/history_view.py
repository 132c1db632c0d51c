"""The run history's one notice: when the store failed during this script run, say which file and what to do,
once, where the page uses its history; the page carries on without it."""

from __future__ import annotations

import streamlit as st

from answerlens.html.markup import notice_html
from answerlens.ui.common import history

TITLE = "The run history cannot be used: this page works without it"
ONE_RUN_TITLE = "The run history could not read or keep a run"


def notice() -> None:
    """Show (and forget) the store's failure, if there was one since the last notice."""
    problem = history.take_problem(st.session_state)
    if problem is not None:
        title = TITLE if problem.whole_file else ONE_RUN_TITLE
        st.html(notice_html("warning", title, problem.detail, problem.remedy))
