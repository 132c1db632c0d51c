"""The Trials page's report: summary numbers, the gates, the charts, the tables, and one sample at a time.

A sample opens in the Inspect page with its highlighted context when its bundle can be found; otherwise (upstream
files carry no bundles) its assessment is shown here, Compare-style. An error sample is shown as an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import streamlit as st

from answerlens.assessment import AnswerabilityAssessment
from answerlens.explanation import HASH_FIELDS
from answerlens.trials.gates import GateReport
from answerlens.trials.log import ResultKind
from answerlens.trials.summary import ErrorEntry
from answerlens.ui.common import history, provenance
from answerlens.ui.common import source_view as source_picker
from answerlens.ui.common.markup import (
    STATUS_COLOURS,
    cell,
    esc,
    facts_html,
    hashes_html,
    notice_html,
    outcome_cell,
    plain,
    table_html,
    verdict_html,
)
from answerlens.ui.compare import view as compare_view
from answerlens.ui.trials import charts as trial_charts
from answerlens.ui.trials import tables as trial_tables
from answerlens.ui.trials import viewmodel as trial_results
from answerlens.ui.trials.run_view import Shown
from answerlens.ui.trials.sources import InspectTarget, inspect_target, run_dataset
from answerlens.ui.trials.viewmodel import QuestionRow, SampleRef
from answerlens.verification import verify_assessment

INSPECT_PAGE = "pages/inspect.py"


def show(prefix: str, shown: Shown, samples_dir: Path, cwd: Path) -> None:
    result = shown.result
    refs = trial_results.samples(result)
    rows = trial_results.questions(result, refs)
    st.subheader("Result")
    st.html(f'<div class="al-muted" data-trial-kind="{esc(result.kind.value)}">{esc(shown.origin)} · '
            f"{esc(trial_results.KIND_LABELS[result.kind])}</div>")
    if result.summary_matches is not None:
        matches = result.summary_matches
        st.html(notice_html("ok" if matches else "error", "The summary recomputed from the samples "
                            + ("matches the published one" if matches else "DIFFERS from the published one")))
    _numbers(trial_results.headline(result))
    _gates(result.kind, result.quality_gates)
    _charts(prefix, rows, refs)
    _errors(result.summary.errors)
    _tables(prefix, rows, refs)
    _sample(prefix, shown, refs, samples_dir, cwd)


def _numbers(numbers: list[tuple[str, str, str | None]]) -> None:
    for start in range(0, len(numbers), 5):
        columns = st.columns(5)
        for column, (label, value, help_text) in zip(columns, numbers[start:start + 5], strict=False):
            column.metric(label, value, help=help_text, border=True)


def _gates(kind: ResultKind, gates: GateReport | None) -> None:
    st.markdown("**Gates**")
    rows = trial_results.gate_rows(gates)
    if not rows:
        st.html(notice_html("info", "This result has no gates"))
        return
    failed = [row for row in rows if not row.passed]
    title = (f"All {len(rows)} gates pass" if not failed else f"{len(failed)} of {len(rows)} gates fail: "
             + ", ".join(row.name for row in failed))
    st.html(f'<div data-gates-passed="{str(not failed).lower()}">'
            f'{notice_html("error" if failed else "ok", title, trial_results.GATES_SOURCE[kind])}</div>')
    body = [cell(row.name) + cell(trial_results.number(row.observed), 'data-observed=""')
            + cell(row.rule) + outcome_cell("pass" if row.passed else "FAIL", row.passed,
                                            f'data-gate="{esc(row.name)}" data-passed="{str(row.passed).lower()}"')
            for row in rows]
    st.html(table_html(["gate", "observed", "required", ""], body))


def _charts(prefix: str, rows: Sequence[QuestionRow], refs: Sequence[SampleRef]) -> None:
    left, right = st.columns(2, gap="medium")
    left.plotly_chart(trial_charts.actions_per_label(trial_results.outcome_groups(refs)),
                      key=f"{prefix}.chart.actions", config={"displaylogo": False})
    if any(row.citation_errors for row in rows):
        right.plotly_chart(trial_charts.citation_errors(rows), key=f"{prefix}.chart.citations",
                           config={"displaylogo": False})
    else:
        right.html(notice_html("ok", "No citation errors", "no sample cited a token outside its context"))
    left, right = st.columns(2, gap="medium")
    left.plotly_chart(trial_charts.outcome_grid(rows, refs), key=f"{prefix}.chart.grid",
                      on_select=lambda: _picked(prefix), selection_mode="points", config={"displaylogo": False})
    with right:
        if trial_results.repeats(refs) < 2:
            st.html(notice_html("info", "Per-requirement agreement needs two repeats or more"))
        else:
            st.plotly_chart(trial_charts.requirement_agreement(rows), key=f"{prefix}.chart.agreement",
                            config={"displaylogo": False})


def _errors(errors: Sequence[ErrorEntry]) -> None:
    if not errors:
        return
    st.markdown(f"**Error samples ({len(errors)})** — provider failures, recorded as errors and never as verdicts")
    body = [cell(e.question_id) + cell(e.repeat) + cell(e.kind) + f'<td class="al-text">{esc(e.message)}</td>'
            for e in errors]
    st.html(table_html(["question", "repeat", "kind", "message"], body))


def _tables(prefix: str, rows: Sequence[QuestionRow], refs: Sequence[SampleRef]) -> None:
    """The per-question and per-sample tables: sortable, and downloadable as CSV."""
    per_question, per_sample = trial_tables.questions(rows), trial_tables.samples(refs)
    with st.expander(f"Questions ({len(per_question)}) and samples ({len(per_sample)}) as tables"):
        st.dataframe(per_question, key=f"{prefix}.table.questions", hide_index=True, width="stretch", column_config={
            "outcomes": st.column_config.TextColumn("outcomes", help="the action of each repeat, in order"),
            "citation errors": st.column_config.NumberColumn("citation errors", format="%d"),
            "matched": st.column_config.NumberColumn("matched", help="requirement texts seen in two repeats or more"),
            "agreeing": st.column_config.NumberColumn("agreeing", help="matched texts with one status throughout"),
        })
        st.download_button("Questions as CSV", trial_tables.csv_text(per_question), "trial-questions.csv",
                           "text/csv", key=f"{prefix}.csv.questions", icon=":material/download:")
        st.dataframe(per_sample, key=f"{prefix}.table.samples", hide_index=True, width="stretch", column_config={
            "sample": st.column_config.TextColumn("sample", help="pick it in the sample list below"),
            "repeat": st.column_config.NumberColumn("repeat", format="%d"),
            "latency ms": st.column_config.NumberColumn("latency ms", format="%.0f",
                                                        help="answerlens runs only: the whole call, retries included"),
        })
        st.download_button("Samples as CSV", trial_tables.csv_text(per_sample), "trial-samples.csv", "text/csv",
                           key=f"{prefix}.csv.samples", icon=":material/download:")


def _picked(prefix: str) -> None:
    """A click on the grid selects that sample in the sample picker."""
    event = st.session_state.get(f"{prefix}.chart.grid")
    points = event["selection"]["points"] if event else []
    if points and points[0].get("customdata"):
        st.session_state[f"{prefix}.sample"] = points[0]["customdata"][0]


def _sample(prefix: str, shown: Shown, refs: list[SampleRef], samples_dir: Path, cwd: Path) -> None:
    st.subheader("Sample")
    by_key = {ref.key: ref for ref in refs}
    if st.session_state.get(f"{prefix}.sample") not in by_key:
        st.session_state.pop(f"{prefix}.sample", None)
    key = st.selectbox(f"Sample ({len(refs)}; or click a square above)", list(by_key),
                       format_func=lambda k: plain(by_key[k].title), key=f"{prefix}.sample")
    if key is None:
        return
    ref = by_key[key]
    sample = shown.result.samples[ref.position]
    if sample.assessment is None:
        message = sample.error.message if sample.error is not None else None
        st.html(notice_html("error", f"Error sample ({ref.error}): no verdict was produced", message,
                            "rerun the trial into the same directory to retry error samples"))
        return
    assessment = sample.assessment
    if shown.dataset is None:
        shown.dataset = run_dataset(shown.result, cwd)
    target = shown.dataset if isinstance(shown.dataset, str) else inspect_target(shown.result, ref, shown.dataset)
    label = f"trial sample · {assessment.provider} {assessment.model}"
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
    history.add(st.session_state, source=target.title, question=target.question, assessment=target.assessment,
                context=target.context, label=label, note=note or f"from {origin}",
                seconds=(ref.latency_ms or 0) / 1000)
    source_picker.open_in(st.session_state, "inspect", samples_dir, bundle_file=target.bundle_file,
                          bundle_json=target.bundle_json, question=target.question, answer=target.answer)
    st.session_state.pop("inspect.failure", None)
    st.switch_page(INSPECT_PAGE)


def _recorded(assessment: AnswerabilityAssessment) -> None:
    """An assessment without its context: verification, requirements and hashes, as the Compare page shows them."""
    compare_view.verification("Sample", "recomputed hashes and verdict", verify_assessment(assessment))
    body = []
    for index, item in enumerate(assessment.requirements):
        status = item.status.value
        body.append(cell(index) + f'<td class="al-text">{esc(item.requirement)}</td>'
                    + f'<td style="color:{STATUS_COLOURS.get(status, "#1f2328")};font-weight:600">{esc(status)}</td>'
                    + cell(" ".join(item.evidence_refs) or "—")
                    + f'<td class="al-text">{esc(item.explanation)}</td>')
    st.html(table_html(["#", "requirement", "status", "citations", "explanation"], body))
    if assessment.citation_errors:
        st.html(notice_html("warning", f"Citation errors ({len(assessment.citation_errors)})",
                            code="\n".join(assessment.citation_errors)))
    st.html(facts_html([("provider", assessment.provider), ("model", assessment.model),
                        ("prompt_version", assessment.prompt_version), ("model_called", assessment.model_called)]))
    st.html(hashes_html({name: getattr(assessment, name) for name in HASH_FIELDS}, copy_buttons=False))
