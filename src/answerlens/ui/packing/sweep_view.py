"""The Packing page's sweep: settings, live progress and cancel, then the grid (two axes the user picks, the rest
filtered; coloured by action; a cell opens its run in Inspect), what changed, every cell, exports, and the stored
sweeps with their deep link ``?sweep=<id>``."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import streamlit as st

from answerlens.errors import AnswerlensError
from answerlens.html.escape import esc, plain
from answerlens.html.markup import fit_notes_html, notice_html
from answerlens.html.sweep_grid import cells_table, changes_html, grid_html, requirement_tables
from answerlens.sweeps.result import SweepResult
from answerlens.sweeps.settings import SweepFormat
from answerlens.sweeps.view import AXES, COLUMNS, ROWS, failure_lines, labels_of, swept, value_text, values
from answerlens.ui.common import endpoint_view, history, history_view
from answerlens.ui.common.sources import Source
from answerlens.ui.packing import sweep_job, sweeps
from answerlens.ui.packing.sweep_job import SweepJob, SweepSettings
from answerlens.verification.report import sweep_report

LABELS = {item.value: item.label for item in SweepFormat}


def section(prefix: str, source: Source | None, examples: Path | None = None) -> None:
    """``examples``: the shipped sweeps (``sample_bundles/sweeps``), listed and opened beside the stored ones."""
    st.subheader("Run a sweep")
    st.caption("Assess one question at every format × token budget × depth × chunk size, several times each: does a "
               "packing setting change the verdict, and which cut record made it change?")
    _follow_link(prefix)
    choice = endpoint_view.panel(prefix, source, recorded=False)
    if source is not None:
        _form(prefix, source, choice.config, choice.problem)
    _progress(prefix)
    _picker(prefix, examples)
    _show(prefix, examples)


def _follow_link(prefix: str) -> None:
    wanted = st.query_params.get("sweep")
    if wanted and wanted != st.session_state.get(f"{prefix}.sweep_linked"):
        st.session_state[f"{prefix}.sweep_linked"] = wanted
        st.session_state[f"{prefix}.sweep_id"] = wanted


def _form(prefix: str, source: Source, config: object, problem: str | None) -> None:
    # Left empty, the sample's own question and draft are used (shown escaped below, never put in a widget).
    typed = st.text_input("Question", key=f"{prefix}.sweep.question",
                          placeholder="empty: the sample's question" if source.question else "the question")
    drafted = st.text_input("Draft answer (optional)", key=f"{prefix}.sweep.answer",
                            placeholder="empty: the sample's draft" if source.answer else "")
    question = typed if typed.strip() else source.question or ""
    answer = drafted if drafted.strip() or typed.strip() else source.answer or ""
    if question and not typed.strip():
        st.html(f'<div class="al-muted" data-sweep-question>Sweeping the sample\'s question: '
                f"{esc(question)}{' · with its draft answer' if answer else ''}</div>")
    left, right = st.columns(2)
    formats = left.multiselect("Formats", list(LABELS), default=list(LABELS), format_func=LABELS.__getitem__,
                               key=f"{prefix}.sweep_formats")
    budgets = right.text_input("Budgets", value="packed, 75%, 50%", key=f"{prefix}.sweep_budgets",
                               help="'packed', a token count, or NN% of the packed context's tokens; comma-separated")
    left, right = st.columns(2)
    depths = left.text_input("Depths (top k)", key=f"{prefix}.sweep_top_k", placeholder="empty: every record",
                             help="Keep the first K records in packed order; comma-separated (e.g. 8, 4)")
    chunks = right.text_input("Chunk sizes (tokens a record)", key=f"{prefix}.sweep_record_tokens",
                              placeholder="empty: whole records",
                              help="Cut each record's text to its first N tokens, marked as cut; comma-separated")
    left, right = st.columns(2)
    repeats = int(left.number_input("Repeats per cell", 1, 50, 3, key=f"{prefix}.sweep_repeats"))
    concurrency = int(right.number_input("Requests in flight", 0, 16, 0, key=f"{prefix}.sweep_concurrency",
                                         help="0: as many as the server serves at once (4 at most); the embedded "
                                         "model serves 1"))
    opinion = st.toggle("Second opinion", key=f"{prefix}.sweep_second_opinion",
                        help="Every assessed sample gets the second opinion's flags (and the NLI claim verifier's "
                        "result when it is installed); the grid's table counts the flags per cell")
    job: SweepJob | None = st.session_state.get(f"{prefix}.sweep_job")
    busy = job is not None and job.job.running
    ready = bool(question.strip()) and config is not None and formats and not busy
    if config is None and problem:
        st.caption(f"Set the endpoint first: {problem}")
    if st.button("Run a sweep", type="primary", key=f"{prefix}.sweep_run", disabled=not ready):
        from answerlens.config import AnswerabilityConfig

        assert isinstance(config, AnswerabilityConfig)
        _start(prefix, source, SweepSettings(
            question=question.strip(), answer=answer.strip() or None, bundle=source.bundle, bundle_name=source.title,
            config=config, formats=tuple(formats), budgets=tuple(sweeps.parse_budgets(budgets)), repeats=repeats,
            concurrency=concurrency or None, second_opinion=opinion, top_k=tuple(sweeps.parse_budgets(depths)),
            record_tokens=tuple(sweeps.parse_budgets(chunks))))


def _start(prefix: str, source: Source, settings: SweepSettings) -> None:
    try:
        planned = sweeps.plan(settings.question, settings.answer, source.bundle, settings.config,
                              list(settings.formats), list(settings.budgets), settings.repeats, source.title,
                              sweeps.sweeps_dir(), second_opinion=settings.second_opinion, top_k=settings.top_k,
                              record_tokens=settings.record_tokens)
    except ValueError as exc:
        st.html(notice_html("error", "The sweep settings cannot be used", str(exc)))
        return
    st.session_state[f"{prefix}.sweep_job"] = sweep_job.start(settings, out=planned.out, cells=planned.cells)
    st.session_state[f"{prefix}.sweep_id"] = planned.id
    st.session_state[f"{prefix}.sweep_linked"] = planned.id
    st.query_params["sweep"] = planned.id


def _progress(prefix: str) -> None:
    job: SweepJob | None = st.session_state.get(f"{prefix}.sweep_job")
    if job is None:
        return
    if job.job.running:
        _live(prefix)
    elif job.failure is not None:
        st.html(notice_html("error", job.failure.title, job.failure.message, job.failure.remedy))
    elif job.outcome is not None and job.outcome.result is None:
        why = job.outcome.stopped.text if job.outcome.stopped is not None else "cancelled"
        st.html(notice_html("warning", f"The sweep stopped before it finished ({why})",
                            f"{job.outcome.new_samples} new sample(s) are kept", "run it again to resume"))
    if job.outcome is not None and job.outcome.fit is not None and job.outcome.fit.notes:
        st.html(fit_notes_html(job.outcome.fit.notes, "sweep"))


@st.fragment(run_every=1.0)
def _live(prefix: str) -> None:
    job: SweepJob | None = st.session_state.get(f"{prefix}.sweep_job")
    if job is None:
        return
    if not job.job.running:
        st.rerun()
    progress = job.job.progress
    done = progress.done if progress else 0
    total = progress.total if progress else job.total
    st.progress(done / total if total else 0.0)
    line = f"{done} / {total} calls · {job.job.seconds:.0f} s" + (f" · last: {progress.last}" if progress else "")
    if job.job.cancelling:
        line = "cancelling: waiting for the calls in flight · " + line
    st.html(f'<div class="al-muted" data-sweep-progress="{done}/{total}">{esc(line)}</div>')
    st.button("Cancel", key=f"{prefix}.sweep_cancel", on_click=job.job.cancel, icon=":material/stop:",
              disabled=job.job.cancelling, help="finished samples are kept; Run a sweep again resumes")


def _picker(prefix: str, examples: Path | None) -> None:
    kept = sweeps.stored(sweeps.sweeps_dir(), examples)
    if not kept:
        return
    titles = {item.id: f"{item.question[:70]} · {item.bundle} · {item.cells} cells"
              + ("" if item.finished else " (unfinished)") for item in kept}
    key = f"{prefix}.sweep_pick"
    current = st.session_state.get(f"{prefix}.sweep_id")
    if current in titles and st.session_state.get(key) != current:
        st.session_state[key] = current
    st.selectbox(f"Stored sweeps ({len(kept)})", list(titles), format_func=lambda ident: plain(titles[ident]), key=key,
                 index=None, placeholder="Reopen a stored sweep (newest first)", on_change=_picked, args=(prefix, key))


def _picked(prefix: str, key: str) -> None:
    chosen = st.session_state.get(key)
    if chosen:
        st.session_state[f"{prefix}.sweep_id"] = chosen
        st.session_state[f"{prefix}.sweep_linked"] = chosen
        st.query_params["sweep"] = chosen


def _show(prefix: str, examples: Path | None) -> None:
    ident = st.session_state.get(f"{prefix}.sweep_id")
    job: SweepJob | None = st.session_state.get(f"{prefix}.sweep_job")
    if not ident or (job is not None and job.job.running and job.out.name == ident):
        return
    path = sweeps.folder_for(sweeps.sweeps_dir(), ident, examples)
    if path is None:
        st.html(notice_html("warning", f"No stored sweep {ident}", "the link names a sweep this machine does not "
                            "keep", "run the sweep again, or pick a stored one"))
        return
    try:
        opened = _opened(str(path), sweeps.stamp(path))
    except (AnswerlensError, ValueError, OSError) as exc:  # a damaged or edited folder: say so, never a traceback
        st.html(notice_html("error", f"The stored sweep {ident} cannot be read", str(exc),
                            "delete its folder and run the sweep again, or pick another one"))
        return
    result = opened.result
    manifest = opened.recorded.manifest
    config = manifest.configuration
    st.html(f'<div class="al-why" data-sweep-shown="{esc(ident)}"><strong>{esc(manifest.question)}</strong>'
            f'<div class="al-muted">{esc(manifest.bundle)} · {esc(config.provider)} {esc(config.model)} · '
            f"{manifest.repeats} repeats per cell</div></div>")
    if opened.problems:  # what verify says, and nothing of it shown as valid
        st.html(notice_html("error", f"This sweep does not verify ({len(opened.problems)} problem(s))",
                            opened.problems[0], "do not rely on its grid; delete its folder and run the sweep again",
                            code="\n".join(opened.problems[1:6]) or None))
        with st.expander("The grid as recorded (NOT VERIFIED)"):
            st.html(f'<div data-sweep="{esc(ident)}" data-verified="false">' + grid_html(result) + "</div>")
        return
    failed = failure_lines(result)
    if failed:  # first: every figure below leaves these samples out
        why = notice_html("warning", failed[0], items=[line.strip() for line in failed[1:]])
        st.html(f"<div data-sweep-failed>{why}</div>")
    links = _cell_links(opened)
    if opened.samples is not None and not opened.samples.complete:
        st.html(notice_html("info", "This sweep has not finished", f"{opened.samples.text}; the grid counts the "
                            "samples saved so far", "run the same sweep again to resume"))
    rows, cols, fixed = _grid_axes(prefix, result)
    st.html(f'<div data-sweep="{esc(ident)}" data-verified="true" data-grid-rows="{rows}" data-grid-columns="{cols}">'
            + grid_html(result, link=lambda index: f"./?run={links[index]}" if index in links else None, rows=rows,
                        cols=cols, fixed=fixed) + "</div>")
    st.caption("A cell opens its run in Inspect (its context at that setting, citations highlighted).")
    st.markdown("**What changed**")
    st.html(changes_html(result, labels_of(opened.recorded.bundle)))
    with st.expander("Every cell"):
        st.html(cells_table(result))
    tables = requirement_tables(result)
    if tables:
        with st.expander("Requirements by cell (over repeats)"):
            st.html("".join(f'<div data-cell-requirements><strong>{esc(setting)}</strong>{table}</div>'
                            for setting, table in tables))
    _exports(prefix, ident, opened)


def _cell_links(opened: sweeps.Opened) -> dict[int, str]:
    """The cells' runs in the history, for their Inspect links; a history that cannot keep them costs the links
    and one notice (unless the page has just shown the store's failure), never the grid."""
    state = st.session_state
    if history.skipped(state):
        return {}
    links, problem = sweeps.cell_runs(opened, history.store(state), opened.recorded.manifest.bundle)
    if problem is not None:
        history.failed(state, problem)
        history_view.notice()
    return links


def _grid_axes(prefix: str, result: SweepResult) -> tuple[str, str, dict[str, Any]]:
    """The two axes the grid shows (format × budget unless the user picks others) and a value for each of the rest;
    a sweep of only formats and budgets asks nothing."""
    axes = swept(result)
    if len(axes) <= 2:
        return ROWS, COLUMNS, {}
    left, right = st.columns(2)
    rows = left.selectbox("Grid rows", axes, format_func=AXES.__getitem__, key=f"{prefix}.sweep_rows")
    others = [axis for axis in axes if axis != rows]
    cols = right.selectbox("Grid columns", others, format_func=AXES.__getitem__, key=f"{prefix}.sweep_cols",
                           index=others.index(COLUMNS) if COLUMNS in others else 0)
    rest = [axis for axis in axes if axis not in (rows, cols)]
    fixed: dict[str, Any] = {}
    for column, axis in zip(st.columns(len(rest)), rest, strict=True):
        choices = values(result, axis)
        fixed[axis] = column.selectbox(f"Show {AXES[axis]}", choices, key=f"{prefix}.sweep_fix_{axis}",
                                       format_func=partial(value_text, axis))
    return rows, cols, fixed


@st.cache_resource(max_entries=4, show_spinner=False)
def _opened(path: str, stamp: tuple[float, int]) -> sweeps.Opened:
    # Keyed by the folder and its stamp (a new sample or result changes it): reruns do not cut every cell again.
    return sweeps.open_sweep(Path(path))


def _exports(prefix: str, ident: str, opened: sweeps.Opened) -> None:
    csv_col, json_col, html_col = st.columns(3)
    csv_col.download_button("CSV", sweeps.csv_text(opened.result), f"sweep-{ident}.csv", "text/csv",
                            key=f"{prefix}.sweep_csv", icon=":material/table:")
    json_col.download_button("JSON", opened.result.file_text(), f"sweep-{ident}.json", "application/json",
                             key=f"{prefix}.sweep_json", icon=":material/data_object:")
    html_col.download_button("HTML report", lambda: sweep_report(opened.recorded, source=ident),
                             f"sweep-{ident}.html", "text/html", key=f"{prefix}.sweep_html",
                             icon=":material/description:")
