"""``summarize``: upstream's counting on the published upstream samples, drafts, error samples, agreement."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from answerlens import DatasetError
from answerlens.trials.log import AnswerLabel, QuestionLabel, SampleError, TrialSample, UpstreamSample, parse_samples
from answerlens.trials.summary import summarize
from answerlens.verdict import AnswerabilityAction
from tests.paths import PRME

UPSTREAM = PRME / "trials" / "beam-100k-answerability-dev-v2-results.json"
PUBLISHED = json.loads(UPSTREAM.read_text())


def upstream_samples(data: dict[str, Any] = PUBLISHED) -> tuple[UpstreamSample, ...]:
    return parse_samples(data["samples"], UpstreamSample, "upstream")


def test_the_published_summary_is_recomputed_exactly() -> None:
    summary = summarize(upstream_samples())
    dumped = summary.model_dump(mode="json")
    assert {key: dumped[key] for key in PUBLISHED["summary"]} == PUBLISHED["summary"]
    assert list(dumped)[:len(PUBLISHED["summary"])] == list(PUBLISHED["summary"])  # upstream's keys, in its order
    assert "draft_answers" not in dumped
    assert summary.error_samples == 0 and summary.errors == ()
    assert summary.unanswerable.actions[AnswerabilityAction.ANSWER] == summary.unanswerable.unsafe_full_answer_count
    assert summary.requirement_agreement.matched_requirements > 0


def test_draft_summary_per_answer_label() -> None:
    data = copy.deepcopy(PUBLISHED)
    for index, sample in enumerate(data["samples"]):
        sample["assessment_mode"] = "draft_answer"
        sample["answer_label"] = "correct" if index % 2 else "incorrect"
    summary = summarize(upstream_samples(data), drafts=True)
    assert summary.draft_answers is not None
    correct = summary.draft_answers.correct
    assert correct.samples == 60
    assert correct.full_accept_count + correct.partial_accept_count + correct.reject_count == 60
    assert list(summary.model_dump(mode="json"))[7] == "draft_answers"  # after per_question, before ours
    assert summary.planned(AnswerLabel.CORRECT) == 60


def test_duplicate_question_repeat_is_refused() -> None:
    samples = upstream_samples()
    with pytest.raises(DatasetError, match="duplicate question repeat: 100K_0_q0_abstention repeat 0"):
        summarize([*samples, samples[0]])


def _error_sample(repeat: int) -> TrialSample:
    return TrialSample(case_id="a", question_id="a", question_type=None, label=QuestionLabel.ANSWERABLE,
                       answer_label=None, repeat=repeat, dataset_sha256="d", case_sha256="c",
                       configuration_sha256="k", latency_ms=1.0, assessment=None,
                       error=SampleError(kind="server_error", message="HTTP 500"))


def test_error_samples_are_listed_never_counted_as_actions() -> None:
    summary = summarize([_error_sample(1), _error_sample(0)])
    assert (summary.samples, summary.error_samples, summary.answerable.samples) == (0, 2, 0)
    assert [(error.repeat, error.kind, error.label) for error in summary.errors] == [
        (1, "server_error", QuestionLabel.ANSWERABLE), (0, "server_error", QuestionLabel.ANSWERABLE)]  # run order
    (question,) = summary.per_question
    assert question.error_repeats == (0, 1) and not question.stable_actions
    assert summary.stability.questions_with_identical_actions == 0
    assert summary.planned(QuestionLabel.ANSWERABLE) == 2 and summary.planned_samples == 2


def test_requirement_agreement_matches_requirements_by_text_across_repeats() -> None:
    agreement = summarize(upstream_samples()).requirement_agreement
    assert (agreement.agreeing_requirements, agreement.matched_requirements) == (19, 22)
    assert agreement.agreement_rate == round(19 / 22, 4)
    assert sum(entry.matched for entry in agreement.per_question) == 22
