"""The assessment report: what the Inspect page shows of one assessment, drawn by the app's own renderers
(``markup``, ``highlight``, ``why``), plus the reasons for every discarded citation, the recording it came
from, the checks of its embedded data and, when present, the second opinion (``report.opinion``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from answerlens.assessment import AnswerabilityAssessment
from answerlens.citations import CitationDecision, Decision
from answerlens.explanation import HASH_FIELDS, error_parts, error_text, reason_text, why
from answerlens.html.escape import esc
from answerlens.html.highlight import Highlight, highlight, requirement_rows, uncounted
from answerlens.html.markup import (
    caveats_html,
    cell,
    colour,
    context_html,
    facts_html,
    hash_coverage_html,
    hashes_html,
    notice_html,
    paragraph_html,
    requirement_dot,
    table_html,
    tint,
    verdict_html,
)
from answerlens.html.opinion import legend_items, unread_of
from answerlens.html.provenance import source_label
from answerlens.html.requirements import requirements_html
from answerlens.local_model import WIRING_MARK, wiring_check
from answerlens.report import opinion as opinion_part
from answerlens.report.embedded import AssessmentData
from answerlens.report.page import header, heading, muted, section
from answerlens.second_opinion.document import split_document
from answerlens.second_opinion.models import SecondOpinion
from answerlens.trace_import import import_facts


@dataclass(frozen=True)
class Shown:
    """The embedded data, typed: the audited assessment, its second opinion, and what the page puts on top."""

    data: AssessmentData
    assessment: AnswerabilityAssessment
    opinion: SecondOpinion | None
    verdict: str
    action: str
    """The document's top-level verdict and action: the strict ones under the strict policy."""

    @classmethod
    def of(cls, data: AssessmentData) -> Shown:
        """Raises pydantic's ``ValidationError`` when the data does not read as an assessment."""
        audited, opinion, _ = split_document(data.document)
        assessment = AnswerabilityAssessment.model_validate(audited)
        return cls(data, assessment, _opinion(opinion), str(data.document.get("verdict")),
                   str(data.document.get("recommended_action")))


def _opinion(data: Any) -> SecondOpinion | None:
    """The second opinion to show; a null or malformed one is a problem the checks name, and is not shown."""
    try:
        return SecondOpinion.model_validate(data) if isinstance(data, dict) else None
    except ValidationError:
        return None


def title(shown: Shown) -> str:
    question = shown.data.question
    short = question if len(question) <= 90 else question[:89] + "…"
    return f"answerlens · {shown.verdict.upper()} · {short}"


def sheets(shown: Shown, problems: Sequence[str], generator: str, caveats: Sequence[str] = ()) -> list[str]:
    """Printed pages: the decision; the second opinion; the context; the citations and the audit."""
    first = "\n".join([_header(shown, generator), _asked(shown), _verdict(shown), _checks(problems),
                       caveats_html(caveats)])
    pages = [first]
    if shown.opinion is not None:
        pages.append(opinion_part.section_html(shown.opinion))
    pages.append(_context(shown))
    pages.append("\n".join([_discarded(shown), _audit(shown), _reasoning(shown.assessment)]))
    return pages


def _header(shown: Shown, generator: str) -> str:
    a = shown.assessment
    ids = [("evaluation_id", a.evaluation_id), ("assessment_sha256", a.assessment_sha256)]
    if shown.opinion is not None:
        ids.append(("opinion_sha256", shown.opinion.opinion_sha256))
    origin = f" from {shown.data.source}" if shown.data.source else ""
    return header("answerlens report: why this verdict", f"One assessment, made with {generator}{origin}.", ids,
                  "This file carries the assessment, its question, draft and exact context as data. Checking the "
                  "file recomputes every hash, re-derives the verdict and every citation from them, and confirms "
                  "that this page is exactly what they render to:")


def _asked(shown: Shown) -> str:
    data, a = shown.data, shown.assessment
    parts = [f'<p class="rp-question" data-question=""><strong>Question:</strong> {esc(data.question)}</p>']
    if data.answer is not None:
        parts.append(f'<p class="rp-question" data-answer=""><strong>Draft answer:</strong> {esc(data.answer)}</p>'
                     + muted("Its claims are requirements too."))
    elif a.answer_sha256 is not None:
        parts.append(muted(f"A draft answer was assessed (answer_sha256 {a.answer_sha256}); its text was not "
                           "available when this report was made."))
    return section("question", "What was asked", *parts)


