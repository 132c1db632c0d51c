"""What the Inspect page shows of a run, as data and escaped HTML (pure): the question line, the context
caption, the audit facts, citation errors, the model's reasoning, the downloads, and the session's runs as a
picker's labels and as a table.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pandas as pd

from answerlens.assessment import AnswerabilityAssessment
from answerlens.ui.common import exports
from answerlens.ui.common.exports import Download
from answerlens.ui.common.history import Entry
from answerlens.ui.common.markup import STYLE, esc, paragraph_html


def asked_html(entry: Entry) -> str:
    """The run's number, bundle, draft and time, then the question asked."""
    a = entry.assessment
    answer = ""
    if a.answer_sha256 is not None:
        answer = " · with a draft answer (its claims are requirements too)"
    return (f'{STYLE}<div class="al-muted" style="font-size:0.85rem">Run #{entry.number} · {esc(entry.source)}'
            f"{answer} · {entry.seconds:.2f} s</div>"
            f'<div style="font-size:1.05rem;margin:2px 0 6px"><strong>Question:</strong> {esc(entry.question)}</div>')


def focus_label(requirement: int | None) -> str:
    """The "Highlight requirement" choice: all of them, or one by its index."""
    return "all" if requirement is None else str(requirement)


def focus_options(a: AnswerabilityAssessment) -> list[int | None]:
    return [None, *range(len(a.requirements))]


def context_caption_html(entry: Entry, lines: int) -> str:
    """Size and hash of the context, and how to read its tints and marks."""
    return (f'{STYLE}<div class="al-muted" style="font-size:0.78rem">{len(entry.context):,} characters · '
            f"{lines:,} lines · context_sha256 {esc(entry.assessment.context_sha256[:16])}… · tinted lines hold "
            "an accepted citation; dashed marks are discarded citations</div>")


def citation_errors_html(errors: tuple[str, ...]) -> str | None:
    """The engine's citation errors, folded; None when there are none."""
    if not errors:
        return None
    items = "".join(f"<li><code>{esc(error)}</code></li>" for error in errors)
    return (f'{STYLE}<details><summary>Citation errors ({len(errors)})</summary>'
            f'<ul style="font-size:0.8rem">{items}</ul></details>')


def reasoning_html(reasoning: str) -> str:
    return f'{STYLE}<details><summary>Model reasoning</summary>{paragraph_html(reasoning)}</details>'


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
            facts.append(("latency", f"{meta.latency_ms:,.0f} ms, {meta.attempts} attempt(s)"))
        if meta.prompt_tokens is not None or meta.completion_tokens is not None:
            facts.append(("tokens", f"prompt {meta.prompt_tokens}, completion {meta.completion_tokens}"))
        if meta.finish_reason:
            facts.append(("finish_reason", meta.finish_reason))
    return facts


def downloads(a: AnswerabilityAssessment) -> list[tuple[str, Download]]:
    """The download buttons, by label: the assessment, its requirements, and the raw reply when there is one."""
    files = [("Assessment", exports.assessment_json(a)), ("Requirements", exports.requirements_csv(a))]
    raw = exports.raw_reply(a)
    if raw is not None:
        files.append(("Raw reply", raw))
    return files


def history_label(count: int) -> str:
    return f"Session history ({count} run{'s' if count != 1 else ''})"


def history_titles(entries: list[Entry]) -> dict[int, str]:
    """Run number to title, newest first (the picker's order)."""
    return {entry.number: entry.title for entry in reversed(entries)}


HISTORY_COLUMNS = ("run", "time", "verdict", "action", "question", "bundle", "source", "requirements", "seconds",
                   "evaluation_id")


def history_frame(entries: list[Entry]) -> pd.DataFrame:
    """Every run of the session, newest first, one row each (the time is local, as in the titles)."""
    rows = [[entry.number, datetime.fromtimestamp(entry.created), entry.assessment.verdict.value,
             entry.assessment.recommended_action.value, entry.question, entry.source, entry.label,
             len(entry.assessment.requirements), entry.seconds, entry.assessment.evaluation_id]
            for entry in reversed(entries)]
    return pd.DataFrame(rows, columns=list(HISTORY_COLUMNS))
