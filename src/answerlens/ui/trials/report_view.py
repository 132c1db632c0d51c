"""The Trials page's report: how the run ended, the summary numbers, the gates, the charts, the grouped errors,
the second opinion, the tables (searched, filtered, exported as shown) and one sample at a time (``sample_view``).

The numbers are metric cards: short labels that fit whole, the details in the help, and a note under any value
that rests on too few samples to rate."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import streamlit as st

from answerlens.html import trial_rows as trial_results
from answerlens.html.escape import esc
from answerlens.html.markup import caveats_html, cell, notice_html, outcome_cell, table_html
from answerlens.html.trial_rows import Stat
from answerlens.local_model import WIRING_MARK, wiring_check
from answerlens.review.labels import LabelStore
from answerlens.trials.dataset import Dataset, run_dataset
from answerlens.trials.failures import ErrorGroup
from answerlens.trials.gates import GateReport
from answerlens.trials.log import ResultKind
from answerlens.trials.nodes import NodeStats
from answerlens.trials.result import TrialResult
from answerlens.ui.common import filters_view, history
from answerlens.ui.common import report_file as report_download
from answerlens.ui.common.local_model import CAVEAT
from answerlens.ui.review import agreement_view
from answerlens.ui.review import view as review_view
from answerlens.ui.trials import opinions, sample_view
from answerlens.ui.trials import report_model as model
from answerlens.ui.trials import tables as trial_tables
from answerlens.ui.trials.errors import trial_message, trial_remedy, where
from answerlens.ui.trials.run_view import Shown

ENTRIES = 8
"""Results kept built: the example, and a few opened or run in this app's sessions."""


@st.cache_resource(max_entries=ENTRIES, show_spinner=False)
def report_of(key: str, _result: TrialResult) -> model.Report:
    """Built once per result (``key``: its ``digest``, which ``Shown`` carries) for every rerun and session."""
    return model.build(_result)


@st.cache_resource(max_entries=ENTRIES, show_spinner=False)
def stored_opinions(key: str, _result: TrialResult) -> model.Opinions | None:
    return model.stored_opinions(_result)


@st.cache_resource(max_entries=ENTRIES, show_spinner=False)
def computed_opinions(key: str, dataset_key: str, _result: TrialResult, _dataset: Dataset) -> model.Opinions | None:
    """Once per result and dataset (``dataset_key``: its ``dataset_digest``): a fraction of a second for the
    example's 64 samples."""
    return model.computed_opinions(_result, _dataset)


def show(prefix: str, shown: Shown, samples_dir: Path, cwd: Path) -> None:
    result = shown.result
    built = report_of(shown.key, result)
    st.subheader("Result")
    st.html(f'<div class="al-muted" data-trial-kind="{esc(result.kind.value)}">{esc(shown.origin)} · '
            f"{esc(trial_results.KIND_LABELS[result.kind])}</div>")
    config = result.configuration
    if config is not None and wiring_check(config.provider, config.model):
        st.html(f'<div data-wiring-check="true">{notice_html("warning", WIRING_MARK.capitalize(), CAVEAT)}</div>')
    if result.summary_matches is not None:
        matches = result.summary_matches
        st.html(notice_html("ok" if matches else "error", "The summary recomputed from the samples "
                            + ("matches the published one" if matches else "DIFFERS from the published one")))
    report = report_download.trial_file(result, source=shown.origin)  # the shareable HTML report
    st.download_button(report_download.LABEL, report.data, file_name=report.file_name, mime=report.mime,
                       key=f"{prefix}.download.report", on_click="ignore", help=report.help,
                       icon=":material/description:")
    for notice in built.notices:
        st.html(f'<div data-run-state="{esc(notice.kind)}">'
                f"{notice.html()}</div>")
    if not _verified(prefix, shown):
        return
    numbers(built.stats)
    _gates(result.kind, result.quality_gates)
    _charts(prefix, built.charts)
    _errors(built.groups)
    _nodes(built.nodes)
    opinions_section(prefix, shown, cwd)
    with st.expander("Agreement with people's labels"):
        agreement_view.trial(prefix, shown.key, result, shown.origin, cwd,
                             review_view.labels(LabelStore(history.store(st.session_state))))
    _tables(prefix, built)
    sample_view.sample(prefix, shown, built.refs, samples_dir, cwd)


def _verified(prefix: str, shown: Shown) -> bool:
    """What verify says of the result, before any of its numbers: a result that does not verify is one notice,
    and its numbers, gates and charts are shown only on request, marked NOT VERIFIED."""
    verified = shown.verified
    samples = verified.samples
    if samples is not None and not samples.complete:
        unfinished = notice_html("info", f"This run is {samples.text}", "every figure below counts the samples "
                                 "saved so far; a run verifies as complete only once every sample is there",
                                 "run the same trial again to resume it")
        st.html(f'<div data-verified="unfinished">{unfinished}</div>')
    if verified.caveats:
        st.html(f'<div data-verified-caveats="{len(verified.caveats)}">{caveats_html(verified.caveats)}</div>')
    if not verified.problems:
        return True
    problems = verified.problems
    refused = notice_html("error", f"This result does not verify ({len(problems)} problem(s))", problems[0],
                          "do not rely on its numbers or gates; re-create it from the original run (`answerlens "
                          "verify` names every problem)", code="\n".join(problems[1:8]) or None)
    st.html(f'<div data-verified="false">{refused}</div>')
    return st.toggle("Show its numbers anyway (NOT VERIFIED)", key=f"{prefix}.show_unverified")


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


