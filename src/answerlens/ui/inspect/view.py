"""The Inspect page's result: highlighted context beside verdict, why, requirements, audit and exports.

Also runs an assessment (spinner with elapsed time) and keeps every run in the session history.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from answerlens.assessment import AnswerabilityAssessment
from answerlens.explanation import HASH_FIELDS, why
from answerlens.ui.common import exports, history, runner
from answerlens.ui.common.endpoint_view import Choice
from answerlens.ui.common.highlight import highlight, requirement_rows
from answerlens.ui.common.markup import (
    STYLE,
    context_html,
    esc,
    facts_html,
    hashes_html,
    notice_html,
    paragraph_html,
    requirements_html,
    verdict_html,
)
from answerlens.ui.common.runner import Failure
from answerlens.ui.common.sources import Source


def assess(prefix: str, choice: Choice, source: Source, question: str, answer: str | None) -> None:
    """Run one assessment; on success add it to the history, on failure keep the failure for display."""
    failure_key = f"{prefix}.failure"
    if choice.config is None:
        st.session_state[failure_key] = Failure("Cannot assess yet", choice.problem or "the endpoint is not set",
                                                "fix the endpoint settings in the sidebar", "settings")
        return
    with st.spinner("Assessing…", show_time=True):
        run = runner.assess(choice.config, source.bundle, question, answer,
                            recording=choice.recording)
    if run.assessment is None:
        st.session_state[failure_key] = run.failure
        return
    st.session_state.pop(failure_key, None)
    label, note = runner.source_label(run.assessment)
    history.add(st.session_state, source=source.title, question=question.strip(), assessment=run.assessment,
                context=source.context, label=label, note=note, seconds=run.seconds)


def show_failure(prefix: str) -> bool:
    """Show the last Assess failure (and nothing else): a failure never sits next to a verdict."""
    failure: Failure | None = st.session_state.get(f"{prefix}.failure")
    if failure is None:
        return False
    st.html(notice_html("error", failure.title, failure.message, failure.remedy, code=failure.raw_excerpt))
    return True


def history_picker(prefix: str) -> history.Entry | None:
    entries = history.entries(st.session_state)
    current = history.current(st.session_state)
    if not entries or current is None:
        return None
    key = f"{prefix}.history"
    if st.session_state.get(key) != current.number:
        st.session_state[key] = current.number
    titles = {entry.number: entry.title for entry in entries}
    left, right = st.columns([4, 1], vertical_alignment="bottom")
    left.selectbox(f"Session history ({len(entries)} run{'s' if len(entries) != 1 else ''})",
                   list(reversed(titles)), format_func=titles.__getitem__, key=key,
                   on_change=_reopen, args=(prefix, key))
    right.page_link("pages/compare.py", label="Compare runs", icon=":material/compare_arrows:")
    return current


def _reopen(prefix: str, key: str) -> None:
    history.select(st.session_state, st.session_state[key])
    st.session_state.pop(f"{prefix}.failure", None)


def show(prefix: str, entry: history.Entry) -> None:
    a = entry.assessment
    st.html(_asked_html(entry))
    left, right = st.columns([11, 9], gap="medium")
    with left:
        _context(prefix, entry)
        _audit(entry)
    with right:
        _verdict(entry)
        _downloads(prefix, entry, a)


def _asked_html(entry: history.Entry) -> str:
    a = entry.assessment
    answer = ""
    if a.answer_sha256 is not None:
        answer = " · with a draft answer (its claims are requirements too)"
    return (f'{STYLE}<div class="al-muted" style="font-size:0.85rem">Run #{entry.number} · {esc(entry.source)}'
            f"{answer} · {entry.seconds:.2f} s</div>"
            f'<div style="font-size:1.05rem;margin:2px 0 6px"><strong>Question:</strong> {esc(entry.question)}</div>')


def _context(prefix: str, entry: history.Entry) -> None:
    a = entry.assessment
    st.markdown("**Context, exactly as the model saw it**")
    options: list[int | None] = [None, *range(len(a.requirements))]
    pick, fold = st.columns([3, 1], vertical_alignment="bottom")
    focus = pick.radio("Highlight requirement", options, horizontal=True, key=f"{prefix}.focus",
                       format_func=lambda i: "all" if i is None else str(i))
    cited_only = fold.toggle("Cited lines only", key=f"{prefix}.cited_only")
    marks = highlight(entry.context, [r.citations for r in a.requirements], only=focus)
    lines = len(marks.lines)
    st.html(f'{STYLE}<div class="al-muted" style="font-size:0.78rem">{len(entry.context):,} characters · '
            f'{lines:,} lines · context_sha256 {esc(a.context_sha256[:16])}… · tinted lines hold an accepted '
            "citation; dashed marks are discarded citations</div>")
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
    if a.citation_errors:
        items = "".join(f"<li><code>{esc(error)}</code></li>" for error in a.citation_errors)
        st.html(f'{STYLE}<details><summary>Citation errors ({len(a.citation_errors)})</summary>'
                f'<ul style="font-size:0.8rem">{items}</ul></details>')
    st.html(f'{STYLE}<details><summary>Model reasoning</summary>{paragraph_html(a.reasoning)}</details>')


def audit_facts(a: AnswerabilityAssessment, label: str) -> list[tuple[str, Any]]:
    meta = a.provider_metadata
    facts: list[tuple[str, Any]] = [("source", label), ("provider", a.provider), ("model", a.model),
                                    ("prompt_version", a.prompt_version), ("model_called", a.model_called)]
    if meta is not None:
        if meta.base_url:
            facts.append(("base_url", meta.base_url))
        if meta.recording is not None:
            facts.append(("recording", meta.recording.note))
        if meta.latency_ms is not None:
            facts.append(("latency", f"{meta.latency_ms:,.0f} ms, {meta.attempts} attempt(s)"))
        if meta.prompt_tokens is not None or meta.completion_tokens is not None:
            facts.append(("tokens", f"prompt {meta.prompt_tokens}, completion {meta.completion_tokens}"))
        if meta.finish_reason:
            facts.append(("finish_reason", meta.finish_reason))
    return facts


def _audit(entry: history.Entry) -> None:
    a = entry.assessment
    with st.expander("Audit", expanded=True):
        st.html(facts_html(audit_facts(a, entry.label)))
        st.html(hashes_html({name: getattr(a, name) for name in HASH_FIELDS}), unsafe_allow_javascript=True)


def _downloads(prefix: str, entry: history.Entry, a: AnswerabilityAssessment) -> None:
    st.markdown("**Download**")
    files = [("Assessment", exports.assessment_json(a)), ("Requirements", exports.requirements_csv(a))]
    raw = exports.raw_reply(a)
    if raw is not None:
        files.append(("Raw reply", raw))
    columns = st.columns(len(files))
    for column, (label, download) in zip(columns, files, strict=True):
        column.download_button(label, download.data, file_name=download.file_name, mime=download.mime,
                               key=f"{prefix}.download.{label}", on_click="ignore", help=download.note,
                               icon=":material/download:", width="stretch")
