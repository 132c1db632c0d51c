"""The Inspect page's result: verdict, why, requirements (with the second opinion) beside the highlighted context,
the audit and the exports; marked stale as soon as an input changes.

Also runs an assessment (a live one in the background, with its stage and a Cancel button), keeps every run in
the run store, and shows a refused replay or a failure instead of any verdict.
"""

from __future__ import annotations

import asyncio

import streamlit as st

from answerlens.assessment import AnswerabilityAssessment
from answerlens.config import EvidencePolicy
from answerlens.explanation import HASH_FIELDS, why
from answerlens.html import opinion as opinion_html
from answerlens.html import provenance
from answerlens.html.highlight import highlight, requirement_rows, uncounted
from answerlens.html.markup import (
    context_html,
    facts_html,
    hash_coverage_html,
    hashes_html,
    notice_html,
    paragraph_html,
    verdict_html,
)
from answerlens.html.requirements import requirements_html
from answerlens.local_model import WIRING_MARK, wiring_check
from answerlens.second_opinion.models import SecondOpinion
from answerlens.ui.common import history, runner, scroll_view
from answerlens.ui.common import report_file as report_download
from answerlens.ui.common.endpoint_view import Choice
from answerlens.ui.common.inputs import seed
from answerlens.ui.common.runner import Failure
from answerlens.ui.common.sources import Source
from answerlens.ui.inspect import job, viewmodel, writeback_view
from answerlens.ui.inspect.history_view import SHOWN
from answerlens.ui.inspect.viewmodel import Inputs


def options(prefix: str) -> tuple[bool, bool]:
    """The second-opinion and strict-policy toggles (strict implies the second opinion)."""
    left, right = st.columns(2)
    strict = right.toggle("Strict evidence policy", key=f"{prefix}.strict",
                          help="Demote support that the second opinion flags, and re-derive the verdict (this is "
                          "an input: it enters configuration_sha256)")
    second = left.toggle("Second opinion", key=f"{prefix}.second_opinion", value=True,
                         help="Typed evidence, deterministic flags and (when installed) the NLI claim verifier on "
                         "every supported or conflicting requirement", disabled=strict)
    return second or strict, strict


def assess(prefix: str, choice: Choice, source: Source, question: str, answer: str | None, *, now: Inputs,
           second_opinion: bool = True, strict: bool = False) -> None:
    """Run one assessment: a recorded reply at once, a live model in the background (``progress`` shows it and
    collects its result); on success the run is stored, on failure the failure is kept for display."""
    failure_key = f"{prefix}.failure"
    force = st.session_state.pop(f"{prefix}.force_replay", False)
    if choice.config is None:
        st.session_state[failure_key] = Failure("Cannot assess yet", choice.problem or "the endpoint is not set",
                                                "fix the endpoint settings in the sidebar", "settings")
        return
    config = choice.config.model_copy(update={"evidence_policy": EvidencePolicy.STRICT}) if strict else choice.config
    st.session_state[f"{prefix}.asked"] = now
    if config.provider != "replay":
        st.session_state[f"{prefix}.job"] = job.start(config, source, question, answer, recording=choice.recording,
                                                      second_opinion=second_opinion)
        return
    with st.spinner("Assessing…", show_time=True):
        run = runner.assess(config, source.bundle, question, answer, recording=choice.recording,
                            force_replay=force, second_opinion=second_opinion)
    _keep(prefix, run, source, question, answer)


def retry(prefix: str) -> bool:
    """Whether a button of the last failure asked to assess again (e.g. to force a replay)."""
    return bool(st.session_state.pop(f"{prefix}.again", False))


def _keep(prefix: str, run: runner.Run, source: Source, question: str, answer: str | None) -> None:
    failure_key = f"{prefix}.failure"
    if run.assessment is None:
        st.session_state[failure_key] = run.failure
        return
    st.session_state.pop(failure_key, None)
    label, note = provenance.source_label(run.assessment)
    origin = source.sample.trace_import if source.sample is not None else None
    assessment = run.assessment.model_copy(update={"trace_import": origin}) if origin else run.assessment
    entry = history.add(st.session_state, source=source.title, source_name=source.name, question=question.strip(),
                        answer=answer.strip() if answer else None, assessment=assessment,
                        context=source.context, label=label, note=note, seconds=run.seconds, opinion=run.opinion)
    asked: Inputs | None = st.session_state.pop(f"{prefix}.asked", None)
    st.session_state[f"{prefix}.{SHOWN}"] = (entry.number, asked.endpoint if asked is not None else None)
    st.session_state[f"{prefix}.reveal"] = True  # a new verdict: scroll it into view once drawn


def busy(prefix: str) -> bool:
    """Whether a live assessment is running (Assess waits for it, or for Cancel)."""
    running: job.AssessJob | None = st.session_state.get(f"{prefix}.job")
    return running is not None and running.job.running


def progress(prefix: str) -> bool:
    """While a live assessment runs, show its stage and a Cancel button and return True; once it has ended,
    take its result (into the history, or as the failure to show) and return False."""
    current: job.AssessJob | None = st.session_state.get(f"{prefix}.job")
    if current is None:
        return False
    if current.job.running:
        _live(prefix)
        return True
    del st.session_state[f"{prefix}.job"]
    assert current.run is not None
    _keep(prefix, current.run, current.source, current.question, current.answer)
    return False


