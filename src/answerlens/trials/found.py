"""The assessments a file holds — the file itself, a saved sample, or every sample of a trial result — for
``verify`` and the Compare page. Light on purpose: a single assessment is found without importing the trial log."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

SAMPLE_KIND: Literal["answerlens-trial-sample"] = "answerlens-trial-sample"
"""The ``kind`` of a saved sample file (``answerlens.trials.log`` writes it)."""


@dataclass(frozen=True)
class FoundAssessment:
    """An assessment in a file: the file itself, or one sample of a trial."""

    data: dict[str, Any]
    """The assessment as a JSON object, as recorded."""
    position: int | None = None
    """Index in the trial's samples."""
    question_id: str | None = None
    repeat: int | None = None


def holds_trial_log(data: Any) -> bool:
    """Whether parsed JSON is a trial result or a saved sample (read through the trial log)."""
    return isinstance(data, dict) and (isinstance(data.get("samples"), list) or data.get("kind") == SAMPLE_KIND)


def plain_assessments(data: Any) -> list[FoundAssessment]:
    """The assessment a file is, or wraps (a sample file of another runner, read no further); else none."""
    if not isinstance(data, dict):
        return []
    if any(name in data for name in ("verdict", "evaluation_id", "assessment_sha256")):
        return [FoundAssessment(data)]  # an assessment, perhaps with a field removed: verify says which
    wrapped = data.get("assessment")
    return [FoundAssessment(wrapped)] if isinstance(wrapped, dict) else []
