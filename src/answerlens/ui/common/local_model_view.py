"""The endpoint panel's embedded-model section: the caveat, a GGUF field, the server's state, Start and Stop.

The server is one per app process (``st.cache_resource``), shared by every session and stopped at exit.
"""

from __future__ import annotations

import atexit

import streamlit as st

from answerlens.errors import LocalModelError
from answerlens.html.markup import notice_html
from answerlens.ui.common.local_model import (
    CAVEAT,
    LocalModelHost,
    State,
    Status,
    gguf_path,
    remedy_for,
    state_box,
    status_html,
)


def _release(host: LocalModelHost) -> None:
    host.stop()


@st.cache_resource(show_spinner=False, on_release=_release)
def host() -> LocalModelHost:
    """The process's embedded-model host; stopped when the app process exits (or the cache is cleared)."""
    shared = LocalModelHost()
    atexit.register(shared.stop)
    return shared


def panel(prefix: str) -> Status | None:
    """Draw the section; return the server's status when the chosen model is the one running, else None."""
    text = st.text_input("GGUF model file (empty: the bundled SmolLM2-135M)", key=f"{prefix}.gguf",
                         placeholder="/models/qwen2.5-7b-instruct-q4_k_m.gguf",
                         help="Any GGUF model on this machine; a capable instruct model gives real judgements.")
    try:
        gguf = gguf_path(text)
    except LocalModelError as exc:
        st.html(state_box("error", notice_html("error", "This GGUF file cannot be used", str(exc),
                                                remedy_for(str(exc)))))
        return None
    if gguf is None:
        st.html(notice_html("warning", "Wiring check only", CAVEAT))
    shared = host()
    status = shared.runtime_problem() or shared.status
    if status.state == State.RUNNING and not status.serves(gguf):
        st.html(state_box("other", notice_html(
            "info", f"The embedded server is running another model: {status.model_name}",
            f"at {status.base_url}", remedy="press Stop to free it, then Start this one")))
        st.button("Stop", key=f"{prefix}.local_stop", on_click=shared.stop, icon=":material/stop:")
        return None
    if status.state == State.ERROR and status.gguf != gguf and shared.runtime_problem() is None:
        status = Status(State.NOT_STARTED)
    st.html(status_html(status, gguf))
    if status.state == State.RUNNING:
        st.button("Stop", key=f"{prefix}.local_stop", on_click=shared.stop, icon=":material/stop:",
                  help="stops it for every session of this app")
        return status
    if status.state == State.STARTING:
        st.button("Check again", key=f"{prefix}.local_check")
        return None
    blocked = shared.runtime_problem() is not None
    if st.button("Start" if status.state == State.NOT_STARTED else "Start again", key=f"{prefix}.local_start",
                 type="primary", icon=":material/play_arrow:", disabled=blocked):
        with st.spinner("Starting the embedded model…", show_time=True):
            shared.start(gguf)
        st.rerun()
    return None
