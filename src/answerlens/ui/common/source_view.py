"""The bundle picker shared by pages: a sample from ``sample_bundles/``, an uploaded file, or pasted JSON.

Load failures are shown in place (naming the problem) and the page carries on without a bundle.
"""

from __future__ import annotations

import gc
import hashlib
from collections.abc import Callable, MutableMapping
from pathlib import Path
from typing import Any

import streamlit as st

from answerlens.errors import BundleError
from answerlens.html.escape import esc
from answerlens.html.markup import notice_html
from answerlens.ui.common import examples, inputs, sources
from answerlens.ui.common.sources import Source

KINDS = ("Sample", "Upload a file", "Paste JSON")
FROM_A_TRACE = "From a trace"
"""The kind Inspect adds: a retriever span of an OTLP JSON file or a Phoenix project (``trace_view``)."""


@st.cache_resource(max_entries=64, show_spinner=False)
def _load_path(path: str, mtime_ns: int, size: int) -> Source | BundleError:
    # Keyed by mtime and size, so an edited sample is reloaded; errors are cached as values too.
    try:
        return sources.from_path(Path(path))
    except BundleError as exc:
        return exc


def _loaded(prefix: str, digest: str, load: Callable[[], Source]) -> Source | BundleError:
    """An uploaded or pasted bundle, loaded once and kept in this session only: one slot per page, so a new bundle
    replaces the old one and its memory is freed (a process-wide cache kept up to 8 uploads of every session)."""
    key = f"{prefix}.bundle_slot"
    slot = st.session_state.get(key)
    if slot is not None and slot[0] == digest:
        return slot[1]
    if slot is not None:
        del st.session_state[key]
        del slot
        gc.collect()  # a large bundle's records hold reference cycles: free them before loading the next
    try:
        loaded: Source | BundleError = load()
    except BundleError as exc:
        loaded = exc
    st.session_state[key] = (digest, loaded)
    return loaded


def load_sample(path: Path) -> Source | BundleError:
    stat = path.stat()
    return _load_path(str(path), stat.st_mtime_ns, stat.st_size)


def pick(prefix: str, app_root: Path, *, traces: bool = False) -> Source | None:
    """Draw the picker; return the chosen source, or None (with the reason shown) when there is none. It is the
    first input a page draws, so it first re-sends the values the app put into widgets (``inputs.hold``).
    ``traces`` offers *From a trace* too."""
    inputs.hold(st.session_state)
    kinds = (*KINDS, FROM_A_TRACE) if traces else KINDS
    kind = st.radio("Bundle", kinds, horizontal=True, key=f"{prefix}.source_kind", label_visibility="collapsed")
    if kind == FROM_A_TRACE:
        from answerlens.ui.common import trace_view

        return trace_view.pick(prefix)
    if kind == "Sample":
        return _pick_sample(prefix, sources.samples_dir(app_root))
    if kind == "Upload a file":
        upload = st.file_uploader(
            "Bundle or sample JSON (PRME MemoryBundle, simple passage format, or a sample file; up to 50 MB)",
            type=["json"],
            key=f"{prefix}.upload",
        )
        _bundle_format(prefix)
        if upload is None:
            return None
        data = upload.getvalue()
        digest = hashlib.sha256(data).hexdigest() + upload.name
        return _shown(_loaded(prefix, digest, lambda: sources.from_bytes(data, upload.name)))
    text = st.text_area(
        "Paste a bundle or sample as JSON",
        key=f"{prefix}.paste",
        height=160,
        placeholder='{"records": [{"text": "…", "speaker": "Craig"}], "packing": {"context_format": "reader"}}',
    )
    if not text.strip():
        return None
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return _shown(_loaded(prefix, digest, lambda: sources.from_text(text)))


def _bundle_format(prefix: str) -> None:
    with st.expander("Bundle file format"):
        st.html(examples.bundle_format_html())
        path = examples.BUNDLE_EXAMPLE
        st.download_button("Example bundle", path.read_bytes() if path.exists() else b"", file_name=path.name,
                           mime="application/json", key=f"{prefix}.example.bundle", on_click="ignore",
                           icon=":material/download:", disabled=not path.exists())


def _pick_sample(prefix: str, directory: Path) -> Source | None:
    files = sources.sample_files(directory)
    if not files:
        st.html(notice_html("info", f"No sample bundles in {directory}",
                            remedy="upload a bundle or paste JSON instead"))
        return None
    loaded = {stem: load_sample(path) for stem, path in files.items()}
    choice = st.selectbox(
        "Sample bundle",
        list(files),
        key=f"{prefix}.sample",
        format_func=lambda stem: sources.sample_label(stem, loaded[stem]),
    )
    if choice is None:
        return None
    source = _shown(loaded[choice])
    if source is not None and source.sample is not None:
        st.html(f'<p class="al-muted" style="margin:0">{esc(source.sample.description)}</p>')
    return source


def _shown(loaded: Source | BundleError) -> Source | None:
    if isinstance(loaded, BundleError):
        st.html(notice_html("error", "This bundle cannot be loaded", str(loaded),
                            remedy="fix the file (the message names the problem and where), or pick another"))
        return None
    return loaded


def prefill(prefix: str, source: Source | None) -> None:
    """Put the source's question and draft answer in the inputs once, when a different source is picked;
    a question handed over by another page (``open_in``) wins over the source's own."""
    identity = None if source is None else (source.name, source.question, source.answer)
    if st.session_state.get(f"{prefix}.loaded") != identity:
        st.session_state[f"{prefix}.loaded"] = identity
        if source is not None:
            inputs.seed(st.session_state, f"{prefix}.question", source.question)
            inputs.seed(st.session_state, f"{prefix}.answer", source.answer or "")
    pending = st.session_state.pop(f"{prefix}.pending", None)
    if pending is not None:
        inputs.seed(st.session_state, f"{prefix}.question", pending[0])
        inputs.seed(st.session_state, f"{prefix}.answer", pending[1])


def open_in(state: MutableMapping[Any, Any], prefix: str, samples_dir: Path, *, bundle_file: Path | None,
            bundle_json: str | None, question: str, answer: str | None) -> None:
    """Set another page's picker to a bundle (a sample file by name, else the bundle as pasted JSON) and hand
    it a question and draft to fill in on its next run."""
    stems = {path.resolve(): stem for stem, path in sources.sample_files(samples_dir).items()}
    stem = stems.get(bundle_file.resolve()) if bundle_file is not None else None
    if stem is not None:
        inputs.seed(state, f"{prefix}.source_kind", "Sample")
        inputs.seed(state, f"{prefix}.sample", stem)
    else:
        text = bundle_json if bundle_json is not None else bundle_file.read_text(encoding="utf-8") \
            if bundle_file is not None else ""
        inputs.seed(state, f"{prefix}.source_kind", "Paste JSON")
        inputs.seed(state, f"{prefix}.paste", text)
    state[f"{prefix}.pending"] = (question, answer or "")