def _charts(prefix: str, figures: model.Charts) -> None:
    left, right = st.columns(2, gap="medium")
    left.plotly_chart(figures.actions, key=f"{prefix}.chart.actions", config={"displaylogo": False})
    if figures.citations is not None:
        right.plotly_chart(figures.citations, key=f"{prefix}.chart.citations", config={"displaylogo": False})
    else:
        right.html(notice_html("ok", "No citation errors", "no sample cited a token outside its context"))
    left, right = st.columns(2, gap="medium")
    left.plotly_chart(figures.grid, key=f"{prefix}.chart.grid", on_select=lambda: sample_view.picked(prefix),
                      selection_mode="points", config={"displaylogo": False})
    with right:
        if figures.agreement is None:
            st.html(notice_html("info", "Per-requirement agreement needs two repeats or more"))
        else:
            st.plotly_chart(figures.agreement, key=f"{prefix}.chart.agreement", config={"displaylogo": False})


def _errors(groups: Sequence[ErrorGroup]) -> None:
    """Identical errors as one notice with their count, each message as it applies to a trial."""
    if not groups:
        return
    total = sum(group.count for group in groups)
    st.markdown(f"**Error samples: {trial_results.counted(total, 'sample')} in "
                f"{trial_results.counted(len(groups), 'group')}** — provider failures, recorded as errors and "
                "never as verdicts")
    for group in groups:
        title = f"×{group.count} {group.kind} · {where(group)}"
        st.html(f'<div data-error-group="{esc(group.kind)}" data-error-count="{group.count}">'
                f"{notice_html('error', title, trial_message(group.message), trial_remedy(group.kind))}</div>")


def _nodes(rows: Sequence[NodeStats]) -> None:
    """A run on a Dask cluster: one row per node, so a node that fails or lags is seen at once."""
    if not rows:
        return
    st.markdown(f"**Where the samples ran: {trial_results.counted(len(rows), 'node')}**")
    body = [cell(row.name) + cell(row.host) + cell(row.samples)
            + outcome_cell(str(row.errors), None if not row.errors else False, f'data-node-errors="{row.errors}"')
            + cell(f"{row.median_ms:,.0f} ms") + cell(f"{row.p90_ms:,.0f} ms") for row in rows]
    st.html(f'<div data-nodes="{len(rows)}">'
            f'{table_html(["node", "host", "samples", "errors", "median latency", "p90 latency"], body)}</div>')


def _tables(prefix: str, built: model.Report) -> None:
    """Per question and per sample: search, filter by label, action and error kind, sort, export as shown."""
    per_question, per_sample = built.questions, built.samples
    number, text = st.column_config.NumberColumn, st.column_config.TextColumn
    with st.expander(f"Questions ({len(per_question)}) and samples ({len(per_sample)}) as tables"):
        st.markdown("**Questions**")
        filters_view.table(f"{prefix}.questions", per_question, trial_tables.QUESTION_SPEC, noun="question",
                           file_stem="trial-questions", placeholder="words of a question, its id or type",
                           column_config={
            "question text": text("question text", width="medium"),
            "outcomes": text("outcomes", help="the action of each repeat, in order (· no sample)"),
            "citation errors": number("citation errors", format="%d"),
            "matched": number("matched", help="requirement texts seen in two repeats or more"),
            "agreeing": number("agreeing", help="matched texts with one status throughout"),
        })
        st.markdown("**Samples**")
        filters_view.table(f"{prefix}.samples", per_sample, trial_tables.SAMPLE_SPEC, noun="sample",
                           file_stem="trial-samples", placeholder="words of a question, or a sample id",
                           column_config={
            "sample": text("sample", help="pick it in the sample list below"),
            "question text": text("question text", width="medium"),
            "repeat": number("repeat", format="%d"),
            "latency ms": number("latency ms", format="%.0f",
                                 help="answerlens runs only: the whole call, retries included"),
        })


PER_ROW = 3
"""Three cards a row: their labels fit whole at 1280 px with the sidebar open (a phone stacks them)."""


def numbers(stats: Sequence[Stat], per_row: int = PER_ROW) -> None:
    for start in range(0, len(stats), per_row):
        columns = st.columns(per_row)
        for column, stat in zip(columns, stats[start:start + per_row], strict=False):
            column.metric(stat.label, stat.value, delta=stat.note, delta_color="orange", delta_arrow="off",
                          help=stat.help, border=True)


def opinions_section(prefix: str, shown: Shown, cwd: Path) -> None:
    """Per run: requirements flagged, verifier agreement and the unsafe answers the second opinion would have
    caught, as numbers and a chart; or why the run has none."""
    st.subheader("Second opinion")
    found = _opinions(shown, cwd)
    if isinstance(found, str):
        st.html(f'<div data-second-opinion="none">{notice_html("info", "No second opinion for this run", found)}'
                "</div>")
        return
    summary = found.summary
    st.html(f'<div class="al-muted" data-second-opinion="{esc(summary.counts.assessments)}">'
            f"{esc(opinions.coverage(summary))}</div>")
    numbers(opinions.stats(summary), per_row=2)
    st.plotly_chart(found.chart, key=f"{prefix}.chart.opinions", config={"displaylogo": False})


def _opinions(shown: Shown, cwd: Path) -> model.Opinions | str:
    """The stored opinions, else flags computed from the run's dataset; or why there is neither."""
    result = shown.result
    stored = stored_opinions(shown.key, result)
    if stored is not None:
        return stored
    if shown.dataset is None:
        shown.dataset = run_dataset(result, cwd)
    if isinstance(shown.dataset, str):
        return (f"the samples carry none, and the flags cannot be computed here: {shown.dataset} "
                "(a run of answerlens trial --second-opinion stores one with every sample)")
    computed = computed_opinions(shown.key, model.dataset_digest(shown.dataset), result, shown.dataset)
    return computed if computed is not None else "no assessed sample could be checked against the run's dataset"