@st.fragment(run_every=0.5)
def _live(prefix: str) -> None:
    current: job.AssessJob | None = st.session_state.get(f"{prefix}.job")
    if current is None:
        return
    if not current.job.running:
        st.rerun()  # the whole page: show the result
    st.html(job.stage_html(current))
    st.button("Cancel", key=f"{prefix}.cancel", on_click=current.job.cancel, icon=":material/stop:",
              disabled=current.job.cancelling, help="stops the model call; no verdict is produced")


def show_failure(prefix: str) -> bool:
    """Show the last Assess failure (and nothing else): a failure never sits next to a verdict."""
    failure: Failure | None = st.session_state.get(f"{prefix}.failure")
    if failure is None:
        return False
    kind = "warning" if failure.kind == "cancelled" else "error"
    st.html(notice_html(kind, failure.title, failure.message, failure.remedy, code=failure.raw_excerpt))
    if failure.kind == "recording_mismatch":
        _mismatch_actions(prefix, failure)
    return True


def _mismatch_actions(prefix: str, failure: Failure) -> None:
    restore, live, force = st.columns(3)
    if failure.restore is not None:
        restore.button("Restore the recorded question", key=f"{prefix}.restore", type="primary",
                       on_click=_restore, args=(prefix, failure.restore), icon=":material/undo:")
    live.button("Use a live model instead", key=f"{prefix}.use_live", on_click=_use_live, args=(prefix,),
                icon=":material/smart_toy:")
    force.button("Replay anyway (marked FORCED)", key=f"{prefix}.force", on_click=_force, args=(prefix,),
                 help="shows the recording's verdict for these inputs, marked as forced everywhere")


def _restore(prefix: str, inputs: tuple[str, str | None]) -> None:
    question, answer = inputs
    seed(st.session_state, f"{prefix}.question", question)
    seed(st.session_state, f"{prefix}.answer", answer or "")
    st.session_state.pop(f"{prefix}.failure", None)


def _use_live(prefix: str) -> None:
    seed(st.session_state, f"{prefix}.provider", "Ollama")
    st.session_state.pop(f"{prefix}.failure", None)


def _force(prefix: str) -> None:
    st.session_state[f"{prefix}.force_replay"] = True
    st.session_state[f"{prefix}.again"] = True
    st.session_state.pop(f"{prefix}.failure", None)


def opinion_for(prefix: str, entry: history.Entry, source: Source | None, enabled: bool) -> SecondOpinion | None:
    """The run's stored second opinion; for a run stored without one, computed when its bundle is the one loaded
    (kept for the session); None when it is switched off or cannot be computed."""
    if not enabled:
        return None
    if entry.opinion is not None:
        return entry.opinion
    cache: dict[str, SecondOpinion] = st.session_state.setdefault(f"{prefix}.opinions", {})
    a = entry.assessment
    if a.evaluation_id not in cache and source is not None and source.context_sha256 == a.context_sha256:
        cache[a.evaluation_id] = asyncio.run(runner.opinion_of(a, source.bundle, entry.question, None))
    return cache.get(a.evaluation_id)


def show(prefix: str, entry: history.Entry, now: Inputs, *, second_opinion: bool,
         opinion: SecondOpinion | None) -> None:
    """The result; greyed with ``data-stale="true"`` as soon as an input on the page is not the one it answered:
    the question, draft and bundle are compared with the assessment's own hashes, the endpoint with the one it was
    produced with (or, for a reopened run, opened under: a stored run does not keep its endpoint settings)."""
    snapshot = st.session_state.get(f"{prefix}.{SHOWN}")
    if not snapshot or snapshot[0] != entry.number or snapshot[1] is None:
        st.session_state[f"{prefix}.{SHOWN}"] = snapshot = (entry.number, now.endpoint)
    changes = viewmodel.changed(viewmodel.inputs_answered(entry.assessment, snapshot[1]), now)
    with st.container(key=f"{prefix}.result"):
        st.html(viewmodel.asked_html(entry))
        unchecked = viewmodel.unchecked_html(entry.unchecked)
        if unchecked is not None:
            st.html(unchecked)
        if changes:
            st.html(viewmodel.stale_html(changes))
            # The whole result greys (not only the verdict, which also carries data-stale for tests and readers).
            st.html("<style>.st-key-inspect-result [data-testid=stHorizontalBlock]{opacity:.55;filter:grayscale(1)}"
                    ".st-key-inspect-result .al-stale{opacity:1;filter:none}</style>")
        shown = opinion if second_opinion else None
        left, right = st.columns([10, 11], gap="medium")
        with left:
            focus = verdict_block(prefix, entry, shown, stale=bool(changes))
            _downloads(prefix, entry)
            writeback_view.panel(prefix, entry)  # an imported sample's verdict, onto its span in Phoenix
        with right:
            context_block(prefix, entry, shown, focus)
            _audit(entry)
    if st.session_state.pop(f"{prefix}.reveal", False):
        scroll_view.into_view(f'.st-key-{prefix}-result [data-verdict]')


