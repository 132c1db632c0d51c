"""The Trials page's tables as pandas ``DataFrame``s (sortable in ``st.dataframe``) and their CSV exports (pure).

Built from the view-model rows, never from the files: one row per question, and one row per sample.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from answerlens.ui.common.exports import cell
from answerlens.ui.trials.viewmodel import QuestionRow, SampleRef

QUESTION_COLUMNS = ("question", "label", "type", "outcomes", "citation errors", "requirements", "matched",
                    "agreeing")
SAMPLE_COLUMNS = ("sample", "question", "repeat", "label", "draft", "outcome", "verdict", "error",
                  "citation errors", "latency ms")


def questions(rows: Sequence[QuestionRow]) -> pd.DataFrame:
    """One row per question: its outcome per repeat (``·`` for a missing one), citation errors, agreement."""
    return pd.DataFrame(
        [(row.question_id, row.label, row.question_type, " ".join(outcome or "·" for outcome in row.outcomes),
          row.citation_errors, row.requirements, row.matched, row.agreeing) for row in rows],
        columns=list(QUESTION_COLUMNS),
    ).astype({"citation errors": "int64", "requirements": "int64", "matched": "int64", "agreeing": "int64"})


def samples(refs: Sequence[SampleRef]) -> pd.DataFrame:
    """One row per sample, keyed like the sample picker (``question#repeat``); latency only for our runs."""
    frame = pd.DataFrame(
        [(ref.key, ref.question_id, ref.repeat, ref.label.value,
          ref.answer_label.value if ref.answer_label is not None else None, ref.outcome, ref.verdict, ref.error,
          ref.citation_errors, ref.latency_ms) for ref in refs],
        columns=list(SAMPLE_COLUMNS),
    )
    return frame.astype({"repeat": "int64", "citation errors": "int64", "latency ms": "float64"})


def csv_text(frame: pd.DataFrame) -> str:
    """The table as CSV; text a spreadsheet would run as a formula is prefixed with an apostrophe."""
    safe = frame.copy()
    for column in safe.columns:
        if not pd.api.types.is_numeric_dtype(safe[column]):  # text (object, or pandas' string dtype)
            safe[column] = safe[column].map(lambda value: cell(value) if isinstance(value, str) else value)
    return safe.to_csv(index=False)