def _verdict(shown: Shown) -> str:
    a = shown.assessment
    label, note = source_label(a)
    if shown.opinion is not None and shown.opinion.strict is not None:
        strict = (f"strict evidence policy; the model-derived verdict is {a.verdict.value} "
                  f"({a.recommended_action.value.replace('_', ' ')})")
        note = f"{note} · {strict}" if note else strict
    rows = requirement_rows(a.requirements, shown.data.context)
    marks = [WIRING_MARK] if wiring_check(a.provider, a.model) else []
    return section(
        "verdict", "Verdict",
        verdict_html(shown.verdict, shown.action, source=label, note=note, marks=marks),
        heading("Why"), paragraph_html(why(a, shown.opinion)),
        heading("Requirements"), requirements_html(rows),
        _focus(len(rows)),
    )


def _focus(count: int) -> str:
    """Radio buttons that narrow the highlighting to one requirement (style rules only: see ``focus_css``)."""
    if count < 2:
        return ""
    options = ['<label><input type="radio" name="rp-focus" id="rp-focus-all" checked> all</label>']
    options += [f'<label><input type="radio" name="rp-focus" id="rp-focus-{index}"> {index + 1}</label>'
                for index in range(count)]
    return (f'<fieldset class="rp-focus"><legend>Highlight requirement (here and in the context)</legend>'
            f'{"".join(options)}</fieldset>')


def focus_css(count: int) -> str:
    """Style rules for the requirement picker: with requirement i chosen, every other requirement's marks, line
    tints and table rows fade. Built from numbers only; the report runs no script."""
    rules = []
    for index in range(count if count >= 2 else 0):
        chosen = f".rp:has(#rp-focus-{index}:checked)"
        rules.append(f'{chosen} .al-cite:not([data-requirement="{index}"])'
                     "{background-color:transparent!important;outline:none!important}")
        rules.append(f'{chosen} .al-line[data-requirements]:not([data-requirements~="{index}"])'
                     "{background-color:transparent!important;box-shadow:none!important}")
        rules.append(f'{chosen} tr[data-requirement-row]:not([data-requirement-row="{index}"]){{opacity:0.4}}')
    return "\n".join(rules)


def _checks(problems: Sequence[str]) -> str:
    if not problems:
        return notice_html("ok", "The embedded data verifies",
                           "Hashes recomputed (evaluation_id, assessment_sha256, raw_output_sha256 and "
                           "provenance_sha256 where recorded), verdict and action re-derived, every cited reference "
                           "found in the embedded context and every citation decision and span re-derived from it "
                           "in the format its header names, question and draft hashed as recorded (and the second "
                           "opinion re-checked, when there is one). Not checked here: which memory a reader or "
                           "compact reference names (the context does not print it: verify the report with "
                           "--bundle), and that a live reply really came from the server named.")
    return notice_html("error", f"The embedded data does not verify ({len(problems)} problem(s))",
                       remedy="do not rely on this report; re-create it from the original files",
                       code="\n".join(problems))


def _context(shown: Shown) -> str:
    data, a = shown.data, shown.assessment
    if not data.context:
        return section("context", "Context, exactly as the model saw it",
                       notice_html("info", "The context is empty", "Nothing was packed, so no model was called."))
    flagged = opinion_part.flagged_refs(shown.opinion) if shown.opinion is not None else None
    marks = highlight(data.context, [r.citations for r in a.requirements], flagged=flagged,
                      uncounted=uncounted(a.requirements),
                      unread=unread_of(shown.opinion, data.context) if shown.opinion is not None else ())
    fmt = data.context_format.value if data.context_format is not None else "unknown"
    caption = muted(f"{len(data.context):,} characters · {len(marks.lines):,} lines · {fmt} format · "
                    f"context_sha256 {a.context_sha256[:16]}…")
    return section("context", "Context, exactly as the model saw it", caption,
                   _legend(len(a.requirements), marks, data.context), context_html(data.context, marks))


