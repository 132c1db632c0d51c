"""The Trials page's tables as pandas ``DataFrame``s, and what each can be searched and filtered by (pure).

Built from the view-model rows, never from the files: one row per question, and one row per sample. The text of
each question (ours; upstream files do not carry it) is a column, so a search finds words of the question.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from answerlens.html.trial_rows import QuestionRow, SampleRef
from answerlens.trials.result import TrialResult
from answerlens.ui.common.filters import Facet, TableSpec, csv_text

__all__ = ["QUESTION_COLUMNS", "QUESTION_SPEC", "SAMPLE_COLUMNS", "SAMPLE_SPEC", "csv_text", "question_texts",
           "questions", "samples"]

TEXT = "question text"
MISSING_REPEAT = "·"
QUESTION_COLUMNS = ("question", TEXT, "label", "type", "outcomes", "citation errors", "requirements", "matched",
                    "agreeing")
SAMPLE_COLUMNS = ("sample", TEXT, "repeat", "label", "draft", "outcome", "verdict", "error", "citation errors",
                  "latency ms")
"""``sample`` is ``question#repeat``: the question id is not repeated in a column of its own."""
QUESTION_SPEC = TableSpec(("question", TEXT, "type"), (
    Facet("Label", ("label",)),
    Facet("Action", ("outcomes",), separator=" ", ignored=(MISSING_REPEAT,)),
))
"""Search by question (id, text, type); keep labels, and questions with an action (or ``error``) in any repeat."""
SAMPLE_SPEC = TableSpec(("sample", TEXT), (
    Facet("Label", ("label", "draft")),
    Facet("Action", ("outcome",)),
    Facet("Error kind", ("error",)),
))


def question_texts(result: TrialResult) -> dict[str, str]:
    """Question id → text, for our results (``result.json`` lists the questions); empty for upstream ones."""
    return {record.question_id: record.question for record in result.questions}


def questions(rows: Sequence[QuestionRow], texts: Mapping[str, str] | None = None) -> pd.DataFrame:
    """One row per question: its outcome per repeat (``·`` for a missing one), citation errors, agreement."""
    found = texts or {}
    return pd.DataFrame(
        [(row.question_id, found.get(row.question_id), row.label, row.question_type,
          " ".join(outcome or MISSING_REPEAT for outcome in row.outcomes), row.citation_errors, row.requirements,
          row.matched, row.agreeing) for row in rows],
        columns=list(QUESTION_COLUMNS),
    ).astype({"citation errors": "int64", "requirements": "int64", "matched": "int64", "agreeing": "int64"})


def samples(refs: Sequence[SampleRef], texts: Mapping[str, str] | None = None) -> pd.DataFrame:
    """One row per sample, keyed like the sample picker (``question#repeat``); latency only for our runs."""
    found = texts or {}
    frame = pd.DataFrame(
        [(ref.key, found.get(ref.question_id), ref.repeat, ref.label.value,
          ref.answer_label.value if ref.answer_label is not None else None, ref.outcome, ref.verdict, ref.error,
          ref.citation_errors, ref.latency_ms) for ref in refs],
        columns=list(SAMPLE_COLUMNS),
    )
    return frame.astype({"repeat": "int64", "citation errors": "int64", "latency ms": "float64"})