def verdict_block(prefix: str, entry: history.Entry, opinion: SecondOpinion | None, *, stale: bool) -> int | None:
    """The verdict, why, the requirements (a radio picks the one to highlight, returned) and the reasoning: what
    Inspect shows of a result, and what the Review page shows of the item under review."""
    a = entry.assessment
    marks = [mark for mark in (_recording_mark(a), WIRING_MARK if wiring_check(a.provider, a.model) else None)
             if mark]
    strict = opinion_html.strict_html(opinion, a.verdict.value) if opinion is not None else None
    verdict, action = a.verdict.value, a.recommended_action.value
    if opinion is not None and opinion.strict is not None:
        verdict, action = opinion.strict.verdict.value, opinion.strict.recommended_action.value
    st.html(verdict_html(verdict, action, source=entry.label, note=entry.note, stale=stale, marks=marks,
                         extra=strict or ""))
    st.markdown("**Why**")
    st.html(paragraph_html(why(a, opinion)))
    focus = st.radio("Highlight requirement", viewmodel.focus_options(a), horizontal=True, key=f"{prefix}.focus",
                     format_func=viewmodel.focus_label)
    badges = [opinion_html.badge_html(item) for item in opinion.requirements] if opinion is not None else None
    st.html(requirements_html(requirement_rows(a.requirements, entry.context, badges)))
    _selected(a, focus, opinion)
    if opinion is not None:
        note = opinion_html.note_html(opinion.verifier_note)
        if note:
            st.html(note)
    errors = viewmodel.citation_errors_html(a.citation_errors)
    if errors is not None:
        st.html(errors)
    st.html(viewmodel.reasoning_html(a.reasoning))
    return focus


def _recording_mark(a: AnswerabilityAssessment) -> str | None:
    meta = a.provider_metadata
    return meta.recording.mark if meta is not None and meta.recording is not None else None


def _selected(a: AnswerabilityAssessment, focus: int | None, opinion: SecondOpinion | None) -> None:
    """The chosen requirement: why it has no accepted citation, and its second opinion."""
    if focus is None:
        return
    note = viewmodel.no_citation_note(focus, a.requirements[focus])
    if note is not None:
        st.html(notice_html("info", note))
    if opinion is not None:
        st.html(opinion_html.detail_html(focus, opinion.requirements[focus], opinion.verifier_note))


def context_block(prefix: str, entry: history.Entry, opinion: SecondOpinion | None, focus: int | None) -> None:
    """The context exactly as the model saw it, with the citations highlighted (``focus``: one requirement's)."""
    a = entry.assessment
    st.markdown("**Context, exactly as the model saw it**")
    cited_only = st.toggle("Cited lines only", key=f"{prefix}.cited_only", help="fold the lines without citations")
    flagged = {index: opinion_html.flags_by_ref_codes(item) for index, item in enumerate(opinion.requirements)} \
        if opinion is not None else None
    marks = highlight(entry.context, [r.citations for r in a.requirements], only=focus, flagged=flagged,
                      uncounted=uncounted(a.requirements),
                      unread=opinion_html.unread_of(opinion, entry.context) if opinion is not None else ())
    legend = opinion_html.legend_html(marks, entry.context)
    if legend:  # nothing marked: nothing to explain
        st.html(legend)
    st.html(viewmodel.context_caption_html(entry, len(marks.lines)))
    if not entry.context:
        st.html(notice_html("info", "The context is empty", "Nothing was packed, so no model was called."))
        return
    st.html(context_html(entry.context, marks, cited_only=cited_only))


def _audit(entry: history.Entry) -> None:
    a = entry.assessment
    with st.expander("Audit", expanded=True):
        st.html(facts_html(viewmodel.audit_facts(a, entry.label)))
        st.html(hashes_html({name: getattr(a, name) for name in HASH_FIELDS}), unsafe_allow_javascript=True)
        st.markdown("**What each hash covers**")
        st.html(hash_coverage_html())


def _downloads(prefix: str, entry: history.Entry) -> None:
    st.markdown("**Download**")
    files = viewmodel.downloads(entry.assessment, entry.question, entry.answer)
    columns = [column for _ in range(0, len(files), 2) for column in st.columns(2)]  # two a row: labels fit
    for column, (label, download) in zip(columns, files, strict=False):
        column.download_button(label, download.data, file_name=download.file_name, mime=download.mime,
                               key=f"{prefix}.download.{label}", on_click="ignore", help=download.note,
                               icon=":material/download:", width="stretch")
    # The shareable HTML report, rendered only when pressed; the draft is the box's if it is this one's.
    report = report_download.assessment_file(entry.assessment, question=entry.question, context=entry.context,
                                             source=entry.source, answer=st.session_state.get(f"{prefix}.answer"),
                                             opinion=entry.opinion)
    st.download_button(report_download.LABEL, report.data, file_name=report.file_name, mime=report.mime,
                       key=f"{prefix}.download.report", on_click="ignore", help=report.help,
                       icon=":material/description:", width="stretch")
