"""Where a result on screen came from, in the words the app labels it with: a recorded reply (hand-written or
not), a live model at its server, or no model call at all (pure)."""

from __future__ import annotations

from answerlens.assessment import AnswerabilityAssessment

RECORDED = "recorded response"


def source_label(assessment: AnswerabilityAssessment) -> tuple[str, str | None]:
    """How a result is labelled: ``recorded response`` (with its note) or the live engine, or no call."""
    meta = assessment.provider_metadata
    if meta is not None and meta.recording is not None:
        hand = meta.recording.hand_written
        return (f"{RECORDED} (hand-written)" if hand else RECORDED), meta.recording.note
    if not assessment.model_called:
        return "no model call (no citable evidence)", None
    where = f" at {meta.base_url}" if meta is not None and meta.base_url else ""
    return f"live model: {assessment.provider} {assessment.model}{where}", None


def is_recorded(label: str) -> bool:
    """Whether a label (from ``source_label``) names a recording."""
    return label.startswith(RECORDED)
