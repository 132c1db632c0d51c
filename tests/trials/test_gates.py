"""Gates: upstream's default thresholds from planned counts, the min/max rule, gate files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from answerlens import DatasetError
from answerlens.trials.gates import Gate, GateReport, default_gates, evaluate_gates, load_gates
from answerlens.trials.log import QuestionLabel, SampleError, TrialSample, UpstreamSample, parse_samples
from answerlens.trials.summary import summarize
from tests.paths import PRME

UPSTREAM = PRME / "trials" / "beam-100k-answerability-dev-v2-results.json"
PUBLISHED = json.loads(UPSTREAM.read_text())
SUMMARY = summarize(parse_samples(PUBLISHED["samples"], UpstreamSample, "upstream"))


def _samples(answerable: int, questions: int) -> list[TrialSample]:
    """``answerable`` error samples spread over ``questions`` questions: planned, never assessed."""
    return [TrialSample(case_id=f"q{index % questions}", question_id=f"q{index % questions}", question_type=None,
                        label=QuestionLabel.ANSWERABLE, answer_label=None, repeat=index // questions,
                        dataset_sha256="d", case_sha256="c", configuration_sha256="k", latency_ms=1.0,
                        assessment=None, error=SampleError(kind="timeout", message="slow"))
            for index in range(answerable)]


@pytest.mark.parametrize(
    "answerable, questions, full_min, abstain_max, stable_min",
    [
        pytest.param(108, 40, 87, 10, 32, id="upstream_sizes_rounded_per_issue"),
        pytest.param(10, 5, 8, 1, 4, id="small"),
        pytest.param(9, 6, 8, 0, 5, id="ceil_and_floor"),
    ],
)
def test_default_thresholds_count_planned_samples(answerable: int, questions: int, full_min: int, abstain_max: int,
                                                  stable_min: int) -> None:
    gates = default_gates(summarize(_samples(answerable, questions)))
    assert gates == {
        Gate.UNSAFE_FULL_ANSWER_COUNT_MAX: 0,
        Gate.CITATION_ERRORS_MAX: 0,
        Gate.ORDINARY_FULL_ANSWER_COUNT_MIN: full_min,
        Gate.ORDINARY_ABSTENTION_COUNT_MAX: abstain_max,
        Gate.STABLE_ACTION_QUESTIONS_MIN: stable_min,
        Gate.ERROR_SAMPLES_MAX: 0,  # every sample here failed: a failed call is never a pass
    }


def test_failed_calls_never_shrink_the_thresholds() -> None:
    summary = summarize(_samples(2, 1))
    gates = evaluate_gates(summary, default_gates(summary))
    assert gates.results["ordinary_full_answer_count_min"].model_dump() == {"required": 2, "observed": 0,
                                                                             "passed": False}
    assert gates.results["error_samples_max"].model_dump() == {"required": 0, "observed": 2, "passed": False}
    assert gates.passed is False and "error_samples_max" in gates.failed


def test_the_published_gates_are_reproduced_and_min_max_rules_hold() -> None:
    published = GateReport.model_validate(PUBLISHED["quality_gates"])
    thresholds = {Gate(name): gate.required for name, gate in published.results.items()}
    assert evaluate_gates(SUMMARY, thresholds).model_dump(mode="json") == PUBLISHED["quality_gates"]
    relaxed = evaluate_gates(SUMMARY, {Gate.ORDINARY_FULL_ANSWER_COUNT_MIN: 62, Gate.CITATION_ERRORS_MAX: 5})
    assert relaxed.model_dump(mode="json") == {"passed": True, "results": {
        "ordinary_full_answer_count_min": {"required": 62, "observed": 62, "passed": True},
        "citation_errors_max": {"required": 5, "observed": 5, "passed": True}}}


def test_a_draft_gate_on_a_question_only_summary_is_bad_input() -> None:
    with pytest.raises(DatasetError, match="need draft answers"):
        evaluate_gates(SUMMARY, {Gate.CORRECT_DRAFT_FULL_ACCEPT_COUNT_MIN: 1})


@pytest.mark.parametrize(
    "content, message",
    [
        pytest.param({"vibes_min": 1}, "unknown gate 'vibes_min'", id="unknown"),
        pytest.param({"citation_errors_max": True}, "needs a number, got True", id="bool"),
        pytest.param([1], "must be a JSON object", id="not_an_object"),
    ],
)
def test_bad_gate_files(tmp_path: Path, content: object, message: str) -> None:
    path = tmp_path / "gates.json"
    path.write_text(json.dumps(content))
    with pytest.raises(DatasetError, match=message):
        load_gates(path)


def test_a_gate_file_keeps_its_order_and_number_types(tmp_path: Path) -> None:
    path = tmp_path / "gates.json"
    path.write_text(json.dumps({"stable_action_questions_min": 1, "citation_errors_max": 5.5}))
    gates = load_gates(path)
    assert list(gates.items()) == [(Gate.STABLE_ACTION_QUESTIONS_MIN, 1), (Gate.CITATION_ERRORS_MAX, 5.5)]
    assert evaluate_gates(SUMMARY, gates).results["citation_errors_max"].required == 5.5
