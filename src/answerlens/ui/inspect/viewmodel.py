"""What the Inspect page shows of a run, as data and escaped HTML (pure): the question line, the context
caption, the audit facts, citation errors, the model's reasoning, the downloads, the stored runs as a picker's
labels and as a table, which inputs changed since a result (stale), and why a requirement has no accepted citation.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pandas is imported on first use: a page that shows no table or download starts faster
    import pandas as pd

from answerlens.assessment import AnswerabilityAssessment, AnswerabilityRequirement
from answerlens.audit import sha256_text
from answerlens.citations import Decision
from answerlens.explanation import error_text, reason_text
from answerlens.html.escape import esc
from answerlens.html.markup import notice_html, paragraph_html, plural
from answerlens.trace_import import import_facts
from answerlens.ui.common import exports
from answerlens.ui.common.exports import Download
from answerlens.ui.common.history import Entry
from answerlens.verdict import AnswerabilityStatus


def asked_html(entry: Entry) -> str:
    """The run's number, bundle, draft, time and link, then the question asked."""
    a = entry.assessment
    answer = ""
    if a.answer_sha256 is not None:
        answer = " · with a draft answer (its claims are requirements too)"
    link = f'<a href="?run={esc(a.evaluation_id)}" data-run-link title="a link that reopens this run">link</a>'
    if not entry.stored:
        link = '<span data-run-stored="false">not stored: download it to keep it</span>'
    number = f"Run #{entry.number}" if entry.stored else "Run"
    return (f'<div class="al-muted" style="font-size:0.85rem">{number} · {esc(entry.source)}'
            f"{answer} · {entry.seconds:.2f} s · {link}</div>"
            f'<div style="font-size:1.05rem;margin:2px 0 6px"><strong>Question:</strong> {esc(entry.question)}</div>')


def focus_label(requirement: int | None) -> str:
    """The "Highlight requirement" choice: all of them, or one by its number (from 1; the data keep 0-based)."""
    return "all" if requirement is None else str(requirement + 1)


def focus_options(a: AnswerabilityAssessment) -> list[int | None]:
    return [None, *range(len(a.requirements))]


def context_caption_html(entry: Entry, lines: int) -> str:
    """Size and hash of the context, and how to read its tints and marks."""
    return (f'<div class="al-muted" style="font-size:0.78rem">{plural(len(entry.context), "character")} · '
            f"{plural(lines, 'line')} · context_sha256 {esc(entry.assessment.context_sha256[:16])}…</div>")


def citation_errors_html(errors: tuple[str, ...]) -> str | None:
    """The engine's citation errors, folded, each under its 1-based requirement; None when there are none."""
    if not errors:
        return None
    items = "".join(f"<li><code>{esc(error_text(error))}</code></li>" for error in errors)
    return (f'<details><summary>Citation errors ({len(errors)})</summary>'
            f'<ul style="font-size:0.8rem">{items}</ul></details>')


def reasoning_html(reasoning: str) -> str:
    return f'<details><summary>Model reasoning</summary>{paragraph_html(reasoning)}</details>'


def audit_facts(a: AnswerabilityAssessment, label: str) -> list[tuple[str, Any]]:
    """Where the result came from and what the call cost, as ``(name, value)`` rows."""
    meta = a.provider_metadata
    facts: list[tuple[str, Any]] = [("source", label), ("provider", a.provider), ("model", a.model),
                                    ("prompt_version", a.prompt_version), ("model_called", a.model_called)]
    if meta is not None:
        if meta.base_url:
            facts.append(("base_url", meta.base_url))
        if meta.recording is not None:
            facts.append(("recording", meta.recording.note))
        if meta.latency_ms is not None:
            facts.append(("latency", f"{meta.latency_ms:,.0f} ms, {plural(meta.attempts, 'attempt')}"))
        if meta.prompt_tokens is not None or meta.completion_tokens is not None:
            facts.append(("tokens", f"prompt {meta.prompt_tokens}, completion {meta.completion_tokens}"))
        if meta.finish_reason:
            facts.append(("finish_reason", meta.finish_reason))
    return facts + import_facts(a.trace_import)


def downloads(a: AnswerabilityAssessment, question: str | None = None,
              answer: str | None = None) -> list[tuple[str, Download]]:
    """The download buttons, by label: the assessment, its requirements, and, when there is a reply, the raw reply
    and (given the question) a recording bound to its inputs, which replays only for them."""
    files = [("Assessment", exports.assessment_json(a)), ("Requirements", exports.requirements_csv(a))]
    raw = exports.raw_reply(a)
    if raw is not None:
        files.append(("Raw reply", raw))
    if question is not None:
        recording = exports.recording_json(a, question, answer)
        if recording is not None:
            files.append(("Recording", recording))
    return files


