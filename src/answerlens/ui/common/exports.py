"""Downloads: the assessment JSON, the model's raw reply, a recording bound to its inputs, and the requirements
as CSV (pure)."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pandas as pd

from answerlens.assessment import AnswerabilityAssessment
from answerlens.audit import sha256_text
from answerlens.citations import Decision
from answerlens.recording import recording_file, recording_of_assessment


@dataclass(frozen=True)
class Download:
    data: str
    file_name: str
    mime: str
    note: str | None = None


def _stem(assessment: AnswerabilityAssessment) -> str:
    return assessment.evaluation_id[:12]


def assessment_json(assessment: AnswerabilityAssessment) -> Download:
    return Download(assessment.model_dump_json(indent=2), f"assessment-{_stem(assessment)}.json", "application/json",
                    "the whole assessment as JSON (verify it with `answerlens verify`)")


def raw_reply(assessment: AnswerabilityAssessment) -> Download | None:
    """The exact reply text when the assessment holds it and it matches ``raw_output_sha256``; else the parsed
    reply (assessments written before answerlens kept the text)."""
    if assessment.raw_output is None:
        return None
    name = f"raw-reply-{_stem(assessment)}.json"
    raw_text = assessment.raw_output_text
    if raw_text is not None and sha256_text(raw_text) == assessment.raw_output_sha256:
        return Download(raw_text, name, "application/json", "exact reply text (matches raw_output_sha256)")
    return Download(
        json.dumps(assessment.raw_output, indent=2, ensure_ascii=False),
        name,
        "application/json",
        "parsed reply: same content, but not the exact bytes raw_output_sha256 was computed over",
    )


CSV_COLUMNS = (
    "index", "requirement", "claimed_status", "status", "accepted_refs", "evidence_ids", "discarded", "explanation",
)


def cell(text: str) -> str:
    """Model text that a spreadsheet would run as a formula gets a leading apostrophe (OWASP advice)."""
    return f"'{text}" if text[:1] in _FORMULA_STARTS else text


_FORMULA_STARTS = frozenset("=+-@\t\r")


def requirements_frame(assessment: AnswerabilityAssessment) -> pd.DataFrame:
    """One row per requirement (``CSV_COLUMNS``); discarded tokens as ``token (reason)`` joined by ``; ``, and
    model text defused for spreadsheets."""
    rows = []
    for index, item in enumerate(assessment.requirements):
        discarded = [
            f"{citation.normalized or repr(citation.token)} ({citation.reason.value if citation.reason else ''})"
            for citation in item.citations
            if citation.decision == Decision.DISCARDED
        ]
        rows.append([
            index,
            cell(item.requirement),
            item.claimed_status.value if item.claimed_status else "",
            item.status.value,
            " ".join(item.evidence_refs),
            " ".join(str(memory_id) for memory_id in item.evidence_ids),
            cell("; ".join(discarded)),
            cell(item.explanation),
        ])
    return pd.DataFrame(rows, columns=list(CSV_COLUMNS))


def requirements_csv(assessment: AnswerabilityAssessment) -> Download:
    # CRLF line ends and minimal quoting, as the csv module writes them (the bytes are pinned by a test).
    data = requirements_frame(assessment).to_csv(index=False, lineterminator="\r\n")
    return Download(data, f"requirements-{_stem(assessment)}.csv", "text/csv", "one row per requirement, as CSV")


def recording_json(assessment: AnswerabilityAssessment, question: str, answer: str | None) -> Download | None:
    """The run's reply as a recording bound to the inputs it answered (question, draft, exact context, prompt):
    replaying it for anything else is refused. A replayed run's recording keeps its original binding and marks
    (``recording_of_assessment``): a forced run's reply stays bound to the inputs it really answered, an unbound
    one stays unbound. None when no model was called. The question and draft go in as text too (so "restore the
    recorded question" can put them back) when they are the ones the reply answered."""
    if assessment.raw_output_text is None:
        return None
    draft = answer.strip() if answer is not None else None
    if sha256_text(question.strip()) != assessment.query_sha256 or (
            (sha256_text(draft) if draft is not None else None) != assessment.answer_sha256):
        return None
    recording = recording_of_assessment(assessment.model_dump(mode="json"), question=question.strip(), answer=draft)
    if recording.ref.binding is None:
        help_text = "an unbound reply (its recording did not say what it answered): every replay is marked unbound"
    elif recording.question is None:
        help_text = "the reply bound to the inputs it really answered, not this forced run's: it replays only there"
    else:
        help_text = "the reply bound to this run's inputs: it replays only for this question, draft and context"
    return Download(json.dumps(recording_file(recording), indent=2, ensure_ascii=False),
                    f"recording-{_stem(assessment)}.json", "application/json", help_text)