def _legend(count: int, marks: Highlight, context: str) -> str:
    """What the context's tints and marks mean (``legend_items``: only what occurs, with the run's own labels)."""
    items = legend_items(marks, context, tint=False)
    if any(line.requirements for line in marks.lines):
        tinted = f"background-color:{tint(0)};box-shadow:inset 3px 0 0 {colour(0)}"
        items.insert(0, (f'<i class="rp-swatch" data-swatch="line" style="{tinted}"></i>',
                         "line holding an accepted citation (tint and bar per requirement)"))
    entries = "".join(f"<span>{sample} {esc(text)}</span>" for sample, text in items)
    dots = " ".join(requirement_dot(index) for index in range(count))
    return f'<div class="rp-legend" data-legend>{entries}<span>requirements: {dots}</span></div>'


def _discarded(shown: Shown) -> str:
    a, context = shown.assessment, shown.data.context
    rows = [_discarded_row(index, decision, context)
            for index, requirement in enumerate(a.requirements)
            for decision in requirement.citations if decision.decision == Decision.DISCARDED]
    parts = [table_html(["requirement", "token as written", "reason", "why", "citation error", "in the context"],
                        rows) if rows else muted("No citation was discarded.", small=False)]
    if a.citation_errors:
        items = "".join(f"<li><code>{esc(error_text(error))}</code></li>" for error in a.citation_errors)
        parts += [heading(f"Citation errors ({len(a.citation_errors)})"), f'<ul class="rp-small">{items}</ul>',
                  muted("The embedded JSON keeps PRME's exact strings, which count requirements from 0.")]
    return section("discarded", "Discarded citations", *parts)


def _discarded_row(index: int, decision: CitationDecision, context: str) -> str:
    reason = decision.reason.value if decision.reason else "discarded"
    where = "no"
    if decision.span is not None:
        where = f"yes, line {context.count(chr(10), 0, decision.span.start) + 1}"
    attrs = f'data-citation="discarded" data-requirement="{index}" data-reason="{esc(reason)}"'
    written = json.dumps(decision.token, ensure_ascii=False)  # quoted, so a blank or padded token shows
    error = error_parts(decision.error)[1] if decision.error else "— (skipped silently, no error)"
    return (cell(index + 1, attrs) + f"<td><code>{esc(written)}</code></td>" + cell(reason)
            + f'<td class="al-text">{esc(reason_text(decision))}</td>' + cell(error) + cell(where))


def _audit(shown: Shown) -> str:
    a = shown.assessment
    label, _ = source_label(a)
    return section("audit", "Audit", facts_html(audit_facts(a, label, shown.data)),
                   hashes_html({name: getattr(a, name) for name in HASH_FIELDS}, copy_buttons=False),
                   heading("What each hash covers"), hash_coverage_html())


def audit_facts(a: AnswerabilityAssessment, label: str, data: AssessmentData) -> list[tuple[str, Any]]:
    """The Inspect page's audit facts (same names) plus the typed origin and recording, the prompt hash's
    version and the context format. Not shared with the page: its view-model imports pandas, which the
    command line does without."""
    meta = a.provider_metadata
    origin = (a.origin.value if a.origin is not None else "none (no model call)" if not a.model_called
              else "not recorded (no provider metadata, as in PRME's own assessments)")
    facts: list[tuple[str, Any]] = [("source", label), ("origin", origin), ("provider", a.provider),
                                    ("model", a.model), ("prompt_version", a.prompt_version),
                                    ("model_called", a.model_called)]
    if meta is not None:
        facts.append(("engine", meta.engine))
        if meta.base_url:
            facts.append(("base_url", meta.base_url))
        if meta.recording is not None:
            facts += [("recording", meta.recording.note), ("recording author", meta.recording.author),
                      ("recording file", meta.recording.source), ("recording sha256", meta.recording.source_sha256)]
        if meta.latency_ms is not None:
            facts.append(("latency", f"{meta.latency_ms:,.0f} ms, {meta.attempts} attempt(s)"))
        if meta.prompt_tokens is not None or meta.completion_tokens is not None:
            facts.append(("tokens", f"prompt {meta.prompt_tokens}, completion {meta.completion_tokens}"))
        for name in ("finish_reason", "response_format"):
            if getattr(meta, name):
                facts.append((name, getattr(meta, name)))
    fmt = data.context_format.value if data.context_format is not None else "unknown"
    facts += [("context_format", fmt), *import_facts(a.trace_import)]
    return [(name, value) for name, value in facts if value is not None]


def _reasoning(a: AnswerabilityAssessment) -> str:
    return section("reasoning", "Model reasoning", paragraph_html(a.reasoning))

