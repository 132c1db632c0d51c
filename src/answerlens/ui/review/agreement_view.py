"""The judge against people's labels, for a source (Review page) or one trial (Trials page); and the exports: the
labels as JSON lines, the reviewed runs as a trial dataset."""

from __future__ import annotations

import io
import json
from pathlib import Path

import streamlit as st

from answerlens.errors import AnswerlensError
from answerlens.html.escape import esc
from answerlens.review.export import BundleIndex, dataset_cases, matched_lines, write_labels
from answerlens.review.items import Matching, Source, agreement_of, match
from answerlens.review.labels import Label
from answerlens.review.shown import Item
from answerlens.ui.review import agreement as agreement_html


def show(src: Source, labels: list[Label], items: list[Item] | None = None) -> Matching:
    """The figures over the labels that count, and the ones that do not, with why (``items``: the source's, when
    already listed)."""
    matching = match(src, labels, items)
    result = agreement_of(matching)
    st.html(agreement_html.summary_html(result, void=len(matching.void), unmatched=len(matching.unmatched)))
    if result.n:
        left, right = st.columns(2)
        left.html(agreement_html.confusion_html(result))
        right.html(agreement_html.classes_html(result))
        st.html(agreement_html.unsafe_html(result, [_link(case) for case in result.unsafe.cases]))
        st.html(agreement_html.humans_html(result))
        st.caption(result.interval)
    left_out = matched_lines([*matching.void, *matching.unmatched])
    if left_out:
        st.html(agreement_html.left_out_html(left_out))
    return matching


def _link(case: str) -> str:
    """A stored run's case opens in Inspect; a trial's or sweep's is named."""
    if case.startswith("?run="):
        return f'<a href="inspect{esc(case)}" target="_self">{esc(case[5:17])}…</a>'
    return esc(case)


def exports(prefix: str, src: Source, labels: list[Label], matching: Matching, bundle_paths: list[Path]) -> None:
    """Download the labels (JSON lines, with their hashes), and the reviewed runs as a trial dataset."""
    left, right = st.columns(2)
    left.download_button("Labels (JSON lines)", data=lambda: _labels_text(labels), file_name="labels.jsonl",
                         mime="application/jsonl", key=f"{prefix}.export.labels", icon=":material/download:",
                         on_click="ignore", width="stretch", help="every label in the run store, hashes included: "
                         "`answerlens labels import FILE` merges them into another")
    right.download_button("Reviewed runs as a trial dataset", data=lambda: _dataset_text(matching, bundle_paths),
                          file_name="reviewed-dataset.json", mime="application/json", key=f"{prefix}.export.dataset",
                          icon=":material/dataset:", on_click="ignore", width="stretch",
                          disabled=not matching.valid, help="the people's verdicts as the dataset's labels: run "
                          "`answerlens trial reviewed-dataset.json …` to gate the model against them")


def _labels_text(labels: list[Label]) -> str:
    out = io.StringIO()
    write_labels(labels, out)
    return out.getvalue()


def _dataset_text(matching: Matching, bundle_paths: list[Path]) -> str:
    try:
        exported = dataset_cases(matching, out=Path("reviewed-dataset.json"), bundles=BundleIndex(bundle_paths))
    except AnswerlensError as exc:
        return json.dumps({"error": str(exc)})
    return json.dumps(list(exported.cases), ensure_ascii=False, indent=1) + "\n"
