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
from answerlens.review.folders import check_trial
from answerlens.review.items import FolderSource, Matching, Source, agreement_of, match
from answerlens.review.labels import Label
from answerlens.review.shown import Item
from answerlens.trials.result import TrialResult
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


@st.cache_resource(max_entries=4, show_spinner="Verifying the trial's samples…")
def _trial_source(key: str, origin: str, cwd: str, _result: TrialResult) -> FolderSource:
    del key  # the result's digest: what the cache is for
    return FolderSource(Path(origin), checked=check_trial(_result, Path(origin), cwd=Path(cwd)))


def trial(prefix: str, key: str, result: TrialResult, origin: str, cwd: Path, labels: list[Label]) -> None:
    """The Trials page's section: the judge against the labels people gave this trial's samples."""
    ids = {sample.assessment.evaluation_id for sample in result.samples if sample.assessment is not None}
    if not any(label.evaluation_id in ids for label in labels):
        st.html('<div class="al-muted" data-agreement="none">No one has labelled this trial\'s samples yet: open '
                "it on the Review page to label them (keys 1–4), then the judge is measured against the labels "
                "here.</div>")
    else:
        show(_trial_source(key, origin, str(cwd), result), labels)
    if Path(origin).exists() and st.button("Review these samples", key=f"{prefix}.review",
                                           icon=":material/rate_review:"):
        st.switch_page("pages/review.py", query_params={"source": origin})