def history_label(numbers: list[int]) -> str:
    """"History (3 runs)"; with the runs' numbers when they are not 1 to N (the oldest were dropped past the
    store's caps), so the count never contradicts a run's number."""
    count = plural(len(numbers), "run")
    if sorted(numbers) == list(range(1, len(numbers) + 1)):
        return f"History ({count})"
    return f"History ({count}: #{min(numbers)}–#{max(numbers)})"


def history_titles(entries: list[Entry]) -> dict[int, str]:
    """Run number to title, newest first (the picker's order)."""
    return {entry.number: entry.title for entry in reversed(entries)}


HISTORY_COLUMNS = ("run", "time", "verdict", "action", "question", "bundle", "source", "requirements", "seconds",
                   "evaluation_id", "link")


def history_frame(entries: list[Entry]) -> pd.DataFrame:
    """Every stored run, newest first, one row each (the time is local, as in the titles; no assessment is read)."""
    import pandas as pd

    rows = [[entry.number, datetime.fromtimestamp(entry.created), entry.run.verdict, entry.run.action,
             entry.question, entry.source, entry.label, entry.run.requirements, entry.seconds, entry.evaluation_id,
             f"?run={entry.evaluation_id}"]
            for entry in reversed(entries)]
    return pd.DataFrame(rows, columns=list(HISTORY_COLUMNS))


def unknown_run_html(evaluation_id: str, where: str) -> str:
    """A deep link to a run that is not stored here."""
    return notice_html("warning", "No stored run has this link", f"?run={evaluation_id} is not in the run store "
                       f"at {where}: it was cleared, dropped as the oldest past the cap, or made on another machine.",
                       remedy="assess it again (the same inputs give the same evaluation_id), or pick a run below")


def unchecked_html(unchecked: tuple[str, ...]) -> str | None:
    """What reopening a stored run could not re-derive (it opened: everything else was); None when nothing."""
    if not unchecked:
        return None
    return notice_html("info", "Reopened from the run history: not everything could be checked", "; ".join(unchecked),
                       remedy="assess it again to record what is missing")


# --- which inputs changed since a result ------------------------------------------------------------


@dataclass(frozen=True)
class Inputs:
    """What a result depends on, as shown on the page: hashes of the question and draft, the bundle's exact
    context, and the endpoint (settings and recording, never the key)."""

    question: str | None
    draft: str | None
    bundle: str | None
    endpoint: str


def inputs_of(question: str | None, answer: str | None, context_sha256: str | None, endpoint: str) -> Inputs:
    """The inputs on the page now (None for a missing bundle or question)."""
    draft = answer.strip() if answer is not None and answer.strip() else None
    return Inputs(sha256_text(question.strip()) if question is not None else None,
                  sha256_text(draft) if draft is not None else None, context_sha256, endpoint)


def inputs_answered(a: AnswerabilityAssessment, endpoint: str) -> Inputs:
    """The inputs an assessment answered, from its own hashes (a draft-less one has ``answer_sha256`` None)."""
    return Inputs(a.query_sha256, a.answer_sha256, a.context_sha256, endpoint)


def changed(then: Inputs, now: Inputs) -> tuple[str, ...]:
    """The inputs that differ, by name: question, draft, bundle, endpoint."""
    names = ("question", "draft", "bundle", "endpoint")
    return tuple(name for name, old, new in zip(names, _fields(then), _fields(now), strict=True) if old != new)


def _fields(inputs: Inputs) -> tuple[str | None, ...]:
    return (inputs.question, inputs.draft, inputs.bundle, inputs.endpoint)


def stale_html(changes: tuple[str, ...]) -> str:
    """The banner over a result whose inputs changed since it was produced or opened."""
    return (f'<div class="al-notice" data-stale-banner="true" role="status" '
            'style="border-left-color:var(--al-edge-partial);background-color:var(--al-soft-partial)">'
            f"<strong>Inputs changed since this result — run again.</strong> Changed: {esc(', '.join(changes))}. "
            "The verdict below belongs to the earlier inputs.</div>")


# --- a requirement without accepted citations ---------------------------------------------------------


def no_citation_note(index: int, requirement: AnswerabilityRequirement) -> str | None:
    """Why a requirement has no accepted citation, from its data (None when it has one)."""
    accepted = [c for c in requirement.citations if c.decision == Decision.ACCEPTED] or requirement.evidence_refs
    if accepted:
        return None
    cited = [f"{c.normalized or repr(c.token)} ({reason_text(c)})" for c in requirement.citations]
    tokens = f"it cited {', '.join(cited)}" if cited else "it cited nothing"
    claimed = requirement.claimed_status
    who = f"Requirement {index + 1} has no accepted citation"
    if claimed is not None and claimed != requirement.status:
        needed = 2 if claimed == AnswerabilityStatus.CONFLICTING else 1
        return (f"{who} — status downgraded to {requirement.status.value} because the model claimed it "
                f"{claimed.value}, which needs {plural(needed, 'valid citation')}, and {tokens}.")
    return f"{who} — the model marked it {requirement.status.value}, and {tokens}; its explanation: " \
           f"“{requirement.explanation}”"
