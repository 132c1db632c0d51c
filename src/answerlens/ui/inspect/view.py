"""The Inspect page's result: highlighted context beside verdict, why, requirements, audit and exports.

Also runs an assessment (a live one in the background, with its stage and a Cancel button) and keeps every run in
the session history.
"""

from __future__ import annotations

import streamlit as st

from answerlens.assessment import AnswerabilityAssessment
from answerlens.explanation import HASH_FIELDS, why
from answerlens.report import download as report_download
from answerlens.ui.common import history, provenance, runner
from answerlens.ui.common.endpoint_view import Choice
from answerlens.ui.common.highlight import highlight, requirement_rows
from answerlens.ui.common.markup import (
    context_html,
    facts_html,
    hashes_html,
    notice_html,
    paragraph_html,
    requirements_html,
    verdict_html,
)
from answerlens.ui.common.runner import Failure
from answerlens.ui.common.sources import Source
from answerlens.ui.inspect import job, viewmodel


def assess(prefix: str, choice: Choice, source: Source, question: str, answer: str | None) -> None:
    """Run one assessment: a recorded reply at once, a live model in the background (``progress`` shows it and
    collects its result); on success the run joins the history, on failure the failure is kept for display."""
    failure_key = f"{prefix}.failure"
    if choice.config is None:
        st.session_state[failure_key] = Failure("Cannot assess yet", choice.problem or "the endpoint is not set",
                                                "fix the endpoint settings in the sidebar", "settings")
        return
    if choice.config.provider != "replay":
        st.session_state[f"{prefix}.job"] = job.start(choice.config, source, question, answer,
                                                      recording=choice.recording)
        return
    with st.spinner("Assessing…", show_time=True):
        run = runner.assess(choice.config, source.bundle, question, answer,
                            recording=choice.recording)
    _keep(prefix, run, source, question)


def _keep(prefix: str, run: runner.Run, source: Source, question: str) -> None:
    failure_key = f"{prefix}.failure"
    if run.assessment is None:
        st.session_state[failure_key] = run.failure
        return
    st.session_state.pop(failure_key, None)
    label, note = provenance.source_label(run.assessment)
    history.add(st.session_state, source=source.title, question=question.strip(), assessment=run.assessment,
                context=source.context, label=label, note=note, seconds=run.seconds)


def busy(prefix: str) -> bool:
    """Whether a live assessment is running (Assess waits for it, or for Cancel)."""
    running: job.AssessJob | None = st.session_state.get(f"{prefix}.job")
    return running is not None and running.running


def progress(prefix: str) -> bool:
    """While a live assessment runs, show its stage and a Cancel button and return True; once it has ended,
    take its result (into the history, or as the failure to show) and return False."""
    current: job.AssessJob | None = st.session_state.get(f"{prefix}.job")
    if current is None:
        return False
    if current.running:
        _live(prefix)
        return True
    del st.session_state[f"{prefix}.job"]
    assert current.run is not None
    _keep(prefix, current.run, current.source, current.question)
    return False


@st.fragment(run_every=0.5)
def _live(prefix: str) -> None:
    current: job.AssessJob | None = st.session_state.get(f"{prefix}.job")
    if current is None:
        return
    if not current.running:
        st.rerun()  # the whole page: show the result
    st.html(job.stage_html(current))
    st.button("Cancel", key=f"{prefix}.cancel", on_click=current.cancel, icon=":material/stop:",
              disabled=current.cancelled, help="stops the model call; no verdict is produced")


def show_failure(prefix: str) -> bool:
    """Show the last Assess failure (and nothing else): a failure never sits next to a verdict."""
    failure: Failure | None = st.session_state.get(f"{prefix}.failure")
    if failure is None:
        return False
    kind = "warning" if failure.kind == "cancelled" else "error"
    st.html(notice_html(kind, failure.title, failure.message, failure.remedy, code=failure.raw_excerpt))
    return True


def history_picker(prefix: str) -> history.Entry | None:
    entries = history.entries(st.session_state)
    current = history.current(st.session_state)
    if not entries or current is None:
        return None
    key = f"{prefix}.history"
    if st.session_state.get(key) != current.number:
        st.session_state[key] = current.number
    titles = viewmodel.history_titles(entries)
    left, right = st.columns([4, 1], vertical_alignment="bottom")
    left.selectbox(viewmodel.history_label(len(entries)), list(titles), format_func=titles.__getitem__, key=key,
                   on_change=_reopen, args=(prefix, key))
    right.page_link("pages/compare.py", label="Compare runs", icon=":material/compare_arrows:")
    if len(entries) > 1:
        with st.expander(f"All {len(entries)} runs of this session"):
            _history_table(prefix, entries)
    return current


