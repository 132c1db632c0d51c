"""Shared by the Trials page tests."""

from __future__ import annotations

from answerlens.trials.log import QuestionLabel, SampleError, TrialSample


def sample(question: str, repeat: int, kind: str | None = None, message: str = "it failed") -> TrialSample:
    """An error sample as the runner writes one (the hashes are placeholders: nothing here reads them)."""
    return TrialSample(case_id=question, question_id=question, question_type=None, label=QuestionLabel.ANSWERABLE,
                       answer_label=None, repeat=repeat, dataset_sha256="d", case_sha256="c",
                       configuration_sha256="k", latency_ms=1.0, assessment=None,
                       error=SampleError(kind=kind or "server_error", message=message))
