"""One trial sample on the Trials page: picked from a list (or a square of the grid), opened in the Inspect page
with its highlighted context when its bundle can be found; otherwise (upstream files carry no bundles) its
assessment is shown here, Compare-style. An error sample is shown as an error, with what applies to a trial."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import streamlit as st

from answerlens.assessment import AnswerabilityAssessment
from answerlens.explanation import HASH_FIELDS
from answerlens.html import provenance
from answerlens.html.escape import esc, plain
from answerlens.html.markup import (
    cell,
    facts_html,
    hashes_html,
    notice_html,
    status_badge,
    table_html,
    verdict_html,
)
from answerlens.html.trial_rows import SampleRef
from answerlens.trials.dataset import run_dataset
from answerlens.ui.common import history
from answerlens.ui.common import source_view as source_picker
from answerlens.ui.compare import view as compare_view
from answerlens.ui.trials.errors import trial_message, trial_remedy
from answerlens.ui.trials.run_view import Shown
from answerlens.ui.trials.sources import InspectTarget, inspect_target
from answerlens.verification.assessment import verify_assessment

INSPECT_PAGE = "pages/inspect.py"


def picked(prefix: str) -> None:
    """A click on the grid selects that sample in the sample picker."""
    event = st.session_state.get(f"{prefix}.chart.grid")
    points = event["selection"]["points"] if event else []
    if points and points[0].get("customdata"):
        st.session_state[f"{prefix}.sample"] = points[0]["customdata"][0]


def sample(prefix: str, shown: Shown, refs: Sequence[SampleRef], samples_dir: Path, cwd: Path) -> None:
    st.subheader("Sample")
    by_key = {ref.key: ref for ref in refs}
    if st.session_state.get(f"{prefix}.sample") not in by_key:
        st.session_state.pop(f"{prefix}.sample", None)
    key = st.selectbox(f"Sample ({len(refs)}; or click a square above)", list(by_key),
                       format_func=lambda k: plain(by_key[k].title), key=f"{prefix}.sample")
    if key is None:
        return
    ref = by_key[key]
    found = shown.result.samples[ref.position]
    if found.assessment is None:
        kind = found.error.kind if found.error is not None else "error"
        message = trial_message(found.error.message) if found.error is not None else None
        st.html(notice_html("error", f"Error sample ({ref.error}): no verdict was produced", message,
                            trial_remedy(kind)))
        return
    assessment = found.assessment
    if shown.dataset is None:
        shown.dataset = run_dataset(shown.result, cwd)
    target = shown.dataset if isinstance(shown.dataset, str) else inspect_target(shown.result, ref, shown.dataset)
    label = f"{provenance.source_label(assessment)[0]} · trial sample"
    st.html(verdict_html(assessment.verdict.value, assessment.recommended_action.value, source=label))
    if isinstance(target, InspectTarget):
        if st.button("Open in Inspect", key=f"{prefix}.open_inspect", type="primary",
                     icon=":material/manage_search:", help="see its context with the citations highlighted"):
            _open_in_inspect(target, shown.origin, ref, samples_dir)
        return
    st.html(notice_html("info", "The context isn't available for this sample", target,
                        "its assessment is shown below as recorded; the Compare page can diff it with another"))
    _recorded(assessment)


def _open_in_inspect(target: InspectTarget, origin: str, ref: SampleRef, samples_dir: Path) -> None:
    label, note = provenance.source_label(target.assessment)
    history.add(st.session_state, source=target.title, question=target.question, answer=target.answer,
                assessment=target.assessment, context=target.context, label=label, note=note or f"from {origin}",
                seconds=(ref.latency_ms or 0) / 1000)
    source_picker.open_in(st.session_state, "inspect", samples_dir, bundle_file=target.bundle_file,
                          bundle_json=target.bundle_json, question=target.question, answer=target.answer)
    st.session_state.pop("inspect.failure", None)
    st.switch_page(INSPECT_PAGE)


def _recorded(assessment: AnswerabilityAssessment) -> None:
    """An assessment without its context: verification, requirements and hashes, as the Compare page shows them."""
    compare_view.verification("Sample", "recomputed hashes and verdict", verify_assessment(assessment).problems)
    body = []
    for index, item in enumerate(assessment.requirements, start=1):
        status = item.status.value
        body.append(cell(index) + f'<td class="al-text">{esc(item.requirement)}</td>'
                    + f"<td>{status_badge(status)}</td>"
                    + cell(" ".join(item.evidence_refs) or "—")
                    + f'<td class="al-text">{esc(item.explanation)}</td>')
    st.html(table_html(["#", "requirement", "status", "citations", "explanation"], body))
    if assessment.citation_errors:
        st.html(notice_html("warning", f"Citation errors ({len(assessment.citation_errors)})",
                            code="\n".join(assessment.citation_errors)))
    st.html(facts_html([("provider", assessment.provider), ("model", assessment.model),
                        ("prompt_version", assessment.prompt_version), ("model_called", assessment.model_called)]))
    st.html(hashes_html({name: getattr(assessment, name) for name in HASH_FIELDS}, copy_buttons=False))