def _history_table(prefix: str, entries: list[history.Entry]) -> None:
    text = st.column_config.TextColumn
    st.dataframe(
        viewmodel.history_frame(entries),
        hide_index=True,
        width="stretch",
        key=f"{prefix}.history_table",
        column_config={
            "run": st.column_config.NumberColumn("run", format="#%d", width="small"),
            "time": st.column_config.DatetimeColumn("time", format="HH:mm:ss", width="small"),
            "verdict": text("verdict", width="small"),
            "action": text("action", width="small"),
            "question": text("question", width="large"),
            "bundle": text("bundle"),
            "source": text("source", help="recorded response, live model (and where), or no model call"),
            "requirements": st.column_config.NumberColumn("requirements", width="small"),
            "seconds": st.column_config.NumberColumn("seconds", format="%.2f", width="small"),
            "evaluation_id": text("evaluation_id", help="same inputs, same id (see Compare)"),
        },
    )


def _reopen(prefix: str, key: str) -> None:
    history.select(st.session_state, st.session_state[key])
    st.session_state.pop(f"{prefix}.failure", None)


def show(prefix: str, entry: history.Entry) -> None:
    a = entry.assessment
    st.html(viewmodel.asked_html(entry))
    left, right = st.columns([11, 9], gap="medium")
    with left:
        _context(prefix, entry)
        _audit(entry)
    with right:
        _verdict(entry)
        _downloads(prefix, entry, a)


def _context(prefix: str, entry: history.Entry) -> None:
    a = entry.assessment
    st.markdown("**Context, exactly as the model saw it**")
    pick, fold = st.columns([3, 1], vertical_alignment="bottom")
    focus = pick.radio("Highlight requirement", viewmodel.focus_options(a), horizontal=True, key=f"{prefix}.focus",
                       format_func=viewmodel.focus_label)
    cited_only = fold.toggle("Cited lines only", key=f"{prefix}.cited_only")
    marks = highlight(entry.context, [r.citations for r in a.requirements], only=focus)
    st.html(viewmodel.context_caption_html(entry, len(marks.lines)))
    if not entry.context:
        st.html(notice_html("info", "The context is empty", "Nothing was packed, so no model was called."))
        return
    st.html(context_html(entry.context, marks, cited_only=cited_only))


def _verdict(entry: history.Entry) -> None:
    a = entry.assessment
    st.html(verdict_html(a.verdict.value, a.recommended_action.value, source=entry.label, note=entry.note))
    st.markdown("**Why**")
    st.html(paragraph_html(why(a)))
    st.markdown("**Requirements**")
    st.html(requirements_html(requirement_rows(a.requirements)))
    errors = viewmodel.citation_errors_html(a.citation_errors)
    if errors is not None:
        st.html(errors)
    st.html(viewmodel.reasoning_html(a.reasoning))


def _audit(entry: history.Entry) -> None:
    a = entry.assessment
    with st.expander("Audit", expanded=True):
        st.html(facts_html(viewmodel.audit_facts(a, entry.label)))
        st.html(hashes_html({name: getattr(a, name) for name in HASH_FIELDS}), unsafe_allow_javascript=True)


def _downloads(prefix: str, entry: history.Entry, a: AnswerabilityAssessment) -> None:
    st.markdown("**Download**")
    files = viewmodel.downloads(a)
    columns = st.columns(len(files))
    for column, (label, download) in zip(columns, files, strict=True):
        column.download_button(label, download.data, file_name=download.file_name, mime=download.mime,
                               key=f"{prefix}.download.{label}", on_click="ignore", help=download.note,
                               icon=":material/download:", width="stretch")
    # The shareable HTML report (issue 16), rendered only when pressed; the draft is the box's if it is this one's.
    report = report_download.assessment_file(a, question=entry.question, context=entry.context, source=entry.source,
                                             answer=st.session_state.get(f"{prefix}.answer"))
    st.download_button(report_download.LABEL, report.data, file_name=report.file_name, mime=report.mime,
                       key=f"{prefix}.download.report", on_click="ignore", help=report.help,
                       icon=":material/description:", width="stretch")
